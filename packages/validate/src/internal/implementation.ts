// What ../lazy.ts calls: the operation definitions (their checks, the type shapes for GraphQL,
// gRPC and OpenAPI, the dates), loaded on the first call of `defineOperation`.
export { defineOperation } from '../define-operation.js';
