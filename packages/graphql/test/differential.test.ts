import { Application } from '@fw/core';
import { getOperationAST, graphql, parse, validate } from 'graphql';
import { graphqlPlugin } from '../src/index.js';
import { compiledFallback } from '../src/internal/executor.js';
import { buildDifferentialSchema, generateDocument, maskedReference, prng, resetState, type DiffContext, type GeneratedRequest } from './fixtures/differential.js';
import { gql } from './helpers.js';

// With `executor: 'jit'`, fw runs a document with graphql-js on its first request and compiled by
// graphql-jit from its second. Every answer, on every run, must be graphql-js's own (`graphql()` on the same schema, data
// and context, in this process) with fw's documented masking applied to it.

const schema = buildDifferentialSchema();
const contextValue: DiffContext = { user: 'u1', allowGhosts: false };
const RUNS = 3;

let app: Application;
let endpoint: string;

// graphql-js abandons the promises of a list's other items when one item fails a non-null field
// synchronously; their later rejections are unhandled (core logs them in an app; here they are
// expected).
const ignoreRejection = (): void => undefined;

beforeAll(async () => {
  process.on('unhandledRejection', ignoreRejection);
  app = new Application({ onLog: () => undefined });
  app.register(graphqlPlugin({ schema, context: () => contextValue, onLog: () => undefined, executor: 'jit' }));
  const info = await app.listen(0, '127.0.0.1');
  endpoint = `http://127.0.0.1:${info.port}/graphql`;
});

afterAll(async () => {
  await app.close();
  await new Promise((resolve) => setTimeout(resolve, 50));
  process.removeListener('unhandledRejection', ignoreRejection);
});

/** graphql-js's answer, masked as fw documents it, as JSON text. */
async function reference(request: GeneratedRequest): Promise<string> {
  resetState();
  const result = await graphql({ schema, source: request.query, contextValue, variableValues: request.variables });
  return JSON.stringify(maskedReference(result));
}

/** fw's answer as JSON text (re-serialised, so key order is kept and whitespace does not count). */
async function viaInject(request: GeneratedRequest): Promise<{ status: number; text: string }> {
  resetState();
  const res = await app.inject({ method: 'POST', url: '/graphql', headers: { 'content-type': 'application/json' }, body: JSON.stringify(request) });
  return { status: res.statusCode, text: JSON.stringify(JSON.parse(res.body)) };
}

async function viaSocket(request: GeneratedRequest): Promise<{ status: number; text: string }> {
  resetState();
  const res = await gql(endpoint, request);
  return { status: res.status, text: JSON.stringify(JSON.parse(res.text)) };
}

interface Divergence {
  query: string;
  variables: unknown;
  run: number;
  fw: string;
  graphqlJs: string;
}

/**
 * Whether fw's answer is graphql-js's. Byte for byte, but for documents with resolvers that return
 * promises (asyncName, asyncFail, rejectUndefined), where graphql-js's list of errors depends on when its promises
 * settle (which siblings of a failed non-null field it still reports, and in what order): there the
 * data must be the same, and errors present on both sides or on neither (see the README).
 */
function sameAnswer(request: GeneratedRequest, fw: string, expected: string): boolean {
  if (fw === expected) return true;
  if (!/async(Name|Fail)|rejectUndefined/.test(request.query)) return false;
  const a = JSON.parse(fw) as { data?: unknown; errors?: unknown[] };
  const b = JSON.parse(expected) as { data?: unknown; errors?: unknown[] };
  return JSON.stringify(a.data) === JSON.stringify(b.data) && (a.errors === undefined) === (b.errors === undefined);
}

/** Sends `request` RUNS times; returns every run whose answer is not graphql-js's. */
async function divergences(request: GeneratedRequest, send = viaInject): Promise<Divergence[]> {
  const found: Divergence[] = [];
  for (let run = 1; run <= RUNS; run++) {
    const fw = await send(request);
    const expected = await reference(request);
    if (fw.status === 400 && fw.text.includes('"limit"')) return found;
    // A request error (no data) is a 400 under application/graphql-response+json (the socket's Accept).
    const status = expected.includes('"data":') ? 200 : send === viaSocket ? 400 : 200;
    // Every internal message in the schema says "secret": none may reach a client.
    if (fw.text.includes('secret')) found.push({ query: request.query, variables: request.variables, run, fw: `leaked: ${fw.text}`, graphqlJs: expected });
    if (!sameAnswer(request, fw.text, expected) || fw.status !== status) found.push({ query: request.query, variables: request.variables, run, fw: `${fw.status} ${fw.text}`, graphqlJs: expected });
  }
  return found;
}

