// RFC 3339's date-time (section 5.6), the ISO 8601 profile JSON APIs use: a full date, `T`, a time
// (seconds and fraction optional, as `Date.prototype.toISOString` and most clients write it) and
// `Z` or an offset. Upper-case `T` and `Z` only; no leap second (a `Date` cannot hold one).
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:Z|([+-])(\d{2}):(\d{2}))$/;

const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function daysIn(year: number, month: number): number {
  if (month !== 2) return DAYS[month - 1]!;
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
}

/**
 * The instant an RFC 3339 date-time string names, or undefined when it is not one or names no real
 * time: `2024-02-30`, `2023-02-29`, `24:00`, minute 60 and offsets past 23:59 are refused, never
 * rolled over as `new Date()` does. Every protocol reads date-times through this one function.
 */
export function parseDateTime(text: string): Date | undefined {
  const match = DATE_TIME.exec(text);
  if (match === null) return undefined;
  const [, y, mo, d, h, mi, s = '0', fraction = '', sign, oh = '0', om = '0'] = match;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59 || Number(oh) > 23 || Number(om) > 59) return undefined;
  const offset = (sign === '-' ? -1 : 1) * (Number(oh) * 60 + Number(om));
  const date = new Date(0);
  // setUTCFullYear: Date.UTC would read the years 0–99 as 1900–1999.
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute - offset, second, Number(fraction.slice(0, 3).padEnd(3, '0')));
  return Number.isNaN(date.getTime()) ? undefined : date;
}
