import type { OperationRootField } from '@fw/core';

/** Where an operation is served over GraphQL (`graphql` of `defineOperation`): core's root-field binding, `{ type, args? }`. */
export type OperationGraphQL = OperationRootField;

declare module '@fw/core' {
  // eslint-disable-next-line @typescript-eslint/no-unused-vars -- merged declarations repeat core's type parameters
  interface Operation<TInput = unknown, TOutput = unknown> {
    /** Where the operation is served over GraphQL; absent when it is not. */
    readonly graphql?: OperationGraphQL | undefined;
  }
}
