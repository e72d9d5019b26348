import type { CompressEncoding } from '../types.js';

/** What the client's `Accept-Encoding` says of one coding: its weight, or undefined when it names neither it nor `*`. */
interface Weights {
  named: Map<string, number>;
  star: number | undefined;
}

/** A qvalue as RFC 9110 §12.4.2 writes it: 0 to 1 with up to three decimals; anything else is not one. */
const QVALUE = /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/;

/** The weights of `Accept-Encoding`; an entry whose q is not a qvalue is ignored (as if not sent). */
function weightsOf(header: string): Weights {
  const named = new Map<string, number>();
  let star: number | undefined;
  for (const entry of header.split(',')) {
    const parts = entry.split(';');
    const coding = parts[0]!.trim().toLowerCase();
    if (coding === '') continue;
    let q = 1;
    let valid = true;
    for (let i = 1; i < parts.length; i++) {
      const param = parts[i]!.trim();
      const eq = param.indexOf('=');
      if (eq === -1 || param.slice(0, eq).trim().toLowerCase() !== 'q') continue;
      const value = param.slice(eq + 1).trim();
      if (!QVALUE.test(value)) valid = false;
      else q = Number(value);
    }
    if (!valid) continue;
    // RFC 9110 §8.4.1.3: x-gzip is gzip. A coding listed twice keeps its highest weight.
    const name = coding === 'x-gzip' ? 'gzip' : coding;
    if (name === '*') star = Math.max(star ?? 0, q);
    else named.set(name, Math.max(named.get(name) ?? 0, q));
  }
  return { named, star };
}

/**
 * The coding to answer with, from the client's `Accept-Encoding` and the server's codings in its
 * order of preference; undefined for no content coding (identity).
 *
 * - No header: identity (what browsers and proxies expect; RFC 9110 would allow any coding).
 * - An empty header: identity (RFC 9110 §12.5.3: the client wants no coding).
 * - Each server coding weighs what the client gave it, else what it gave `*`, else 0; the highest
 *   weight above 0 wins, and the server's order breaks ties.
 * - Identity is the fallback. It wins over a coding only when the client weighs it higher
 *   explicitly (`gzip;q=0.5, identity`).
 * - When identity is refused (`identity;q=0`, or `*;q=0` without `identity`) and no coding has a
 *   weight, a coding the client did not refuse (by name, or by `*;q=0`) is still sent (the
 *   server's first); when it refused them all, the answer goes out as identity anyway: a 406 helps no one, and RFC 9110
 *   §12.1 lets a server disregard the header.
 */
export function negotiateEncoding(header: string | string[] | undefined, codings: readonly CompressEncoding[]): CompressEncoding | undefined {
  if (header === undefined) return undefined;
  const { named, star } = weightsOf(Array.isArray(header) ? header.join(',') : header);
  let best: CompressEncoding | undefined;
  let bestQ = 0;
  for (const coding of codings) {
    const q = named.get(coding) ?? star ?? 0;
    if (q > bestQ) {
      best = coding;
      bestQ = q;
    }
  }
  const identity = named.get('identity') ?? star;
  if (best !== undefined) return identity !== undefined && identity > bestQ ? undefined : best;
  if (identity === 0 && star === undefined) {
    // Identity refused, and no coding weighed: one the client did not refuse (by name or by `*`) is its only hope.
    for (const coding of codings) if (!named.has(coding)) return coding;
  }
  return undefined;
}
