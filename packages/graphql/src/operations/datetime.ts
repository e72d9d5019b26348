import { GraphQLError, GraphQLScalarType, Kind, print, type ValueNode } from 'graphql';

// RFC 3339's date-time (the ISO 8601 profile JSON APIs use): a date, a time (seconds optional)
// and an offset; what `Date.prototype.toISOString` writes.
const ISO_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-](\d{2}):(\d{2}))$/;

/** Whether `value` is an ISO 8601 date-time with an offset (`2024-05-01T10:00:00Z`) naming a real instant. */
export function isIsoDateTime(value: string): boolean {
  const match = ISO_DATE_TIME.exec(value);
  if (match === null) return false;
  const [, year, month, day, hour, minute, second = '0', offsetHour = '0', offsetMinute = '0'] = match;
  const y = Number(year);
  const m = Number(month);
  const d = Number(day);
  // Date.UTC rolls 31 April over to 1 May: a date that does not come back the same does not exist.
  const date = new Date(Date.UTC(y, m - 1, d));
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== m - 1 || date.getUTCDate() !== d) return false;
  return Number(hour) <= 23 && Number(minute) <= 59 && Number(second) <= 59 && Number(offsetHour) <= 23 && Number(offsetMinute) <= 59;
}

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 64 ? `${value.slice(0, 64)}…` : value);
  if (value instanceof Date) return 'an invalid Date';
  return value === null ? 'null' : typeof value;
}

/**
 * `DateTime`: an instant as an ISO 8601 string with an offset (`2024-05-01T10:00:00.000Z`).
 * Results may be a `Date` (sent as `toISOString()`) or such a string (sent as it is); arguments
 * must be such strings and reach the operation as they were sent, as a REST body's would.
 */
export const GraphQLDateTime: GraphQLScalarType<string, string> = new GraphQLScalarType<string, string>({
  name: 'DateTime',
  description: 'An instant, as an ISO 8601 date-time string with an offset, e.g. `2024-05-01T10:00:00.000Z`.',
  specifiedByURL: 'https://datatracker.ietf.org/doc/html/rfc3339#section-5.6',
  serialize(value: unknown): string {
    if (value instanceof Date && !Number.isNaN(value.getTime())) return value.toISOString();
    if (typeof value === 'string' && isIsoDateTime(value)) return value;
    throw new GraphQLError(`DateTime cannot represent ${describe(value)}: expected a Date or an ISO 8601 date-time string.`);
  },
  parseValue(value: unknown): string {
    if (typeof value === 'string' && isIsoDateTime(value)) return value;
    throw new GraphQLError(`DateTime cannot represent ${describe(value)}: expected an ISO 8601 date-time string such as "2024-05-01T10:00:00Z".`);
  },
  parseLiteral(ast: ValueNode): string {
    if (ast.kind === Kind.STRING && isIsoDateTime(ast.value)) return ast.value;
    const shown = print(ast);
    throw new GraphQLError(`DateTime cannot represent ${shown.length > 64 ? `${shown.slice(0, 64)}…` : shown}: expected an ISO 8601 date-time string such as "2024-05-01T10:00:00Z".`, {
      nodes: ast,
    });
  },
});
