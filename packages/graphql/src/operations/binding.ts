import type { OperationRootField } from '@fw/core';

/** Where an operation is served over GraphQL (`graphql` of `defineOperation`): core's root-field binding, `{ type, args? }`. */
export type OperationGraphQL = OperationRootField;

// Declared beside the package's exported types, so that the published declarations carry them.
declare module '@fw/core' {
  interface ProtocolNames {
    /** The GraphQL endpoint: a path of the HTTP server claimed by `@fw/graphql`. */
    graphql: true;
  }
  // eslint-disable-next-line @typescript-eslint/no-unused-vars -- merged declarations repeat core's type parameters
  interface Operation<TInput = unknown, TOutput = unknown> {
    /** Where the operation is served over GraphQL; absent when it is not. */
    readonly graphql?: OperationGraphQL | undefined;
  }
}
