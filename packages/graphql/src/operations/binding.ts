/** Where an operation is served over GraphQL (`graphql` of `defineOperation`). */
export interface OperationGraphQL {
  /** The root type the operation's field is on: `subscription` for a streaming operation (and only for one). */
  readonly type: 'query' | 'mutation' | 'subscription';
  /**
   * How the field takes the operation's input: `'flat'`, an argument per input field
   * (`book(id: ID!)`), or `'input'`, one argument `input` of the input type
   * (`addBook(input: AddBookInput!)`).
   * @default 'flat' for a query or a subscription, 'input' for a mutation
   */
  readonly args?: 'flat' | 'input' | undefined;
}

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
