import type { Operation, OperationProcedure } from '@fw/core';
import { upperFirst } from '@fw/core/plugin';

/** Where an operation is served over gRPC (`grpc` of `defineOperation`): core's procedure binding, `{ service, method? }`. */
export type OperationGrpc = OperationProcedure;

declare module '@fw/core' {
  // eslint-disable-next-line @typescript-eslint/no-unused-vars -- merged declarations repeat core's type parameters
  interface Operation<TInput = unknown, TOutput = unknown> {
    /** Where the operation is served over gRPC; absent when it is not. */
    readonly grpc?: OperationGrpc | undefined;
  }
}

/** The gRPC method name of an operation: `grpc.method`, else its name with the first letter upper-cased. */
export function grpcMethodName(op: Operation): string {
  return op.grpc?.method ?? upperFirst(op.name);
}
