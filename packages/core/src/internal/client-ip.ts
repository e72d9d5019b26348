/** Which `X-Forwarded-For` hops to believe: none (false), all (true), a hop count, or proxy addresses. */
export type TrustProxy = boolean | number | string[];

/**
 * The client address of a request: the socket's, or the `X-Forwarded-For` hop that `trustProxy`
 * lets through (a hop count counts proxies from the socket back; a list names the trusted proxies).
 * The one implementation behind `ctx.ip` for every protocol.
 * @example
 * clientIp('10.0.0.1', '203.0.113.7, 10.0.0.2', 2); // '203.0.113.7'
 */
export function clientIp(socketAddress: string, forwardedFor: string | undefined, trustProxy: TrustProxy): string {
  if (trustProxy === false || forwardedFor === undefined) return socketAddress;
  const hops = forwardedFor.split(',').map((s) => s.trim()).filter(Boolean);
  const chain = [...hops, socketAddress];
  if (trustProxy === true) return chain[0] ?? socketAddress;
  if (typeof trustProxy === 'number') return chain[Math.max(0, chain.length - 1 - trustProxy)] ?? socketAddress;
  for (let i = chain.length - 1; i >= 0; i--) if (!trustProxy.includes(chain[i]!)) return chain[i]!;
  return chain[0] ?? socketAddress;
}

/**
 * Whether a trusted proxy says the client's request came over https: `X-Forwarded-Proto` as far
 * as `trustProxy` trusts the proxies in front (the socket's peer first). Each proxy that appends to
 * the header adds one value on the right, so with `n` trusted proxies the value of the front-most
 * of them (`n` from the right) is the scheme the client used, and a value a client sent itself
 * ahead of them is never read. With `true`, the left-most value; with a list of proxy addresses,
 * as many proxies as walking `X-Forwarded-For` + socket address from the right passes listed ones.
 * @example
 * forwardedHttps('10.0.0.1', undefined, 'http, https', 1); // true: the one trusted proxy said https
 */
export function forwardedHttps(socketAddress: string, forwardedFor: string | undefined, forwardedProto: string | undefined, trustProxy: TrustProxy): boolean {
  if (trustProxy === false || forwardedProto === undefined) return false;
  const values = forwardedProto.split(',').map((s) => s.trim()).filter(Boolean);
  if (values.length === 0) return false;
  let trusted: number;
  if (trustProxy === true) trusted = values.length;
  else if (typeof trustProxy === 'number') trusted = trustProxy;
  else {
    const chain = [...(forwardedFor ?? '').split(',').map((s) => s.trim()).filter(Boolean), socketAddress];
    trusted = 0;
    while (trusted < chain.length && trustProxy.includes(chain[chain.length - 1 - trusted]!)) trusted++;
  }
  if (!(trusted >= 1)) return false;
  return values[Math.max(0, values.length - trusted)]!.toLowerCase() === 'https';
}
