// What the functions of ../lazy.ts call: the modules that use graphql (and graphql-ws, graphql-sse
// and ws for subscriptions) at their top level, loaded together on the first such call.
export { graphqlPlugin } from '../plugin.js';
export { createGraphQLHandler } from '../handler.js';
export { findSchemaChanges } from '../operations/breaking.js';
