import { buildSchema, defaultFieldResolver, getOperationAST, parse, type ExecutionArgs } from 'graphql';
import * as jit from 'graphql-jit';
import { compiledFallback, jitRunsLikeExecute } from './compiled-fallback.js';
import { COMPILE_ON_RUN, createExecutor, type OperationPlan } from './executor.js';

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

describe('the compiled budget', () => {
  const wide = buildSchema(`type Query { ${Array.from({ length: 10 }, (_, i) => `f${i}: Int`).join(' ')} }`);
  const root = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`f${i}`, i]));
  const planOf = (fields: number, tag: string): { plan: OperationPlan; args: ExecutionArgs } => {
    const document = parse(`query ${tag} { ${Array.from({ length: fields }, (_, i) => `f${i}`).join(' ')} }`);
    return { plan: { operation: getOperationAST(document)!, runs: 0, compiled: undefined }, args: { schema: wide, document, rootValue: root } };
  };
  const runTwice = (executor: ReturnType<typeof createExecutor>, { plan, args }: { plan: OperationPlan; args: ExecutionArgs }): void => {
    void executor.run(plan, args);
    void executor.run(plan, args);
  };

  it('drops the least recently used compiled operation past its weight, which then runs on graphql-js', () => {
    const executor = createExecutor(jit, { maxEntries: 10, maxWeight: 10, maxTotalWeight: 12 });
    const a = planOf(5, 'A');
    const b = planOf(5, 'B');
    const c = planOf(5, 'C');
    runTwice(executor, a);
    runTwice(executor, b);
    expect(executor.compiledWeight).toBe(10);
    void executor.run(a.plan, a.args); // A is now the most recently used
    runTwice(executor, c);
    expect(executor.compiledCount).toBe(2);
    expect(typeof a.plan.compiled).toBe('function');
    expect(b.plan.compiled).toBeUndefined();
    expect(executor.run(b.plan, b.args)).toEqual({ data: { f0: 0, f1: 1, f2: 2, f3: 3, f4: 4 } });
  });

  it('never compiles an operation heavier than maxWeight, and stops recompiling one dropped three times', () => {
    const executor = createExecutor(jit, { maxEntries: 1, maxWeight: 6, maxTotalWeight: 6 });
    const heavy = planOf(7, 'Heavy');
    runTwice(executor, heavy);
    expect(heavy.plan.compiled).toBeNull();
    expect(heavy.plan.fallback).toMatch(/7 selections/);
    const a = planOf(2, 'A');
    const b = planOf(2, 'B');
    for (let i = 0; i < 3; i++) {
      runTwice(executor, a);
      runTwice(executor, b);
    }
    runTwice(executor, a);
    expect(a.plan.compiled).toBeNull();
    expect(a.plan.fallback).toMatch(/compiled 3 times/);
  });

  it('forgets the compiled operations of a document that left the cache', () => {
    const executor = createExecutor(jit);
    const a = planOf(3, 'A');
    runTwice(executor, a);
    expect(executor.compiledCount).toBe(1);
    executor.forget(a.plan);
    expect(executor.compiledCount).toBe(0);
    expect(a.plan.compiled).toBeUndefined();
  });

  it('loads graphql-jit with its first compilation, once, and runs graphql-js when that fails', () => {
    let loads = 0;
    const executor = createExecutor(() => {
      loads += 1;
      throw new Error('not installed');
    });
    const a = planOf(1, 'A');
    const b = planOf(2, 'B');
    runTwice(executor, a);
    runTwice(executor, b);
    expect(loads).toBe(1);
    expect(a.plan.compiled).toBeNull();
    expect(a.plan.fallback).toBe('graphql-jit could not be loaded');
    expect(executor.run(b.plan, b.args)).toEqual({ data: { f0: 0, f1: 1 } });
  });
});

