import { execFile } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Application } from '@fw/core';
import { transformSync } from 'esbuild';
import { createDifferential, RUNS, type Differential, type Divergence, type RunReport, type Send } from './fixtures/differential-run.js';
import { resetState, type GeneratedRequest } from './fixtures/differential.js';
import { gql } from './helpers.js';

// Every answer fw gives, on every run of a document, must be graphql-js's own (its `execute` on the
// same schema, data and context, in the same process) with fw's documented masking applied to it:
// with the default executor (graphql-js, once), and with `executor: 'jit'` (three times), which
// compiles a document from its second run where graphql-jit answers it as graphql-js does. The
// corner cases run here; the generated documents (test/fixtures/differential-run.ts) run in child
// processes, from a fresh seed on every run: a failure names it, and FW_DIFF_SEED=<seed> replays
// that run (FW_DIFF_DOCUMENTS sets how many documents).

const SEED = process.env.FW_DIFF_SEED === undefined ? randomInt(2 ** 31) : Number(process.env.FW_DIFF_SEED);
const DOCUMENTS = Number(process.env.FW_DIFF_DOCUMENTS ?? 5000);

let differential: Differential;
let jitEndpoint: string;

// graphql-js (and graphql-jit) abandon the promises of a list's other items when one item fails a
// non-null field synchronously; the fixture keeps resolvers inside lists synchronous so that none
// is left unhandled (jest would fail the test that was running). Thousands of resolver errors:
// their stack traces, which jest maps through source maps whenever graphql reads one, are not part
// of any answer.
const stackTraceLimit = Error.stackTraceLimit;

beforeAll(async () => {
  Error.stackTraceLimit = 0;
  differential = createDifferential();
  const info = await differential.jit.listen(0, '127.0.0.1');
  jitEndpoint = `http://127.0.0.1:${info.port}/graphql`;
});

afterAll(async () => {
  await differential.close();
  Error.stackTraceLimit = stackTraceLimit;
});

/** fw's answer over a real socket (`Accept: application/graphql-response+json`), compiled configuration. */
const viaSocket: Send = async (request) => {
  resetState();
  const res = await gql(jitEndpoint, request);
  return { status: res.status, text: JSON.stringify(JSON.parse(res.text)) };
};
// A request error (no data) is a 400 under application/graphql-response+json.
const socketStatus = (expected: string): number => (expected.includes('"data":') ? 200 : 400);

/** One corner case of each divergence graphql-jit had (the compiled configuration's synchronous runs over a real socket). */
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
    { query: '{ a: nnOk a: nnOk }', variables: {} },
    { query: '{ deep { child { maybeNN maybeNN } } version }', variables: {} },
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
    // Compiled: each non-null field alone where it is, its null reaching a nullable parent.
    { query: '{ version deep { child { child { child { nThrow } } } } x: deep { child { maybeNN } } y: deep { nullable } }', variables: {} },
  ],
  'serial mutations': [
    { query: 'mutation { a: inc b: inc(by: 2) c: append(s: "x") d: append(s: "y") }', variables: {} },
    { query: 'mutation { a: inc failNullable b: inc fail c: inc }', variables: {} },
    { query: 'mutation { a: incNullable b: incNullable(by: -1) c: failNullable d: incNullable(by: 3) }', variables: {} },
  ],
  'masked scalar errors': [
    { query: '{ money when person(id: "2") { balance } }', variables: {} },
    { query: 'query ($m: Money!) { price(money: $m) }', variables: { m: 1.5 } },
  ],
};

// The corner cases of issue 33, found by a differential run with fresh seeds: each failed on the
// compiled path before graphql-js ran these shapes.
const issue33: Record<string, GeneratedRequest[]> = {
  'a list of nullable items whose first item is a rejected promise has three items, not four': [
    { query: 'query Op30($v0: Int = -1) { intFraction deepNN { itemsN(nullAt: $v0, failAt: 0) ok } }', variables: {} },
    { query: '{ deep { itemsN(failAt: 1) child { itemsN(nullAt: 0, failAt: 2) } } }', variables: {} },
  ],
  'every field error beside a failing non-null root field is reported': [
    { query: '{ a0: throwsGraphQLErrorNN intFraction }', variables: {} },
    { query: '{ throwsGraphQLErrorNN throwsErrorWithStatus }', variables: {} },
    { query: '{ throwsGraphQLErrorNN floatInf }', variables: {} },
  ],
  'a failing nullable field under a non-null sibling that fails later is reported': [
    { query: '{ deepNN { nnHttp nullable nThrow } }', variables: {} },
    { query: '{ version deep { child { nnHttp nullable fraction } } }', variables: {} },
  ],
};

