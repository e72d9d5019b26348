import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import * as app from '@fw/app';
import * as connect from '@fw/connect';
import * as core from '@fw/core';
import * as graphql from '@fw/graphql';
import * as grpc from '@fw/grpc';
import * as middleware from '@fw/middleware';
import * as openapi from '@fw/openapi';
import * as metrics from '@fw/metrics';
import * as tracing from '@fw/tracing';
import * as validate from '@fw/validate';

// What `@fw/app` exports: `createApp`, `emit`, every value of `@fw/core`, and every function and
// class of the other packages, each the very object its package exports (loaders.test.ts holds it
// under every loader). `@fw/app/<package>` re-exports one package whole, so every import of a name
// gives the same object.

/** The names the interface spec and the README document, from the package that owns each. */
const DOCUMENTED = {
  app: ['createApp', 'emit', 'start'],
  core: ['Router', 'HTTPError', 'compose', 'withMeta', 'Application', 'Context', 'isHTTPError'],
  middleware: ['cors', 'logger', 'rateLimit', 'authenticate', 'requireRole', 'jwtVerifier', 'etag', 'secureHeaders', 'compress', 'idempotency', 'MemoryStore', 'RedisStore'],
  validate: ['validate', 'createHandler', 'defineOperation'],
  openapi: ['describeRoute', 'openapiPlugin', 'openapi', 'checkContract'],
  graphql: ['graphqlPlugin'],
  grpc: ['GrpcError', 'grpcPlugin'],
  connect: ['connectPlugin'],
  tracing: ['tracingPlugin'],
  metrics: ['metricsPlugin'],
} as const;

const TYPES = [
  // createApp and what it returns
  'App',
  'AppOptions',
  'ProtocolManager',
  'ProtocolManagerConfig',
  'TracingOptions',
  'MetricsOptions',
  'HealthOptions',
  'HealthCheck',
  'AppHealth',
  'ReadinessReport',
  'ShutdownOptions',
  // emit() and `fw emit`
  'EmitKind',
  'EmitOptions',
  'EmitResult',
  'EmitTarget',
  'EmittedFile',
];

const SCOPED = { connect, core, graphql, grpc, metrics, middleware, openapi, tracing, validate } as const;

const dist = (pkg: string, entry = 'index'): string => join(__dirname, '..', '..', pkg, 'dist', `${entry}.d.ts`);
const FILES = [dist('app'), ...Object.keys(SCOPED).flatMap((name) => [dist('app', name), dist(name)])];
let program: ts.Program | undefined;

/** Every name (values and types) a built declaration file exports, as TypeScript sees it (one program for all files). */
function declaredExports(file: string): string[] {
  program ??= ts.createProgram(FILES, {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    skipLibCheck: true,
    noEmit: true,
    types: [],
  });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file);
  if (source === undefined) throw new Error(`${file} is not built`);
  return checker.getExportsOfModule(checker.getSymbolAtLocation(source)!).map((symbol) => symbol.name);
}

/** The route meta a middleware carries (what `withMeta` set). */
const metaOf = (middleware: unknown): unknown => (middleware as Record<symbol, unknown>)[core.ROUTE_META];

const sorted = (names: Iterable<string>): string[] => [...names].sort();

type Owner = keyof typeof SCOPED;
const OWNERS = Object.keys(SCOPED) as Owner[];
const valuesOf = (owner: Owner): Record<string, unknown> => SCOPED[owner];
/** The names of the root that are `owner`'s: all of core's values, the functions and classes of the others. */
const rootNamesOf = (owner: Owner): string[] =>
  Object.keys(valuesOf(owner)).filter((name) => owner === 'core' || typeof valuesOf(owner)[name] === 'function');
const root = app as Record<string, unknown>;

const subpaths: Record<Owner, () => Promise<Record<string, unknown>>> = {
  connect: () => import('@fw/app/connect'),
  core: () => import('@fw/app/core'),
  graphql: () => import('@fw/app/graphql'),
  grpc: () => import('@fw/app/grpc'),
  middleware: () => import('@fw/app/middleware'),
  openapi: () => import('@fw/app/openapi'),
  tracing: () => import('@fw/app/tracing'),
  metrics: () => import('@fw/app/metrics'),
  validate: () => import('@fw/app/validate'),
};

