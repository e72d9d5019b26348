import type { Operation } from '@fw/core';
import type { GraphQLPlugin } from '@fw/graphql';
import type { GrpcAddress, GrpcPlugin } from '@fw/grpc';

/** The schema object `getGraphQLSchema()` returns (graphql's GraphQLSchema). */
export type GraphQLSchemaOf<P> = P extends { getSchema(): infer S } ? S : never;

/**
 * The protocols configured on an application (`app.getProtocolManager()`): the GraphQL endpoint
 * and the gRPC server, each present only when configured.
 */
export class ProtocolManager {
  constructor(
    /** The GraphQL plugin, when `protocols.graphql` is configured. */
    readonly graphql: GraphQLPlugin | undefined,
    /** The gRPC plugin, when `protocols.grpc` is configured. */
    readonly grpc: GrpcPlugin | undefined,
    /** The application the protocols are registered on (what `registerOperation` serves operations with). */
    private readonly app?: { operation(op: Operation): unknown },
    /** Whether `protocols.connect` serves Connect and gRPC-Web on the HTTP port. */
    readonly connect = false,
  ) {}

  /**
   * Serves an operation (made by `defineOperation`) on every protocol it names, as
   * `app.operation(op)` does; returns the manager, so registrations chain. Throws what
   * `app.operation` throws (a duplicate name, a GraphQL or gRPC protocol refusing it).
   * @example
   * app.getProtocolManager()?.registerOperation(getBook).registerOperation(addBook);
   */
  registerOperation(op: Operation): this {
    if (this.app === undefined) throw new Error('registerOperation: this protocol manager was made without its application; call app.operation(op)');
    this.app.operation(op);
    return this;
  }

  /** The configured GraphQL schema, or undefined when GraphQL is not configured. */
  getGraphQLSchema(): GraphQLSchemaOf<GraphQLPlugin> | undefined {
    return this.graphql?.getSchema();
  }

  /** The path the GraphQL endpoint answers on, or undefined. */
  getGraphQLPath(): string | undefined {
    return this.graphql?.path;
  }

  /** Where the gRPC server listens once `listen()` has resolved, or undefined. */
  getGrpcAddress(): GrpcAddress | undefined {
    return this.grpc?.address;
  }

  /** The protocols in use, e.g. `['http', 'graphql', 'grpc']`. */
  getProtocols(): string[] {
    return ['http', ...(this.graphql ? ['graphql'] : []), ...(this.grpc ? ['grpc'] : []), ...(this.connect ? ['connect'] : [])];
  }
}