/**
 * Sends every request of `requests` with each salt (all synchronous, then two timings with
 * promises); the synchronous runs of the compiled configuration over a real socket, with `overSocket`.
 */
async function cornerDivergences(requests: readonly GeneratedRequest[], overSocket: boolean): Promise<Divergence[]> {
  const found: Divergence[] = [];
  for (const salt of [0, 1, 2]) {
    for (const request of requests) found.push(...(await (overSocket && salt === 0 ? differential.check(request, salt, viaSocket, socketStatus) : differential.check(request, salt))));
  }
  return found;
}

/** Writes the package's sources and the differential fixtures, compiled to CommonJS, under `to` (what the child runs). */
function compileForChild(to: string): void {
  const root = join(__dirname, '..');
  const write = (file: string): void => {
    const { code } = transformSync(readFileSync(join(root, file), 'utf8'), { loader: 'ts', format: 'cjs', target: 'node20', sourcefile: file });
    const out = join(to, file.replace(/\.ts$/, '.js'));
    mkdirSync(join(out, '..'), { recursive: true });
    writeFileSync(out, code);
  };
  const walk = (dir: string): void => {
    for (const name of readdirSync(join(root, dir))) {
      const path = join(dir, name);
      if (statSync(join(root, path)).isDirectory()) walk(path);
      else if (name.endsWith('.ts') && !name.endsWith('.test.ts')) write(path);
    }
  };
  rmSync(to, { recursive: true, force: true });
  mkdirSync(to, { recursive: true });
  // The package is "type": "module"; this output is CommonJS, as the package's build is.
  writeFileSync(join(to, 'package.json'), '{ "type": "commonjs" }\n');
  walk('src');
  for (const fixture of ['differential.ts', 'differential-run.ts']) write(join('test', 'fixtures', fixture));
}

describe('fw answers as graphql-js on every run, with either executor (differential)', () => {
  it.each(Object.keys(corners))('corner cases: %s', async (name) => {
    expect(await cornerDivergences(corners[name]!, true)).toEqual([]);
  });

  it.each(Object.keys(issue33))('issue 33: %s', async (name) => {
    expect(await cornerDivergences(issue33[name]!, false)).toEqual([]);
  });

  it('keeps three items in a list with a rejected item, and reports each error beside a failing non-null field', async () => {
    differential.contextValue.salt = 0;
    const send = async (query: string): Promise<{ data: { deepNN?: { itemsN: unknown[] } } | null; errors?: Array<{ path: string[] }> }> => {
      const res = await differential.jit.inject({ method: 'POST', url: '/graphql', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query }) });
      return JSON.parse(res.body) as { data: { deepNN?: { itemsN: unknown[] } } | null; errors?: Array<{ path: string[] }> };
    };
    for (let run = 0; run < RUNS; run++) {
      expect((await send('{ deepNN { itemsN(failAt: 0) } }')).data?.deepNN?.itemsN).toEqual([null, 'item 1.1', 'item 1.2']);
      const answer = await send('{ throwsGraphQLErrorNN floatInf }');
      expect(answer.data).toBeNull();
      expect(answer.errors?.map((error) => error.path.join('.'))).toEqual(['floatInf', 'throwsGraphQLErrorNN']);
    }
  });

  it(`${DOCUMENTS} generated queries and mutations, with a fresh seed: no divergence on any run`, async () => {
    const out = join(__dirname, '..', 'test-output', 'differential');
    compileForChild(out);
    // One child per core (this package's tests run in band, so jest keeps one): each checks every
    // other document of the same sequence.
    const parts = Math.min(2, availableParallelism());
    const reports = await Promise.all(
      Array.from({ length: parts }, async (_, part) => {
        // A larger young generation: the run allocates fast and briefly (a tenth less time in the collector).
        const { stdout } = await promisify(execFile)(process.execPath, ['--max-semi-space-size=32', join(out, 'test', 'fixtures', 'differential-run.js')], {
          env: { ...process.env, FW_DIFF_SEED: String(SEED), FW_DIFF_DOCUMENTS: String(DOCUMENTS), FW_DIFF_PART: `${part}/${parts}` },
          maxBuffer: 64 * 1024 * 1024,
        });
        return JSON.parse(stdout.trim().split('\n').at(-1)!) as RunReport;
      }),
    );
    const divergences = reports.flatMap((report) => report.divergences);
    if (divergences.length > 0) {
      throw new Error(`fw answered differently from graphql-js (seed ${SEED}: replay with FW_DIFF_SEED=${SEED}):\n${JSON.stringify(divergences.slice(0, 3), null, 2)}`);
    }
    const sum = (of: (report: RunReport) => number): number => reports.reduce((total, report) => total + of(report), 0);
    expect({ seed: SEED, documents: sum((report) => report.documents) }).toEqual({ seed: SEED, documents: DOCUMENTS });
    // The compiled path is exercised: most documents generated to compile do.
    const mostCompile = sum((report) => report.compilable.compiled) > sum((report) => report.compilable.generated) / 2;
    expect({ seed: SEED, mostCompile }).toEqual({ seed: SEED, mostCompile: true });
  }, 180_000);
});

