import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { GRPC_ADAPTER } from '@fw/grpc';
import { SHOP_PROTO } from './support.js';

// Which modules a real consumer of the built packages loads. Each case runs in a fresh node
// process, as an ES module (`import()`) and as CommonJS (`require`), from this package's
// directory, where `@fw/app` resolves to itself through its exports (as from a user's
// node_modules) and its dependencies to their built dist. The V8 inspector lists every script
// compiled, whichever loader compiled it (ESM, CommonJS, require of an ES module).

const APP_DIR = join(__dirname, '..');
const PACKAGES_DIR = join(APP_DIR, '..');

type Kind = 'esm' | 'cjs';
const KINDS: Kind[] = ['esm', 'cjs'];

/** The files of every script compiled so far, as file URLs or paths (evaluated in the child). */
const LOADED = `(() => {
  const { Session } = process.getBuiltinModule('node:inspector');
  const session = new Session();
  const urls = [];
  session.connect();
  session.on('Debugger.scriptParsed', (m) => urls.push(m.params.url));
  session.post('Debugger.enable', () => {});
  session.disconnect();
  return urls.filter((u) => u.startsWith('file:') || u.startsWith('/'));
})()`;

interface Run {
  /** What the body returned (JSON). */
  out: Record<string, unknown>;
  /** Every file loaded at the end of the body. */
  files: string[];
}

/**
 * Runs `body` (an async function body; `load(name)` imports or requires a module; `LOADED()`
 * lists the files loaded so far) in a fresh node process as an ES module or as CommonJS.
 */
