import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { createApp, emit, type App } from '@fw/app';
import { defineOperation } from '@fw/app/validate';
import { NO_CHECK } from '../src/emit/client.js';
import { thing, thingsApp, watched } from './fixtures/client/things-app.js';
import { createClient, FwClientError, isFwClientError, type Tick } from './fixtures/client/things-client.js';

// The typed client `fw emit --client` generates: the committed fixture (fixtures/client/things-client.ts,
// from things-app.ts) is what emit writes now, a consumer type-checks against it (and its
// `@ts-expect-error` lines are errors), and it calls the app served on a real socket.

const PACKAGE = join(__dirname, '..');
const FIXTURES = join(__dirname, 'fixtures', 'client');
const COMMITTED = join(FIXTURES, 'things-client.ts');
const TSC = require.resolve('typescript/bin/tsc');
const BIN = join(PACKAGE, 'dist', 'bin', 'fw.js');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(file: string, args: string[], cwd = PACKAGE): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [file, ...args], { cwd, timeout: 120_000 }, (err, stdout, stderr) => {
      resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : null, stdout, stderr });
    });
  });
}

/** The client's text without its `@ts-nocheck` line: what the tests type-check. */
function withoutNoCheck(text: string): string {
  expect(text).toContain(NO_CHECK);
  return text.replace(NO_CHECK, '');
}

let dir: string;