describe('the executor that runs a document', () => {
  /** The engine of the third run of `query` on `app`. */
  async function engineOf(app: Application, query: string, variables: Record<string, unknown> = {}): Promise<string> {
    let engine = '';
    for (let run = 1; run <= RUNS; run++) {
      const res = await app.inject({ method: 'POST', url: '/graphql', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }) });
      engine = (JSON.parse(res.body) as { data?: { engine?: string } }).data?.engine ?? 'no data';
    }
    return engine;
  }

  it('is graphql-js by default, on every run', async () => {
    expect(await engineOf(differential.plain, '{ engine version }')).toBe('graphql-js');
    expect(await engineOf(differential.plain, 'query ($id: ID!) { engine person(id: $id) { name ...F best { name } } } fragment F on Person { age }', { id: '1' })).toBe('graphql-js');
  });

  it("compiles, with executor: 'jit', documents without lists whose non-null fields are alone where they are", async () => {
    expect(await engineOf(differential.jit, 'query ($id: ID!) { engine person(id: $id) { name ...F best { name } } } fragment F on Person { age }', { id: '1' })).toBe('graphql-jit');
    expect(await engineOf(differential.jit, 'query ($f: Filter) { engine echo(filter: $f, n: 2) }', { f: { limit: 1 } })).toBe('graphql-jit');
    expect(await engineOf(differential.jit, '{ engine echo(filter: { limit: 1, names: ["a"] }) deep { child { nThrow } } }')).toBe('graphql-jit');
    // Variables of custom scalars get parseValue on both paths.
    expect(await engineOf(differential.jit, 'query ($m: Money, $p: Priced) { engine price(money: $m, priced: $p) }', { m: 3, p: { amount: 1 } })).toBe('graphql-jit');
  });

  it.each([
    ['a list', '{ engine people { name } }', {}],
    ['a non-null field beside another', '{ engine deep { nThrow s } }', {}],
    ['a non-null root field beside another', '{ engine hello }', {}],
    ['a self-referencing input', 'query ($w: Cond) { engine matches(where: $w) }', { w: { eq: 'a' } }],
    ['@skip/@include', 'query ($a: Boolean!) { engine person(id: "1") { ...P @include(if: $a) } } fragment P on Person { name }', { a: true }],
    ['a variable inside an input-object literal', 'query ($lim: Int) { engine echo(filter: { limit: $lim }) }', {}],
    ['a custom-scalar argument', '{ engine price(money: 250) }', {}],
    ['a custom-scalar variable default', 'query ($d: Instant = "2020-01-02T03:04:05Z") { engine price(at: $d) }', {}],
    ['a nullable variable in a directive', 'query ($s: Boolean = true) { engine version @skip(if: $s) }', { s: false }],
    ['a type with isTypeOf', '{ engine pet { id } }', {}],
    ['a @oneOf input', 'query ($p: Pick) { engine pick(p: $p) }', { p: { id: '1' } }],
    ['an abstract type', '{ engine node(id: "1") { id } }', {}],
    ['a custom scalar in the result', '{ engine money }', {}],
  ])("is graphql-js, with executor: 'jit', for %s", async (_name, query, variables) => {
    expect(await engineOf(differential.jit, query, variables)).toBe('graphql-js');
  });
});
