/**
 * Span attribute keys this package sets through `ctx.setAttributes`, from the OpenTelemetry
 * semantic conventions for GraphQL. The tracing package names the server span from them.
 */

/** `query`, `mutation` or `subscription`. */
export const ATTR_GRAPHQL_OPERATION_TYPE = 'graphql.operation.type';

/** The operation's name, when it has one. */
export const ATTR_GRAPHQL_OPERATION_NAME = 'graphql.operation.name';