function consume(kind: Kind, body: string, cwd = APP_DIR): Promise<Run> {
  const prelude =
    kind === 'esm'
      ? `const load = async (name) => { const m = await import(name); return m['module.exports'] ?? m.default ?? m; };`
      : `const load = async (name) => require(name);`;
  const script = `${prelude}
const LOADED = () => ${LOADED};
const main = async () => { ${body} };
main().then((out) => {
  process.stdout.write('RESULT ' + JSON.stringify({ out, files: LOADED() }) + '\\n');
  process.exit(0);
}, (error) => {
  process.stdout.write('RESULT ' + JSON.stringify({ out: { error: String(error && error.message), code: error && error.code } , files: [] }) + '\\n');
  process.exit(0);
});`;
  const args = kind === 'esm' ? ['--input-type=module', '-e', script] : ['-e', script];
  return new Promise((resolve, reject) => {
    // Without NODE_PATH (the package manager's bin shims set one): modules resolve as in a user's project.
    const { NODE_PATH: _nodePath, ...env } = process.env;
    const child = spawn(process.execPath, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...env, NODE_ENV: 'test' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('error', reject);
    child.once('exit', (code) => {
      const line = stdout.split('\n').find((l) => l.startsWith('RESULT '));
      if (code !== 0 || line === undefined) reject(new Error(`consumer exited with ${code}:\n${stdout}\n${stderr}`));
      else resolve(JSON.parse(line.slice('RESULT '.length)) as Run);
    });
  });
}

/** The package a loaded file belongs to: `@fw/<name>` for this repository's packages, else the npm name. */
function packageOf(file: string): string {
  const inModules = /.*node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(file);
  if (inModules) return inModules[1]!;
  const fw = /\/packages\/([^/]+)\/dist\//.exec(file);
  return fw ? `@fw/${fw[1]}` : file;
}

const packages = (run: Run): Set<string> => new Set(run.files.map(packageOf));

/** The protocol libraries (prefixes match every package of a scope): the fw packages load them when an option needs them. */
const HEAVY = ['graphql', 'graphql-jit', 'graphql-sse', 'graphql-ws', 'ws', '@grpc/', 'grpc-health-check', 'protobufjs', '@protobufjs/', '@opentelemetry/', 'busboy', 'streamsearch'];
/** Every fw package: `@fw/app`'s root exports each one's own objects, so a program that imports it loads them all (each cheap: see HEAVY). */
const FW_PACKAGES = ['@fw/app', '@fw/connect', '@fw/core', '@fw/graphql', '@fw/grpc', '@fw/metrics', '@fw/middleware', '@fw/openapi', '@fw/tracing', '@fw/validate'];
const heavyIn = (run: Run): string[] => [...packages(run)].filter((name) => HEAVY.some((h) => (h.endsWith('/') ? name.startsWith(h) : name === h)));

/**
 * The ES module entries of `@fw/*` loaded without the CommonJS build they wrap: none. Every
 * package's code is its CommonJS build; an `import` loads a wrapper that re-exports it, so both
 * ways of loading reach one module instance.
 */
const fwCodeTwice = (run: Run): string[] => {
  const loaded = new Set(run.files.map((f) => f.replace(/^file:\/\//, '')));
  return [...loaded].filter((f) => packageOf(f).startsWith('@fw/') && /[\\/]dist[\\/][^\\/]+\.js$/.test(f) && !loaded.has(f.replace(/\.js$/, '.cjs')));
};

const REST_APP = `
  const { createApp } = await load('@fw/app');
  const app = createApp();
  app.get('/ping', (ctx) => ctx.json({ pong: true }));
  const { url } = await app.listen(0, '127.0.0.1');
  const res = await fetch(url + '/ping');
  const answer = { status: res.status, body: await res.json() };
  await app.close();
  return answer;`;

describe.each(KINDS)('a REST-only app (%s consumer)', (kind) => {
  it('serves without loading graphql, gRPC, protobufjs or OpenTelemetry', async () => {
    const run = await consume(kind, REST_APP);
    expect(run.out).toEqual({ status: 200, body: { pong: true } });
    expect(packages(run)).toContain('@fw/app');
    expect(packages(run)).toContain('@fw/core');
    expect(heavyIn(run)).toEqual([]);
  });

  it('loads busboy on the first multipart body, and not before', async () => {
    const run = await consume(kind, `
      const { createApp } = await load('@fw/app');
      const app = createApp();
      app.post('/upload', async (ctx) => {
        const names = [];
        for await (const part of ctx.multipart()) names.push(part.fieldname);
        ctx.json(names);
      });
      const { url } = await app.listen(0, '127.0.0.1');
      const before = LOADED().some((f) => f.includes('/busboy/'));
      const form = new FormData();
      form.append('a', '1');
      const res = await fetch(url + '/upload', { method: 'POST', body: form });
      const answer = { before, status: res.status, body: await res.json() };
      await app.close();
      return answer;`);
    expect(run.out).toEqual({ before: false, status: 200, body: ['a'] });
    expect(packages(run)).toContain('busboy');
  });

  it('loads every fw package once, as its CommonJS build (an ES module entry only wraps it)', async () => {
    const run = await consume(kind, REST_APP);
    expect([...packages(run)].filter((name) => name.startsWith('@fw/')).sort()).toEqual(FW_PACKAGES);
    expect(fwCodeTwice(run)).toEqual([]);
  });

  it("gives the packages' own objects: a class made from the root's name is the package's, and a function the package's", async () => {
    const run = await consume(kind, `
      const { cors, MemoryStore } = await load('@fw/app');
      const scoped = await load('@fw/middleware');
      return { cors: cors === scoped.cors, store: new MemoryStore() instanceof scoped.MemoryStore, middleware: typeof cors() };`);
    expect(run.out).toEqual({ cors: true, store: true, middleware: 'function' });
    expect(heavyIn(run)).toEqual([]);
  });

  it('gives @fw/middleware itself through @fw/app/middleware: one copy, whose classes and constants the subpath and the root share', async () => {
    const run = await consume(kind, `
      const sub = await load('@fw/app/middleware');
      const root = await load('@fw/app');
      const scoped = await load('@fw/middleware');
      return { sameAsRoot: sub.cors === root.cors && sub.MemoryStore === root.MemoryStore, constants: sub.DEFAULT_CORS_METHODS === scoped.DEFAULT_CORS_METHODS, instance: new sub.MemoryStore() instanceof scoped.MemoryStore };`);
    expect(run.out).toEqual({ sameAsRoot: true, constants: true, instance: true });
    expect(packages(run)).toContain('@fw/middleware');
    expect(fwCodeTwice(run)).toEqual([]);
  });

  it('loads no OpenTelemetry package when tracing is switched off', async () => {
    const run = await consume(kind, `
      const { createApp } = await load('@fw/app');
      createApp({ protocols: { graphql: false, grpc: false }, observability: { tracing: { enabled: false, serviceName: 'off' } } });
      return {};`);
    expect(heavyIn(run)).toEqual([]);
  });

  it('loads no OpenTelemetry package when metrics are switched off, and the SDK when they are on', async () => {
    const off = await consume(kind, `
      const { createApp } = await load('@fw/app');
      createApp({ observability: { metrics: { enabled: false } } });
      return {};`);
    expect(heavyIn(off)).toEqual([]);
    const on = await consume(kind, `
      const { createApp } = await load('@fw/app');
      const app = createApp({ shutdown: false, observability: { metrics: { enabled: true } } });
      await app.listen(0, '127.0.0.1');
      await app.close();
      return {};`);
    expect(heavyIn(on)).toContain('@opentelemetry/sdk-metrics');
  });
});

describe.each(KINDS)('a GraphQL app (%s consumer)', (kind) => {
  it('loads graphql, answers, and maps an HTTPError thrown in a resolver through the one @fw/core', async () => {
    const run = await consume(kind, `
      const { createApp, HTTPError } = await load('@fw/app');
      const core = await load('@fw/core');
      const { buildSchema } = await load('graphql');
      const schema = buildSchema('type Query { hello: String, secret: String }');
      const rootValue = { hello: () => 'world', secret: () => { throw new HTTPError(403, 'no access'); } };
      const app = createApp({ protocols: { graphql: { schema, rootValue } } });
      const { url } = await app.listen(0, '127.0.0.1');
      const res = await fetch(url + '/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ hello secret }' }) });
      const answer = { status: res.status, body: await res.json(), sameClass: core.HTTPError === HTTPError };
      await app.close();
      return answer;`);
    expect(run.out).toMatchObject({
      status: 200,
      sameClass: true,
      body: { data: { hello: 'world', secret: null }, errors: [{ message: 'no access', extensions: { code: 'FORBIDDEN', status: 403 } }] },
    });
    expect(packages(run)).toContain('graphql');
    expect(packages(run)).toContain('@fw/graphql');
    // graphql-sse belongs to the endpoint; graphql-jit waits for `executor: 'jit'` and a compilation,
    // ws and graphql-ws for a WebSocket upgrade.
    expect(heavyIn(run).filter((name) => !['graphql', 'graphql-sse'].includes(name))).toEqual([]);
    expect(fwCodeTwice(run)).toEqual([]);
  });
});

describe.each(KINDS)('a gRPC app (%s consumer)', (kind) => {
  it('loads gRPC, answers, and maps an HTTPError thrown in a handler through the one @fw/core', async () => {
    const run = await consume(kind, `
      const { createApp, HTTPError } = await load('@fw/app');
      const app = createApp({ protocols: { grpc: { port: 0, host: '127.0.0.1', protoPath: ${JSON.stringify(SHOP_PROTO)}, services: { 'shop.Items': {
        Get: (call, callback) => call.request.id === 'missing' ? callback(new HTTPError(404, 'No such item')) : callback(null, { id: call.request.id, owner: 'ann' }),
      } } } } });
      await app.listen(0, '127.0.0.1');
      const loadedByApp = LOADED();
      const grpc = await load('@grpc/grpc-js');
      const protoLoader = await load('@grpc/proto-loader');
      const definition = protoLoader.loadSync(${JSON.stringify(SHOP_PROTO)}, { keepCase: true });
      const { shop } = grpc.loadPackageDefinition(definition);
      const client = new shop.Items(app.getProtocolManager().getGrpcAddress().target, grpc.credentials.createInsecure());
      const get = (id) => new Promise((resolve) => client.Get({ id }, (err, item) => resolve(err ? { code: err.code, details: err.details } : item)));
      const answer = { found: await get('a1'), missing: await get('missing'), notFound: grpc.status.NOT_FOUND, loadedByApp };
      client.close();
      await app.close();
      return answer;`);
    const { loadedByApp, ...answers } = run.out as { loadedByApp: string[] };
    expect(answers).toEqual({ found: { id: 'a1', owner: 'ann' }, missing: { code: 5, details: 'No such item' }, notFound: 5 });
    const byApp = { out: {}, files: loadedByApp };
    expect(packages(byApp)).toContain('@grpc/grpc-js');
    expect(packages(byApp)).toContain('@fw/grpc');
    expect(heavyIn(byApp).filter((name) => name.startsWith('@opentelemetry/') || name.includes('graphql'))).toEqual([]);
    expect(fwCodeTwice(run)).toEqual([]);
  });
});

describe.each(KINDS)('a traced app (%s consumer)', (kind) => {
  it('loads @opentelemetry/api with the app, and the SDK only at listen()', async () => {
    const run = await consume(kind, `
      const { createApp } = await load('@fw/app');
      const app = createApp({ observability: { tracing: { enabled: true, serviceName: 'lazy', exporter: 'none' } } });
      app.get('/ping', (ctx) => ctx.json({ pong: true }));
      const afterCreate = LOADED();
      const { url } = await app.listen(0, '127.0.0.1');
      const res = await fetch(url + '/ping');
      const answer = { status: res.status, traceparent: res.headers.get('traceparent') !== null, afterCreate };
      await app.close();
      return answer;`);
    const { afterCreate, ...answer } = run.out as { afterCreate: string[] };
    expect(answer).toEqual({ status: 200, traceparent: true });
    const created = packages({ out: {}, files: afterCreate });
    expect(created).toContain('@fw/tracing');
    expect(created).toContain('@opentelemetry/api');
    expect(created).not.toContain('@opentelemetry/sdk-node');
    expect(created).not.toContain('@opentelemetry/sdk-trace-base');
    expect(packages(run)).toContain('@opentelemetry/sdk-trace-base');
    expect(heavyIn(run).filter((name) => !name.startsWith('@opentelemetry/') && name !== '@fw/tracing')).toEqual([]);
    expect(fwCodeTwice(run)).toEqual([]);
  });
});

describe('the exports of every @fw package', () => {
  const manifests = readdirSync(PACKAGES_DIR).map((dir) => {
    const manifest = JSON.parse(readFileSync(join(PACKAGES_DIR, dir, 'package.json'), 'utf8')) as { name: string; engines: { node: string }; exports: Record<string, unknown> };
    return [manifest.name, manifest] as const;
  });

  it.each(manifests)('%s resolves require to its CommonJS build and import to a wrapper of that build, on Node >= 20.19', (name, manifest) => {
    expect(manifest.engines.node).toBe('>=20.19');
    for (const [subpath, entry] of Object.entries(manifest.exports)) {
      if (typeof entry === 'string') continue; // ./package.json
      const conditions = entry as Record<'import' | 'require', { types: string; default: string }>;
      expect([subpath, Object.keys(conditions)]).toEqual([subpath, ['import', 'require']]);
      const cjs = conditions.require.default;
      expect(conditions.import.default).toBe(cjs.replace(/\.cjs$/, '.js'));
      // The wrapper takes the build's exports through a two-line file (node scans what an ES module imports for names).
      const dir = join(PACKAGES_DIR, name.replace('@fw/', ''));
      const handOver = cjs.replace(/\.cjs$/, '.import.cjs');
      expect(readFileSync(join(dir, conditions.import.default), 'utf8')).toContain(`import cjs from './${handOver.split('/').pop()!}';`);
      expect(readFileSync(join(dir, handOver), 'utf8')).toContain(`const build = require('./${cjs.split('/').pop()!}');`);
    }
  });
});

describe('the adapter createApp serves on', () => {
  it('is the one gRPC requires', async () => {
    const run = await consume('cjs', `
      const { createApp } = await load('@fw/app');
      try { createApp({ adapter: { type: 'bun' } }); } catch (error) { return { message: error.message }; }
      return {};`);
    expect(run.out).toEqual({ message: `createApp: unknown adapter type "bun"; the only adapter is "${GRPC_ADAPTER}"` });
  });
});

// A project whose protocol libraries are not installed: every fw package copied from its build
// into the project's node_modules with its own dependencies linked, and the peer dependencies the
// user installs (graphql, @grpc/grpc-js, @opentelemetry/api) left out.
describe('an app whose protocol libraries are not installed', () => {
  let root: string;

  /** A node_modules entry linked to the package's real directory (its own dependencies resolve from there). */
  const link = (project: string, name: string, target: string): void => {
    const at = join(project, 'node_modules', name);
    if (existsSync(at)) return;
    mkdirSync(dirname(at), { recursive: true });
    symlinkSync(realpathSync(target), at, 'dir');
  };
  /** A node_modules entry holding a copy of an fw package's package.json and dist, its dependencies linked beside it. */
  const copy = (project: string, name: string): void => {
    const at = join(project, 'node_modules', '@fw', name);
    mkdirSync(at, { recursive: true });
    cpSync(join(PACKAGES_DIR, name, 'package.json'), join(at, 'package.json'));
    cpSync(join(PACKAGES_DIR, name, 'dist'), join(at, 'dist'), { recursive: true });
    const manifest = JSON.parse(readFileSync(join(PACKAGES_DIR, name, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
    for (const dependency of Object.keys(manifest.dependencies ?? {})) {
      if (!dependency.startsWith('@fw/')) link(project, dependency, join(PACKAGES_DIR, name, 'node_modules', dependency));
    }
  };
  /** A project with every fw package and what they depend on, plus whatever `extra` adds. */
  const project = (name: string, extra: (dir: string) => void = () => undefined): string => {
    const dir = join(root, name);
    mkdirSync(dir);
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, private: true }));
    for (const pkg of FW_PACKAGES) copy(dir, pkg.slice('@fw/'.length));
    extra(dir);
    return dir;
  };

  const ATTEMPTS = `
    const { createApp } = await load('@fw/app');
    const rest = createApp().getProtocolManager() === undefined;
    const attempt = (options) => { try { createApp(options); return 'created'; } catch (error) { return error.message; } };
    return {
      rest,
      graphql: attempt({ protocols: { graphql: { schema: {} } } }),
      grpc: attempt({ protocols: { grpc: { services: {} } } }),
      tracing: attempt({ observability: { tracing: { enabled: true, serviceName: 'x' } } }),
    };`;

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'fw-lazy-'));
  });
  afterAll(() => {
    rmSync(root, { recursive: true, force: true });
  });

  it.each(KINDS)('serves REST and names the packages to install for each option (%s consumer)', async (kind) => {
    const dir = project(`no-libraries-${kind}`);
    const run = await consume(kind, ATTEMPTS, dir);
    expect(run.out).toEqual({
      rest: true,
      graphql: 'protocols.graphql needs the graphql package: npm install graphql',
      grpc: 'protocols.grpc needs the @grpc/grpc-js package: npm install @grpc/grpc-js',
      tracing: 'observability.tracing needs the @opentelemetry/api package: npm install @opentelemetry/api',
    });
  });

  it.each(KINDS)('imports every root name; a function that needs a missing library says which when called, and the rest work (%s consumer)', async (kind) => {
    const dir = project(`root-names-${kind}`);
    const run = await consume(kind, `
      const { graphqlPlugin, GrpcError, tracingPlugin, cors, graphqlErrorCode } = await load('@fw/app');
      const attempt = (fn) => { try { fn(); return 'ran'; } catch (error) { return error.message.split('\\n')[0]; } };
      return {
        graphql: attempt(() => graphqlPlugin({})),
        grpc: attempt(() => new GrpcError(5, 'gone')),
        tracing: attempt(() => tracingPlugin({ serviceName: 'x' })),
        cors: typeof cors(),
        code: graphqlErrorCode(404),
      };`, dir);
    expect(run.out).toEqual({
      graphql: "Cannot find module 'graphql'",
      grpc: 'ran',
      tracing: "Cannot find module '@opentelemetry/api'",
      cors: 'function',
      code: 'NOT_FOUND',
    });
  });

  it('reports any other failure to load a library as it is', async () => {
    const dir = project('broken-grpc', (at) => {
      const grpc = join(at, 'node_modules', '@grpc', 'grpc-js');
      mkdirSync(grpc, { recursive: true });
      writeFileSync(join(grpc, 'package.json'), JSON.stringify({ name: '@grpc/grpc-js', main: 'index.js' }));
      writeFileSync(join(grpc, 'index.js'), `throw new Error('@grpc/grpc-js failed to initialise');`);
    });
    const run = await consume('cjs', ATTEMPTS, dir);
    expect(run.out).toMatchObject({ grpc: '@grpc/grpc-js failed to initialise' });
  });
});
