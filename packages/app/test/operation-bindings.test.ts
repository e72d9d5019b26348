import { z } from 'zod';
import type { OperationProcedure, OperationRest, OperationRootField } from '@fw/core';
import type { OperationGraphQL } from '@fw/graphql';
import type { OperationGrpc } from '@fw/grpc';
import { defineOperation, type OperationGraphQLDefinition, type OperationGrpcDefinition, type OperationRestDefinition } from '@fw/validate';

// Each protocol binding of an operation is declared once, in core (the one package both
// `defineOperation` and the protocol packages import): the names the packages export are that
// declaration, so a binding typed for one is the binding the other takes.

/** True when A and B are the same type (not merely assignable either way). */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const same = <A, B>(equal: Equal<A, B>): boolean => equal;

describe("an operation's protocol bindings", () => {
  it('are the same type whichever package names them', () => {
    expect(same<OperationGrpc, OperationProcedure>(true)).toBe(true);
    expect(same<OperationGrpcDefinition, OperationProcedure>(true)).toBe(true);
    expect(same<OperationGraphQL, OperationRootField>(true)).toBe(true);
    expect(same<OperationGraphQLDefinition, OperationRootField>(true)).toBe(true);
    expect(same<Omit<OperationRestDefinition, 'method'>, Omit<OperationRest, 'method'>>(true)).toBe(true);
  });

  it("take the protocol packages' types in defineOperation", () => {
    const grpc: OperationGrpc = { service: 'shop.Items', method: 'Find' };
    const graphql: OperationGraphQL & { type: 'query' } = { type: 'query', args: 'input' };
    const op = defineOperation({ name: 'find', input: z.object({ id: z.string() }), output: z.object({ id: z.string() }), handler: (input) => input, graphql, grpc });
    expect([op.grpc, op.graphql]).toEqual([grpc, graphql]);
  });
});