/** One corner case of each divergence graphql-jit had, sent over a real socket. */
const corners: Record<string, GeneratedRequest[]> = {
  'a variable of a self-referencing input type': [
    { query: 'query ($w: Cond) { matches(where: $w) }', variables: { w: { eq: 'a', not: { eq: 'b', and: [{ eq: 'c' }] } } } },
    { query: '{ matches(where: { eq: "a", not: { not: { eq: "b" } } }) }', variables: {} },
  ],
  '@skip/@include on a fragment spread used elsewhere': [
    { query: 'query ($a: Boolean!) { x: person(id: "1") { ...P @include(if: $a) } y: person(id: "3") { ...P } } fragment P on Person { name }', variables: { a: false } },
    { query: '{ x: person(id: "1") { ... on Person @skip(if: true) { name } age } y: person(id: "3") { ... on Person { name } } }', variables: {} },
  ],
  'a variable left out inside an input-object literal': [
    { query: 'query ($lim: Int) { echo(filter: { limit: $lim }) }', variables: {} },
    { query: 'query ($lim: Int, $n: [String!]) { echo(filter: { limit: $lim, names: $n }, list: [1, $lim]) }', variables: { n: ['a'] } },
  ],
  'custom-scalar arguments and variable defaults': [
    { query: '{ price(money: 250, at: "2020-01-02T03:04:05Z", priced: { amount: 7 }) }', variables: {} },
    { query: 'query ($d: Instant = "2020-01-02T03:04:05Z", $m: Money) { price(at: $d, money: $m) }', variables: { m: 3 } },
    { query: 'query ($m: Money) { price(money: $m) }', variables: { m: 'nope' } },
    { query: '{ price(money: "nope") }', variables: {} },
    { query: 'query ($m: Money!, $p: Priced) { price(money: $m, priced: $p) }', variables: { m: 250, p: { amount: 7, at: '2020-01-02T03:04:05Z' } } },
    { query: 'query ($p: Priced) { price(priced: $p) }', variables: { p: { amount: 'x' } } },
    { query: 'query ($p: Priced) { price(priced: $p) }', variables: { p: { at: 'bad' } } },
    { query: 'query ($p: Priced) { price(priced: $p) }', variables: { p: {} } },
  ],
  'null for a nullable Boolean variable with a default in @skip': [{ query: 'query ($s: Boolean = true) { hello @skip(if: $s) version }', variables: { s: null } }],
  'isTypeOf reading the context, and async': [
    { query: '{ ghost { id } }', variables: {} },
    { query: '{ robot { id model } fakeRobot { id } }', variables: {} },
    { query: '{ pet { id name } things { __typename ... on Robot { model } ... on Pet { name } } }', variables: {} },
  ],
  '@oneOf inputs': [
    { query: 'query ($p: Pick) { pick(p: $p) }', variables: { p: { name: null } } },
    { query: 'query ($p: Pick) { pick(p: $p) }', variables: { p: { id: '1', name: 'x' } } },
    { query: 'query ($p: Pick) { pick(p: $p) }', variables: { p: { id: '1' } } },
  ],
  'thrown values that are not errors': [
    { query: '{ throwObject version }', variables: {} },
    { query: '{ throwNull version }', variables: {} },
    { query: '{ rejectUndefined version }', variables: {} },
    { query: '{ version throwGetter }', variables: {} },
  ],
  'response key order, locations and messages': [
    { query: '{ version @skip(if: true) hello version }', variables: {} },
    { query: '{ person(id: "1") { age @skip(if: true) name age } }', variables: {} },
    { query: '{ deep @include(if: false) { nThrow } deep { n child { child { child { nThrow } } } } }', variables: {} },
    { query: '{ notIterable hello }', variables: {} },
    { query: '{ ...on Query { version } hello ...F } fragment F on Query { version hello color }', variables: {} },
  ],
  'null propagation': [
    { query: '{ deep { n child { n child { n child { nThrow n s } } } } }', variables: {} },
    { query: '{ people { id boss { id } name } }', variables: {} },
    { query: '{ deepNN { list nThrow s } hello }', variables: {} },
    { query: '{ a: people { nThrow throwN } b: version }', variables: {} },
    { query: '{ deepNN { child { child { nThrow nullableThrow } } kids { list maybe } } version }', variables: {} },
    { query: '{ hello deepNN { child { child { child { list } } } } }', variables: {} },
    { query: '{ maybePeople { boss { id } } version }', variables: {} },
    { query: '{ person(id: "2") { throwN asyncName nThrow } version }', variables: {} },
    // graphql-js never executes b: the failure at a[1].nThrow nulls the whole response first.
    { query: '{ a: people { throwN nThrow } b: deepNN { child { nullableThrow } } }', variables: {} },
    { query: '{ x: deepNN { child { nullableThrow child { nThrow } } } y: deep { nullableThrow } }', variables: {} },
  ],
  'serial mutations': [
    { query: 'mutation { a: inc b: inc(by: 2) c: append(s: "x") d: append(s: "y") }', variables: {} },
    { query: 'mutation { a: inc failNullable b: inc fail c: inc }', variables: {} },
  ],
  'masked scalar errors': [
    { query: '{ money when person(id: "2") { balance } }', variables: {} },
    { query: 'query ($m: Money!) { price(money: $m) }', variables: { m: 1.5 } },
  ],
};