describe('the @fw/app root', () => {
  it('exports every name the spec and the README document', () => {
    const missing = Object.values(DOCUMENTED).flat().filter((name) => !(name in root));
    expect(missing).toEqual([]);
  });

  it('exports exactly createApp, emit, start, every value of @fw/core and every function and class of the other packages', () => {
    expect(sorted(Object.keys(app))).toEqual(sorted(['createApp', 'emit', 'start', ...OWNERS.flatMap(rootNamesOf)]));
  });

  it.each(OWNERS)('gives the same object as @fw/app/%s for every name of that package', async (owner) => {
    const sub = await subpaths[owner]();
    const documented = (DOCUMENTED[owner] as readonly string[]).filter((name) => name in valuesOf(owner));
    expect(documented.length).toBeGreaterThan(0);
    for (const name of rootNamesOf(owner)) {
      expect([name, sub[name] === root[name]]).toEqual([name, true]);
    }
  });

  it("re-exports @fw/core's values as core's very objects", () => {
    for (const name of rootNamesOf('core')) expect([name, root[name] === valuesOf('core')[name]]).toEqual([name, true]);
  });

  it.each(OWNERS.filter((owner) => owner !== 'core'))("re-exports each function and class of @fw/%s as the package's very object", (owner) => {
    for (const name of rootNamesOf(owner)) expect([name, root[name] === valuesOf(owner)[name]]).toEqual([name, true]);
  });

  it("constructs, extends and recognises the package's classes through the root's", () => {
    // The class names are types too, generic where the package's are (checked by the typecheck step).
    const store: app.MemoryStore = new app.MemoryStore();
    const context: app.GrpcContext<{ id: string }> | undefined = undefined as grpc.GrpcContext<{ id: string }> | undefined;
    expect(context).toBeUndefined();
    expect(store).toBeInstanceOf(middleware.MemoryStore);
    expect(new middleware.MemoryStore()).toBeInstanceOf(app.MemoryStore);
    class CountingStore extends app.MemoryStore {
      readonly kind = 'counting';
    }
    const sub = new CountingStore();
    expect([sub instanceof middleware.MemoryStore, sub instanceof CountingStore, sub.kind]).toEqual([true, true, 'counting']);
    const error = new app.GrpcError(5, 'gone');
    expect([error instanceof grpc.GrpcError, error instanceof Error, error.message]).toEqual([true, true, 'gone']);
    expect(() => (app.MemoryStore as unknown as () => unknown)()).toThrow(TypeError);
  });

  it("answers as the package does: a root function is the package's", async () => {
    const viaRoot = app.requireRole('admin');
    const direct = middleware.requireRole('admin');
    expect(metaOf(viaRoot)).toEqual(metaOf(direct));
    expect(app.rolesOf({ roles: ['a', 'b'] })).toEqual(['a', 'b']);
    const pair = app.createHandler({}, (ctx) => ctx.json({ ok: true }));
    expect(pair).toHaveLength(2);
    const target = app.createApp();
    target.get('/ping', (ctx) => ctx.json({ pong: true }));
    expect(Object.keys(app.openapi(target).paths)).toEqual(['/ping']);
  });

  it("gives authenticate's configure and route meta as the package's own (it is middleware as it stands)", () => {
    expect(app.authenticate.configure).toBe(middleware.authenticate.configure);
    expect(metaOf(app.authenticate)).toBe(metaOf(middleware.authenticate));
    expect(metaOf(app.authenticate)).toEqual({ auth: true });
  });

  it('serves a route guarded by the root authenticate, as middleware as it stands and as a factory', async () => {
    const target = app.createApp();
    const verifier = (token: string): { sub: string } | undefined => (token === 'good' ? { sub: 'ada' } : undefined);
    target.get('/me', app.authenticate(verifier), (ctx) => ctx.json(ctx.user));
    target.get('/bare', app.authenticate, (ctx) => ctx.json(ctx.user));
    app.authenticate.configure(verifier);
    try {
      expect((await target.inject({ url: '/me', headers: { authorization: 'Bearer good' } })).json()).toEqual({ sub: 'ada' });
      expect((await target.inject({ url: '/me' })).statusCode).toBe(401);
      expect((await target.inject({ url: '/bare', headers: { authorization: 'Bearer good' } })).json()).toEqual({ sub: 'ada' });
      expect((await target.inject({ url: '/bare', headers: { authorization: 'Bearer bad' } })).statusCode).toBe(401);
      const paths = app.openapi(target).paths;
      expect(paths['/bare']?.get?.security).toEqual([{ bearerAuth: [] }]);
      expect(paths['/me']?.get?.security).toEqual([{ bearerAuth: [] }]);
    } finally {
      app.authenticate.configure(null);
    }
  });

  it('declares every value and type of every package in its published types', () => {
    const declared = new Set(declaredExports(dist('app')));
    const expected = [...TYPES, 'createApp', 'emit', ...OWNERS.flatMap((owner) => declaredExports(dist(owner)))];
    expect(expected.filter((name) => !declared.has(name))).toEqual([]);
  });
});

describe('the @fw/app/<package> subpaths', () => {
  const names = OWNERS.map((name) => [name, name] as const);

  it.each(names)("@fw/app/%s exports every value of @fw/%s, as the package's very objects", async (name) => {
    const scoped = valuesOf(name);
    const sub = await subpaths[name]();
    expect(sorted(Object.keys(sub))).toEqual(sorted(Object.keys(scoped)));
    for (const key of Object.keys(scoped)) expect([key, sub[key] === scoped[key]]).toEqual([key, true]);
  });

  it.each(names)('@fw/app/%s declares every name @fw/%s declares, types included', (name) => {
    expect(sorted(declaredExports(dist('app', name)))).toEqual(sorted(declaredExports(dist(name))));
  });

  it('leaves no scoped package out', () => {
    const manifest = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    const dependencies = Object.keys(manifest.dependencies);
    expect(sorted(dependencies.map((dep) => dep.replace('@fw/', '')))).toEqual(sorted(Object.keys(SCOPED)));
  });
});
