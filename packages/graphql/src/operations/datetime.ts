import { parseDateTime } from '@fw/core/plugin';
import { GraphQLError, GraphQLScalarType, Kind, print, type ValueNode } from 'graphql';

/** Whether `value` is an RFC 3339 date-time (`2024-05-01T10:00:00Z`) naming a real instant: core's one parser decides. */
export function isIsoDateTime(value: string): boolean {
  return parseDateTime(value) !== undefined;
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