describe('compiledFallback', () => {
  const rich = buildSchema(`
    scalar Money
    input Cond { eq: String, not: Cond }
    input Where { cond: Cond }
    input Pick @oneOf { a: Int, b: Int }
    input Plain { n: Int = 1, tags: [String!] }
    type Query { plain(p: Plain, n: Int): Int, cond(w: Where): Int, pick(p: Pick): Int, money(m: Money): Int }
  `);
  it.each([
    ['query ($p: Plain, $n: Int) { plain(p: $p, n: $n) }', undefined],
    ['{ plain(p: { n: 2, tags: ["a"] }) }', undefined],
    ['query ($w: Where) { cond(w: $w) }', 'the variable "$w" holds the self-referencing input Cond'],
    ['{ cond(w: { cond: { eq: "a" } }) }', 'the argument "w" holds the self-referencing input Cond'],
    ['{ pick(p: { a: 1 }) }', 'the argument "p" holds the @oneOf input Pick'],
    ['{ money(m: 1) }', 'the argument "m" holds the custom scalar Money'],
    ['query ($m: Money) { money(m: $m) }', undefined],
    ['query ($m: Money = 1) { money(m: $m) }', 'the variable "$m" holds the custom scalar Money'],
    ['query ($n: Int) { plain(p: { n: $n }) }', 'the argument "p" has a variable inside a list or object'],
    ['query ($t: String!) { plain(p: { tags: [$t] }) }', 'the argument "p" has a variable inside a list or object'],
    ['{ plain @include(if: true) }', 'it uses @include'],
    ['{ ...F } fragment F on Query { plain @skip(if: false) }', 'it uses @skip'],
  ])('%s', (query, reason) => {
    const document = parse(query);
    expect(compiledFallback(rich, document, getOperationAST(document)!)).toBe(reason);
  });
});

describe('the benchmark scenarios (bench/http/scenarios.mjs)', () => {
  const bench = buildSchema(`
    type Query { hello: String!, user(id: ID!): User }
    type Mutation { createUser(input: CreateUserInput!): User! }
    input CreateUserInput { name: String!, email: String!, age: Int, tags: [String!] }
    type User { id: ID!, name: String!, email: String!, friends(first: Int = 2): [User!]! }
  `);
  it.each([
    ['{ hello }', undefined],
    ['{ user(id: "1") { id name } }', 'the non-null field User.id is selected beside other fields'],
    ['query User($id: ID!, $first: Int!) { user(id: $id) { id name email friends(first: $first) { id name friends(first: 1) { id } } } }', 'it selects the list field User.friends'],
    ['mutation CreateUser($input: CreateUserInput!) { createUser(input: $input) { id name email } }', 'the non-null field User.id is selected beside other fields'],
  ])('%s: %s', (query, reason) => {
    const document = parse(query);
    expect(compiledFallback(bench, document, getOperationAST(document)!)).toBe(reason);
  });
});

describe('compiledFallback: failures beside each other', () => {
  const shapes = buildSchema(`
    type Query { nn: String!, n: String, o: O, oNN: O!, list: [String], listNN: [O!]! }
    type O { nn: String!, n: String, m: String, o: O, oNN: O! }
  `);
  it.each([
    ['{ nn }', undefined],
    ['{ nn __typename }', undefined],
    ['{ n o { n m o { nn } } }', undefined],
    ['{ a: nn a: nn }', undefined],
    ['{ oNN { oNN { nn } } }', undefined],
    ['{ o { oNN { n m } } n }', undefined],
    ['{ o { oNN { n } m } }', 'the non-null field O.oNN is selected beside other fields'],
    ['{ nn n }', 'the non-null field Query.nn is selected beside other fields'],
    ['{ a: nn b: nn }', 'the non-null field Query.nn is selected beside other fields'],
    ['{ oNN { n } o { n } }', 'the non-null field Query.oNN is selected beside other fields'],
    ['{ o { n ...F } } fragment F on O { nn }', 'the non-null field O.nn is selected beside other fields'],
    ['{ o { ... on O { nn } n } }', 'the non-null field O.nn is selected beside other fields'],
    ['{ o { o { nn } o { m } } }', 'the non-null field O.nn is selected beside other fields'],
    ['{ list }', 'it selects the list field Query.list'],
    ['{ listNN { n } }', 'it selects the list field Query.listNN'],
  ])('%s: %s', (query, reason) => {
    const document = parse(query);
    expect(compiledFallback(shapes, document, getOperationAST(document)!)).toBe(reason);
  });
});
