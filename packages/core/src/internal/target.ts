import { HTTPError } from '../http-error.js';

/** An absolute-form request target (RFC 9112 §3.2.2): `http://host[:port]` and what follows. */
const ABSOLUTE_TARGET = /^https?:\/\/[^/?#]*/i;

/**
 * The origin form (`/path?query`) of a request target. Origin-form targets, by far the usual case,
 * are returned as they are after one character test; absolute-form `http(s)://` targets lose their
 * scheme and authority. Anything else (`*`, another scheme) is left alone.
 */
export function originForm(target: string): string {
  if (target.charCodeAt(0) === 47 /* / */) return target;
  const authority = ABSOLUTE_TARGET.exec(target);
  if (authority === null) return target;
  const rest = target.slice(authority[0].length);
  return rest.charCodeAt(0) === 47 ? rest : `/${rest}`;
}

function hexValue(code: number): number {
  if (code >= 48 && code <= 57) return code - 48;
  const lower = code | 0x20;
  if (lower >= 97 && lower <= 102) return lower - 87;
  return -1;
}

/** RFC 3986 unreserved: ALPHA / DIGIT / "-" / "." / "_" / "~". */
function isUnreserved(code: number): boolean {
  return (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || (code >= 48 && code <= 57) || code === 45 || code === 46 || code === 95 || code === 126;
}

/**
 * Decodes the percent-encodings of unreserved characters in a path (RFC 3986 §6.2.2.2: `/%61dmin`
 * and `/admin` are the same resource), so that static segments and params follow one rule.
 * Reserved and other characters stay encoded (`%2F` stays inside its segment). A path with an
 * invalid escape is returned unchanged, for the router to refuse with 400. Idempotent.
 */
export function decodeUnreserved(path: string): string {
  let at = path.indexOf('%');
  if (at === -1) return path;
  let out = '';
  let copied = 0;
  while (at !== -1) {
    const high = hexValue(path.charCodeAt(at + 1));
    const low = high === -1 ? -1 : hexValue(path.charCodeAt(at + 2));
    if (low === -1) return path;
    const code = high * 16 + low;
    if (isUnreserved(code)) {
      out += path.slice(copied, at) + String.fromCharCode(code);
      copied = at + 3;
    }
    at = path.indexOf('%', at + 3);
  }
  return copied === 0 ? path : out + path.slice(copied);
}

/**
 * Percent-decodes part of a request path, reserved characters included (`%2F` → `/`): the one rule
 * for bad percent-encoding in a path, a 400. The router checks a whole path with it (the result
 * unused) and decodes params with it; `decodeURIComponent` refuses exactly the inputs `decodeURI`
 * does, so every param of a path that passed decodes.
 */
export function decodePathPart(value: string): string {
  if (value.indexOf('%') === -1) return value;
  try {
    return decodeURIComponent(value);
  } catch {
    throw new HTTPError(400, 'Invalid percent-encoding in path');
  }
}
