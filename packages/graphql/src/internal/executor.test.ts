import { buildSchema, defaultFieldResolver, getOperationAST, parse, type ExecutionArgs } from 'graphql';
import * as jit from 'graphql-jit';
import { COMPILE_ON_RUN, createExecutor, jitRunsLikeExecute, type OperationPlan } from './executor.js';

const schema = buildSchema(`
  type Query { hello: String! pet: Pet }
  union Pet = Cat
  type Cat { name: String }
`);
const rootValue = { hello: () => 'world', pet: { __typename: 'Cat', name: 'Tom' } };

function planFor(query: string): { plan: OperationPlan; args: ExecutionArgs } {
  const document = parse(query);
  return { plan: { operation: getOperationAST(document)!, runs: 0, compiled: undefined }, args: { schema, document, rootValue } };
}

describe('createExecutor', () => {
  it(`compiles an operation on run ${COMPILE_ON_RUN} and answers as graphql-js`, () => {
    const executor = createExecutor(jit);
    const { plan, args } = planFor('{ hello }');
    for (let i = 1; i <= 3; i++) {
      expect(executor.run(plan, args)).toEqual({ data: { hello: 'world' } });
      expect(typeof plan.compiled).toBe(i >= COMPILE_ON_RUN ? 'function' : 'undefined');
    }
  });

  it('runs graphql-js alone without graphql-jit', () => {
    const executor = createExecutor();
    const { plan, args } = planFor('{ hello }');
    for (let i = 0; i < 3; i++) expect(executor.run(plan, args)).toEqual({ data: { hello: 'world' } });
    expect(plan.compiled).toBeUndefined();
  });

  it('runs graphql-js for a per-request field resolver (served operations)', () => {
    const executor = createExecutor(jit);
    const { plan, args } = planFor('{ hello }');
    const fieldResolver: typeof defaultFieldResolver = (source, a, c, info) => (info.fieldName === 'hello' ? 'from ctx' : defaultFieldResolver(source, a, c, info));
    for (let i = 0; i < 3; i++) expect(executor.run(plan, { ...args, fieldResolver })).toEqual({ data: { hello: 'from ctx' } });
    expect(plan.compiled).toBeUndefined();
  });

  it('marks a document graphql-jit does not run like graphql-js as not compilable', () => {
    const executor = createExecutor(jit);
    const { plan, args } = planFor('{ pet { ... on Cat { name } } }');
    for (let i = 0; i < 3; i++) expect(executor.run(plan, args)).toEqual({ data: { pet: { name: 'Tom' } } });
    expect(plan.compiled).toBeNull();
  });
});

describe('jitRunsLikeExecute', () => {
  it.each([
    ['{ hello }', true],
    ['{ hello __typename }', true],
    ['{ pet { __typename } }', false],
    ['{ __schema { queryType { name } } }', false],
    ['{ __type(name: "Cat") { name } }', false],
  ])('%s: %s', (query, expected) => {
    expect(jitRunsLikeExecute(schema, parse(query))).toBe(expected);
  });
});