describe('fw answers as graphql-js on every run (differential)', () => {
  it.each(Object.keys(corners))('corner cases: %s (over a socket)', async (name) => {
    const found: Divergence[] = [];
    for (const request of corners[name]!) found.push(...(await divergences(request, viaSocket)));
    expect(found).toEqual([]);
  });

  it('seeded random queries and mutations: no divergence on any run', async () => {
    const random = prng(Number(process.env.FW_DIFF_SEED ?? 0x5eed));
    const found: Divergence[] = [];
    let compiled = 0;
    const DOCUMENTS = 600;
    for (let i = 0; i < DOCUMENTS; i++) {
      const request = generateDocument(schema, random, i % 6 === 5, i % 2 === 0);
      found.push(...(await divergences(request)));
      const document = parse(request.query);
      if (validate(schema, document).length === 0 && compiledFallback(schema, document, getOperationAST(document)!) === undefined) compiled += 1;
    }
    // The compiled path is exercised by a good share of the documents, the rest by the fallback.
    expect(compiled).toBeGreaterThan(DOCUMENTS / 3);
    expect(found.slice(0, 3)).toEqual([]);
    expect(found).toHaveLength(0);
  }, 60_000);
});

describe('documents graphql-js keeps running', () => {
  /** The engine of the third run of `query`. */
  async function engineOf(query: string, variables: Record<string, unknown> = {}): Promise<string> {
    let engine = '';
    for (let run = 1; run <= RUNS; run++) {
      const res = await app.inject({ method: 'POST', url: '/graphql', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }) });
      engine = (JSON.parse(res.body) as { data?: { engine?: string } }).data?.engine ?? 'no data';
    }
    return engine;
  }

  it('compiles plain documents with scalar variables, input objects and fragments', async () => {
    expect(await engineOf('query ($id: ID!) { engine person(id: $id) { name ...F friends { id } } } fragment F on Person { age }', { id: '1' })).toBe('graphql-jit');
    expect(await engineOf('query ($f: Filter) { engine echo(filter: $f, n: 2) }', { f: { limit: 1 } })).toBe('graphql-jit');
    expect(await engineOf('{ engine echo(filter: { limit: 1, names: ["a"] }) }')).toBe('graphql-jit');
    // Variables of custom scalars get parseValue on both paths.
    expect(await engineOf('query ($m: Money, $p: Priced) { engine price(money: $m, priced: $p) }', { m: 3, p: { amount: 1 } })).toBe('graphql-jit');
  });

  it.each([
    ['a self-referencing input', 'query ($w: Cond) { engine matches(where: $w) }', { w: { eq: 'a' } }],
    ['@skip/@include', 'query ($a: Boolean!) { engine person(id: "1") { ...P @include(if: $a) } } fragment P on Person { name }', { a: true }],
    ['a variable inside an input-object literal', 'query ($lim: Int) { engine echo(filter: { limit: $lim }) }', {}],
    ['a custom-scalar argument', '{ engine price(money: 250) }', {}],
    ['a custom-scalar variable default', 'query ($d: Instant = "2020-01-02T03:04:05Z") { engine price(at: $d) }', {}],
    ['a nullable variable in a directive', 'query ($s: Boolean = true) { engine hello @skip(if: $s) }', { s: false }],
    ['a type with isTypeOf', '{ engine pet { id } }', {}],
    ['a @oneOf input', 'query ($p: Pick) { engine pick(p: $p) }', { p: { id: '1' } }],
    ['an abstract type', '{ engine node(id: "1") { id } }', {}],
    ['a custom scalar in the result', '{ engine money }', {}],
  ])('%s', async (_name, query, variables) => {
    expect(await engineOf(query, variables)).toBe('graphql-js');
  });
});
