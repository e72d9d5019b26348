/**
 * The conditional-request rules of RFC 9110 §13 that `etag()` applies: `If-None-Match` by the weak
 * comparison (§8.8.3.2, §13.1.2) and `If-Modified-Since` against an HTTP-date (§5.6.7, §13.1.3).
 */

/**
 * Whether `If-None-Match` matches `current` (the response's ETag) by the weak comparison: `*`
 * matches any current representation; otherwise a listed entity-tag whose opaque part equals
 * `current`'s, `W/` ignored on both sides. The list is read by its grammar (an entity-tag may hold a
 * comma); a member that is not a quoted entity-tag is compared as it is written.
 * @example
 * ifNoneMatchMatches('W/"a", "b"', '"a"'); // true
 */
export function ifNoneMatchMatches(header: string, current: string): boolean {
  // `*` is the field's whole value or nothing: inside a list it is no wildcard.
  if (header.trim() === '*') return true;
  const wanted = opaque(current);
  const length = header.length;
  let i = 0;
  while (i < length) {
    const c = header.charCodeAt(i);
    // Skip the list's separators and optional whitespace.
    if (c === 0x2c || c === 0x20 || c === 0x09) {
      i++;
      continue;
    }
    let start = i;
    if (c === 0x57 && header.charCodeAt(i + 1) === 0x2f) start = i + 2;
    if (header.charCodeAt(start) === 0x22) {
      const close = header.indexOf('"', start + 1);
      if (close === -1) return false;
      if (header.slice(start, close + 1) === wanted) return true;
      i = close + 1;
      continue;
    }
    // Not an entity-tag (an unquoted value some clients send): the member up to the next comma.
    const comma = header.indexOf(',', i);
    const member = header.slice(i, comma === -1 ? length : comma).trim();
    if (opaque(member) === wanted) return true;
    i = comma === -1 ? length : comma + 1;
  }
  return false;
}

/** An entity-tag without its weakness indicator: `W/"x"` → `"x"`. */
function opaque(tag: string): string {
  return tag.startsWith('W/') ? tag.slice(2) : tag;
}

const MONTHS = 'JanFebMarAprMayJunJulAugSepOctNovDec';
/** `Sun, 06 Nov 1994 08:49:37 GMT` */
const IMF_FIXDATE = /^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), (\d{2}) ([A-Z][a-z]{2}) (\d{4}) (\d{2}):(\d{2}):(\d{2}) GMT$/;
/** `Sunday, 06-Nov-94 08:49:37 GMT` (obsolete, still to be accepted) */
const RFC850_DATE = /^(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday), (\d{2})-([A-Z][a-z]{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2}) GMT$/;
/** `Sun Nov  6 08:49:37 1994` (obsolete, still to be accepted) */
const ASCTIME_DATE = /^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) ([A-Z][a-z]{2}) ( \d|\d{2}) (\d{2}):(\d{2}):(\d{2}) (\d{4})$/;

/**
 * The time of an HTTP-date in ms since the epoch, in any of the three forms a recipient must accept
 * (RFC 9110 §5.6.7); `undefined` for anything else, which a recipient of `If-Modified-Since` ignores.
 * A two-digit RFC 850 year more than 50 years ahead is taken as the past century's.
 * @example
 * parseHttpDate('Sun, 06 Nov 1994 08:49:37 GMT'); // 784111777000
 */
export function parseHttpDate(value: string): number | undefined {
  let m = IMF_FIXDATE.exec(value);
  if (m !== null) return utc(+m[3]!, m[2]!, +m[1]!, +m[4]!, +m[5]!, +m[6]!);
  m = ASCTIME_DATE.exec(value);
  if (m !== null) return utc(+m[6]!, m[1]!, +m[2]!, +m[3]!, +m[4]!, +m[5]!);
  m = RFC850_DATE.exec(value);
  if (m === null) return undefined;
  const thisYear = new Date().getUTCFullYear();
  let year = Math.floor(thisYear / 100) * 100 + +m[3]!;
  if (year > thisYear + 50) year -= 100;
  return utc(year, m[2]!, +m[1]!, +m[4]!, +m[5]!, +m[6]!);
}

function utc(year: number, monthName: string, day: number, hour: number, minute: number, second: number): number | undefined {
  const month = MONTHS.indexOf(monthName);
  if (month === -1 || month % 3 !== 0 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) return undefined;
  const time = Date.UTC(year, month / 3, day, hour, minute, Math.min(second, 59));
  // A day past the month's end (`31 Feb`) rolls over in Date.UTC: refuse it instead.
  return new Date(time).getUTCDate() === day ? time : undefined;
}
