import type { ObjectShape, Operation } from '@fw/core';
import { OPERATION_BRAND } from '@fw/core/plugin';
import { grpcMethodName } from '../src/index.js';

const EMPTY: ObjectShape = { kind: 'object', name: undefined, fields: [], source: {} };

/** An operation as `defineOperation` makes one, reduced to what naming reads. */
function operation(name: string, grpc?: Operation['grpc']): Operation {
  return {
    [OPERATION_BRAND]: true,
    name,
    input: EMPTY,
    output: EMPTY,
    grpc,
    middleware: [],
    schemas: { input: undefined, output: undefined },
    execute: () => Promise.resolve(undefined),
  };
}

describe('grpcMethodName()', () => {
  it('is grpc.method when given, else the name with its first letter upper-cased', () => {
    expect(grpcMethodName(operation('getBook'))).toBe('GetBook');
    expect(grpcMethodName(operation('getBook', { service: 'shop.Catalog', method: 'Fetch' }))).toBe('Fetch');
  });
});
