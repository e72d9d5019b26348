import { HTTPError } from '../http-error.js';
import type { QueryRecord } from '../types.js';

/** Most keys a query string or URL-encoded body may carry before it is refused with 400. */
export const DEFAULT_MAX_KEYS = 1000;

/**
 * Parses `a=1&b=2&a=3` into `{ a: ['1', '3'], b: '2' }` on a null-prototype object, so keys
 * such as `__proto__` are plain data. `+` is a space. Brackets carry no meaning (`a[b]` is a key).
 * Invalid percent-encoding or more than `maxKeys` pairs throw a 400 HTTPError.
 */
export function parseQuery(input: string, maxKeys: number = DEFAULT_MAX_KEYS, what = 'query string'): QueryRecord {
  const out: QueryRecord = Object.create(null) as QueryRecord;
  const length = input.length;
  if (length === 0) return out;
  let start = 0;
  let pairs = 0;
  while (start <= length) {
    let end = input.indexOf('&', start);
    if (end === -1) end = length;
    if (end > start) {
      if (++pairs > maxKeys) throw new HTTPError(400, `Too many parameters in ${what} (limit ${maxKeys})`);
      const eq = input.indexOf('=', start);
      let key: string;
      let value: string;
      if (eq === -1 || eq > end) {
        key = decode(input.slice(start, end), what);
        value = '';
      } else {
        key = decode(input.slice(start, eq), what);
        value = decode(input.slice(eq + 1, end), what);
      }
      const existing = out[key];
      if (existing === undefined) out[key] = value;
      else if (typeof existing === 'string') out[key] = [existing, value];
      else existing.push(value);
    }
    start = end + 1;
  }
  return out;
}

function decode(part: string, what: string): string {
  let s = part;
  if (s.indexOf('+') !== -1) s = s.replace(/\+/g, ' ');
  if (s.indexOf('%') === -1) return s;
  try {
    return decodeURIComponent(s);
  } catch {
    throw new HTTPError(400, `Invalid percent-encoding in ${what}`);
  }
}