beforeAll(async () => {
  await mkdir(join(PACKAGE, 'test-output'), { recursive: true });
  dir = await mkdtemp(join(PACKAGE, 'test-output', 'client-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('emit({ client })', () => {
  const only = { graphql: false, proto: false, openapi: false } as const;

  it('writes the committed client, and the same bytes on every emit', async () => {
    const path = join(dir, 'things-client.ts');
    const first = await emit({ app: thingsApp(), client: path, ...only });
    expect(first.files).toEqual([{ kind: 'client', path, changed: true }]);
    const written = await readFile(path, 'utf8');
    expect(written).toBe(await readFile(COMMITTED, 'utf8'));
    const second = await emit({ app: thingsApp(), client: path, ...only });
    expect(second.files).toEqual([{ kind: 'client', path, changed: false }]);
    expect(await readFile(path, 'utf8')).toBe(written);
  });

  it('lists the operations by name whatever order they were registered in, one method each with its doc comment on top', async () => {
    const text = await readFile(COMMITTED, 'utf8');
    const client = text.slice(text.indexOf('export interface Client {'));
    const methods = [...client.matchAll(/^ {2}(\w+)\(input/gm)].map((match) => match[1]);
    expect(methods).toEqual(['addThing', 'findThings', 'getThing', 'removeThing', 'renameThing', 'slow', 'ticks']);
    expect(client).toContain('  /**\n   * One thing by id\n   * `GET /things/:id`\n   */\n  getThing(input: GetThingInput, options?: CallOptions): Promise<GetThingOutput>;');
    expect(client).toContain('   * @deprecated things are never removed now\n   */\n  removeThing(');
    expect(client).toContain('ticks(input: TicksInput, options?: StreamOptions): AsyncIterable<TicksOutput>;');
  });

  it('writes the types of the schemas: dates as Date, enums as unions, nullable and optional kept, descriptions and deprecations as doc comments', async () => {
    const text = await readFile(COMMITTED, 'utf8');
    expect(text).toContain("/** What a thing is */\nexport type Kind = 'tool' | 'toy';");
    expect(text).toContain('  /** What it is called */\n  name: string;');
    expect(text).toContain('  createdAt: Date;\n  note: string | null;\n  tags: string[];\n  history: Change[];\n  labels: Record<string, Date>;');
    expect(text).toContain('  /** @deprecated use id */\n  code?: string | undefined;');
    // The input side: what may be left out (a default) is optional, lists may be read-only.
    expect(text).toContain('  kinds?: readonly Kind[] | undefined;\n  since?: Date | undefined;\n  /** @default 10 */\n  limit?: number | undefined;');
    expect(text).not.toMatch(/from 'zod'|require\(|import /);
  });

  it('reports a committed client that is out of date with check, writing nothing', async () => {
    const path = join(dir, 'stale-client.ts');
    await writeFile(path, (await readFile(COMMITTED, 'utf8')).replace('One thing by id', 'One thing'));
    const before = await readFile(path, 'utf8');
    const result = await emit({ app: thingsApp(), client: path, check: true, ...only });
    expect(result.files).toEqual([{ kind: 'client', path, changed: true }]);
    expect(result.changes).toEqual([{ kind: 'client', file: expect.stringContaining('stale-client.ts'), breaking: false, dangerous: false, message: expect.stringMatching(/out of date/) }]);
    expect(await readFile(path, 'utf8')).toBe(before);
  });

  it('fw emit --client writes it, and fw emit --check --client reports it stale', async () => {
    const out = join(dir, 'cli');
    const path = join(out, 'client.ts');
    const app = join(FIXTURES, 'things-app.ts');
    const wrote = await run(BIN, ['emit', app, '--out', out, '--no-graphql', '--no-proto', '--client', path]);
    expect(wrote).toMatchObject({ code: 0, stderr: '' });
    expect(wrote.stdout).toMatch(/wrote .*cli\/client\.ts/);
    expect(await readFile(path, 'utf8')).toBe(await readFile(COMMITTED, 'utf8'));
    const clean = await run(BIN, ['emit', app, '--out', out, '--no-graphql', '--no-proto', '--check', '--client', path]);
    expect(clean).toMatchObject({ code: 0, stdout: 'no changes\n' });
    await writeFile(path, '// an old client\n');
    const stale = await run(BIN, ['emit', app, '--out', out, '--no-graphql', '--no-proto', '--check', '--client', path]);
    expect(stale.code).toBe(0);
    expect(stale.stdout).toMatch(/^safe .*client\.ts: .*out of date/m);
    expect(stale.stdout).toMatch(/^out of date .*client\.ts$/m);
  });
});

describe('the names of the generated types', () => {
  it('keeps clear of the names the client declares, names a differing input <Name>Input (ClientInput), and quotes keys that are not identifiers', async () => {
    // A schema named as the client's own interface, with a default: its input differs from its output.
    const Clash = z.object({ 'content-type': z.string(), size: z.number().default(1) }).meta({ id: 'Client' });
    const app = createApp({ onLog: () => {} });
    app.operation(
      defineOperation({ name: 'put_clash', input: z.object({ clash: Clash }), output: Clash, handler: ({ clash }) => clash, rest: { method: 'PUT', path: '/clash' } }),
    );
    const path = join(dir, 'names-client.ts');
    await emit({ app, client: path, graphql: false, proto: false, openapi: false });
    const text = await readFile(path, 'utf8');
    expect(text).toContain("export interface Client2 {\n  'content-type': string;\n  size: number;\n}");
    expect(text).toContain("export interface ClientInput {\n  'content-type': string;\n  /** @default 1 */\n  size?: number | undefined;\n}");
    expect(text).toContain('export interface PutClashInput {\n  clash: ClientInput;\n}');
    expect(text).toContain('export type PutClashOutput = Client2;');
    expect(text).toContain('  put_clash(input: PutClashInput, options?: CallOptions): Promise<PutClashOutput>;');
    expect(text).toContain('export interface Client {');
    const project = join(dir, 'tsconfig.names.json');
    const checked = join(dir, 'names-client-checked.ts');
    await writeFile(checked, withoutNoCheck(text));
    await writeFile(project, JSON.stringify({ compilerOptions: { strict: true, noEmit: true, module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', lib: ['ES2022', 'DOM'], types: [] }, files: [checked] }));
    expect(await run(TSC, ['-p', project])).toMatchObject({ code: 0, stdout: '' });
  });
});

describe('a consumer of the generated client', () => {
  /**
   * Runs tsc on the consumer and the client with these compiler options, the client's
   * `@ts-nocheck` line taken out, so that its own declarations and code are checked too.
   */
  async function typecheck(name: string, compilerOptions: Record<string, unknown>): Promise<Run> {
    const checked = join(dir, `checked-${name}`);
    await mkdir(checked, { recursive: true });
    await writeFile(join(checked, 'things-client.ts'), withoutNoCheck(await readFile(COMMITTED, 'utf8')));
    await writeFile(join(checked, 'consumer.ts'), await readFile(join(FIXTURES, 'consumer.ts'), 'utf8'));
    const project = join(dir, `tsconfig.${name}.json`);
    const options = { strict: true, noEmit: true, noUncheckedIndexedAccess: true, exactOptionalPropertyTypes: true, module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', skipLibCheck: true, ...compilerOptions };
    await writeFile(project, JSON.stringify({ compilerOptions: options, files: [join(checked, 'consumer.ts'), join(checked, 'things-client.ts')] }));
    return run(TSC, ['-p', project]);
  }

  it("starts with @ts-nocheck on its third line, so a consumer's compiler checks only the calls", async () => {
    const lines = (await readFile(COMMITTED, 'utf8')).split('\n');
    expect(lines[2]).toBe(NO_CHECK.trimEnd());
    expect(lines.filter((line) => line.includes('@ts-nocheck'))).toHaveLength(1);
  });

  it('hides no error of its own: with the line taken out, a broken declaration is reported', async () => {
    const broken = join(dir, 'broken-client.ts');
    const text = withoutNoCheck(await readFile(COMMITTED, 'utf8')).replace('export interface Client {', 'export interface Client extends Missing {');
    await writeFile(broken, text);
    const project = join(dir, 'tsconfig.broken.json');
    await writeFile(project, JSON.stringify({ compilerOptions: { strict: true, noEmit: true, module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', lib: ['ES2022', 'DOM'], types: [] }, files: [broken] }));
    const result = await run(TSC, ['-p', project]);
    expect(result.stdout).toMatch(/broken-client\.ts\(\d+,\d+\): error TS2304: Cannot find name 'Missing'/);
  });

  it('type-checks with the DOM types alone (fetch is all the client needs), every @ts-expect-error line an error', async () => {
    const result = await typecheck('dom', { lib: ['ES2022', 'DOM'], types: [] });
    expect(result).toMatchObject({ code: 0, stdout: '' });
  });

  it("type-checks with node's types alone", async () => {
    const result = await typecheck('node', { lib: ['ES2022'], types: ['node'], typeRoots: [join(PACKAGE, '..', '..', 'node_modules', '@types')] });
    expect(result).toMatchObject({ code: 0, stdout: '' });
  });

  it('fails to type-check a wrong input and a field the output does not have', async () => {
    const wrong = join(dir, 'wrong.ts');
    await writeFile(
      wrong,
      `import { createClient } from ${JSON.stringify(COMMITTED.replace(/\.ts$/, '.js'))};\nconst client = createClient({ baseUrl: '' });\nexport const a = client.getThing({ id: 1 });\nexport const b = client.getThing({ id: 'b1' }).then((t) => t.price);\n`,
    );
    const project = join(dir, 'tsconfig.wrong.json');
    await writeFile(project, JSON.stringify({ compilerOptions: { strict: true, noEmit: true, module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', lib: ['ES2022', 'DOM'], types: [] }, files: [wrong] }));
    const result = await run(TSC, ['-p', project]);
    expect(result.code).not.toBe(0);
    expect(result.stdout).toMatch(/wrong\.ts\(3,\d+\): error TS2322: Type 'number' is not assignable to type 'string'/);
    expect(result.stdout).toMatch(/wrong\.ts\(4,\d+\): error TS2339: Property 'price' does not exist on type 'Thing'/);
  });
});

describe('the generated client against the app on a real socket', () => {
  let app: App;
  let base: string;
  const admin = { authorization: 'Bearer admin' };

  beforeAll(async () => {
    app = thingsApp();
    base = (await app.listen(0, '127.0.0.1')).url;
  });

  afterAll(async () => {
    await app.close();
  });

  /** The JSON a raw fetch of the route answers. */
  async function raw(path: string, init: RequestInit = {}): Promise<{ status: number; body: unknown }> {
    const res = await fetch(`${base}${path}`, init);
    return { status: res.status, body: await res.json() };
  }

  /** `value` as JSON carries it (dates as ISO strings). */
  const asJson = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

  async function eventually(check: () => boolean, what: string): Promise<void> {
    for (let waited = 0; !check(); waited += 20) {
      if (waited > 20_000) throw new Error(`waited 20 s for ${what} (${JSON.stringify(watched)})`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  it('gives what a raw fetch of each route gives, with the output dates as Dates', async () => {
    const client = createClient({ baseUrl: `${base}/`, headers: admin });
    const got = await client.getThing({ id: 't1' });
    expect(asJson(got)).toEqual((await raw('/things/t1')).body);
    expect(got.createdAt).toBeInstanceOf(Date);
    expect(got.createdAt.toISOString()).toBe('2024-05-06T07:08:09.010Z');
    expect(got.history[0]!.at).toBeInstanceOf(Date);
    expect(got.labels.first).toBeInstanceOf(Date);
    expect(got.note).toBeNull();
    expect(asJson(got)).toEqual(asJson(thing('t1', 'thing t1')));

    const since = new Date('2024-02-03T04:05:06.000Z');
    const found = await client.findThings({ q: 'ab', kinds: ['tool', 'toy'], since, limit: 5 });
    expect(found[0]!.name).toBe('ab|tool,toy|2024-02-03T04:05:06.000Z|5');
    expect(asJson(found)).toEqual((await raw(`/things?q=ab&kinds=tool&kinds=toy&since=${since.toISOString()}&limit=5`)).body);
    expect((await client.findThings())[0]!.name).toBe('|||10');

    const added = await client.addThing({ name: 'hammer', kind: 'toy', madeAt: since });
    const addedRaw = await raw('/things', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'hammer', kind: 'toy', madeAt: since }) });
    expect(addedRaw.status).toBe(201);
    expect(asJson(added)).toEqual(addedRaw.body);
    expect(added.createdAt.getTime()).toBe(since.getTime());

    const renamed = await client.renameThing({ id: 't/1 x', name: 'spanner' });
    expect(renamed).toEqual({ id: 't/1 x', name: 'spanner', renamedAt: null });
    expect(renamed).toEqual((await raw('/things/t%2F1%20x', { method: 'PATCH', headers: { 'content-type': 'application/json', ...admin }, body: JSON.stringify({ name: 'spanner' }) })).body);

    expect(await client.removeThing({ id: 't1' })).toEqual((await raw('/things/t1', { method: 'DELETE', headers: admin })).body);
  });

  it('rejects 400, 401, 403, 404 and 409 with an FwClientError carrying the code, the status and the details', async () => {
    const client = createClient({ baseUrl: base });
    const failure = async (call: Promise<unknown>): Promise<FwClientError> => {
      const err = await call.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(FwClientError);
      expect(isFwClientError(err)).toBe(true);
      return err as FwClientError;
    };
    const invalid = await failure(client.getThing({ id: 'x' }));
    expect(invalid).toMatchObject({ name: 'FwClientError', code: 'invalid_argument', status: 400, message: 'Validation failed' });
    expect(invalid.fields).toEqual([expect.objectContaining({ field: 'params.id', code: 'too_small' })]);
    expect(invalid.details).toEqual(invalid.fields);
    const body = await failure(client.addThing({ name: 'h', kind: 'tool' }));
    expect(body).toMatchObject({ code: 'invalid_argument', status: 400 });
    expect(body.fields.map((f) => f.field)).toEqual(['body.name']);
    expect(await failure(client.renameThing({ id: 't1', name: 'n' }))).toMatchObject({ code: 'unauthenticated', status: 401, message: 'Sign in first', fields: [] });
    expect(await failure(client.renameThing({ id: 't1', name: 'n' }, { headers: { authorization: 'Bearer guest' } }))).toMatchObject({ code: 'permission_denied', status: 403, message: 'Admins only' });
    expect(await failure(client.getThing({ id: 'missing' }))).toMatchObject({ code: 'not_found', status: 404, message: 'No thing missing' });
    expect(await failure(client.addThing({ name: 'taken', kind: 'tool' }))).toMatchObject({ code: 'conflict', status: 409, message: 'The name is taken' });
    const err = await failure(client.getThing({ id: 'missing' }));
    expect(err).toBeInstanceOf(Error);
    expect(err.stack).toContain('FwClientError');
  });

  it('calls headers() for every request, per-call headers over them', async () => {
    let calls = 0;
    const client = createClient({ baseUrl: base, headers: async () => ({ authorization: `Bearer ${++calls === 2 ? 'guest' : 'admin'}` }) });
    watched.headers.length = 0;
    await client.renameThing({ id: 't1', name: 'a' });
    await expect(client.renameThing({ id: 't1', name: 'b' })).rejects.toMatchObject({ code: 'permission_denied' });
    await client.renameThing({ id: 't1', name: 'c' }, { headers: { authorization: 'Bearer admin' } });
    expect(calls).toBe(3);
    expect(watched.headers).toEqual(['Bearer admin', 'Bearer guest', 'Bearer admin']);
  });

  it("aborts a call past timeoutMs with deadline_exceeded, and the server's ctx.signal fires", async () => {
    const before = watched.slowAborted;
    await expect(createClient({ baseUrl: base }).slow({}, { timeoutMs: 300 })).rejects.toMatchObject({ name: 'FwClientError', code: 'deadline_exceeded', status: 0 });
    await eventually(() => watched.slowAborted === before + 1, "the slow handler's signal");
    // The client's own timeoutMs, when the call gives none.
    await expect(createClient({ baseUrl: base, timeoutMs: 300 }).slow()).rejects.toMatchObject({ code: 'deadline_exceeded' });
    await eventually(() => watched.slowAborted === before + 2, "the second slow handler's signal");
  });

  it('rejects with cancelled when the caller aborts, and with unavailable when nothing answers', async () => {
    const controller = new AbortController();
    const call = createClient({ baseUrl: base }).slow({}, { signal: controller.signal });
    setTimeout(() => controller.abort(), 200);
    await expect(call).rejects.toMatchObject({ code: 'cancelled', status: 0 });
    await expect(createClient({ baseUrl: base }).slow({}, { signal: AbortSignal.abort() })).rejects.toMatchObject({ code: 'cancelled' });
    const closed = thingsApp();
    const gone = (await closed.listen(0, '127.0.0.1')).url;
    await closed.close();
    const err = await createClient({ baseUrl: gone }).getThing({ id: 't1' }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'unavailable', status: 0 });
    expect((err as Error).cause).toBeDefined();
  });

  /** Every event of a stream, in order. */
  async function collect(events: AsyncIterable<Tick>): Promise<number[]> {
    const seen: number[] = [];
    for await (const tick of events) {
      expect(tick.at).toBeInstanceOf(Date);
      expect(tick.at.getTime()).toBe(Date.UTC(2024, 0, 1, 0, 0, tick.n));
      seen.push(tick.n);
    }
    return seen;
  }

  it('streams the events in order, with dates as Dates, to the end', async () => {
    const client = createClient({ baseUrl: base });
    expect(await collect(client.ticks({ count: 5 }))).toEqual([1, 2, 3, 4, 5]);
    expect(await collect(client.ticks({ count: 5 }, { lastEventId: '3' }))).toEqual([4, 5]);
  });

  it('reconnects with Last-Event-ID after the server drops the connection mid-stream: no event lost or repeated', async () => {
    const client = createClient({ baseUrl: base });
    const opened = watched.streamsOpened;
    expect(await collect(client.ticks({ count: 8, dropAfter: 3 }))).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(watched.streamsOpened - opened).toBe(2);
  });

  it('closes the stream when the loop breaks or the signal aborts, and the handler ends', async () => {
    const client = createClient({ baseUrl: base });
    await eventually(() => watched.streamsOpened === watched.streamsClosed, 'the handlers of the streams before to end');
    const closed = watched.streamsClosed;
    const seen: number[] = [];
    for await (const tick of client.ticks({ count: 100 })) {
      seen.push(tick.n);
      if (tick.n === 3) break;
    }
    expect(seen).toEqual([1, 2, 3]);
    await eventually(() => watched.streamsClosed === closed + 1, 'the handler of the stream left by break to end');

    const controller = new AbortController();
    const aborted: number[] = [];
    for await (const tick of client.ticks({ count: 100 }, { signal: controller.signal })) {
      aborted.push(tick.n);
      if (tick.n === 100) controller.abort();
    }
    expect(aborted).toHaveLength(100);
    await eventually(() => watched.streamsClosed === closed + 2, 'the handler of the aborted stream to end');
  });

  it('rejects a stream refused before its first event with an FwClientError', async () => {
    const client = createClient({ baseUrl: base });
    const err = await collect(client.ticks({ count: 0 })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FwClientError);
    expect(err).toMatchObject({ code: 'invalid_argument', status: 400 });
    expect((err as FwClientError).fields.map((f) => f.field)).toEqual(['query.count']);
  });
});
