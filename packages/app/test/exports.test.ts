import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import * as app from '@fw/app';
import * as core from '@fw/core';
import * as graphql from '@fw/graphql';
import * as grpc from '@fw/grpc';
import * as middleware from '@fw/middleware';
import * as openapi from '@fw/openapi';
import * as tracing from '@fw/tracing';
import * as validate from '@fw/validate';

// What `@fw/app` claims to export: `createApp`, `emit` and the core names every app writes, as
// values; the types a user of createApp annotates. Its values load nothing beyond `@fw/core` (a
// REST-only app starts as fast as core alone: see lazy.test.ts), so the middleware, validation,
// operations and OpenAPI values come from their package or `@fw/app/<package>`, never the root.
const VALUES = {
  createApp: 'app',
  emit: 'app',
  Router: 'core',
  HTTPError: 'core',
  withMeta: 'core',
} as const;

/** Values a user finds under `@fw/app/<package>` and not at the root (each loads its package). */
const SUBPATH_ONLY = {
  middleware: ['cors', 'logger', 'rateLimit', 'authenticate', 'requireRole', 'jwtVerifier', 'MemoryStore', 'RedisStore'],
  validate: ['validate', 'createHandler', 'defineOperation'],
  openapi: ['describeRoute', 'openapiPlugin'],
} as const;

const TYPES = [
  // createApp and what it returns
  'App',
  'AppOptions',
  'ProtocolManager',
  'ProtocolManagerConfig',
  'TracingOptions',
  // emit() and `fw emit`
  'EmitKind',
  'EmitOptions',
  'EmitResult',
  'EmitTarget',
  'EmittedFile',
  // @fw/core: what handlers, middleware and routers are annotated with
  'Context',
  'Middleware',
  'Next',
  'Operation',
  'RequestContext',
  'Route',
  'RouteMeta',
  'RouterConfig',
  // the protocol options inside AppOptions, and the gRPC handler forms
  'GraphQLConfig',
  'GrpcBidiHandler',
  'GrpcClientStreamHandler',
  'GrpcConfig',
  'GrpcServerStreamHandler',
  'GrpcUnaryHandler',
  // the options of the exported factories
  'AuthenticateConfig',
  'CorsConfig',
  'JwtClaims',
  'JwtVerifierConfig',
  'LoggerConfig',
  'RateLimitConfig',
  'OpenAPIPluginConfig',
  'RouteDescription',
  'ValidationErrorEntry',
  'ValidationSchema',
  // operations: the definition a user writes, and what defineOperation returns
  'OperationDefinition',
];

const SCOPED = { core, graphql, grpc, middleware, openapi, tracing, validate } as const;

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

const sorted = (names: Iterable<string>): string[] => [...names].sort();

describe('the @fw/app barrel', () => {
  it('exports at run time exactly the values it claims', () => {
    expect(sorted(Object.keys(app))).toEqual(sorted(Object.keys(VALUES)));
  });

  it('re-exports each value as the very object of the scoped package that owns it', () => {
    for (const [name, owner] of Object.entries(VALUES)) {
      if (owner === 'app') continue;
      expect([name, (app as Record<string, unknown>)[name]]).toEqual([name, (SCOPED[owner] as Record<string, unknown>)[name]]);
      expect((app as Record<string, unknown>)[name]).toBe((SCOPED[owner] as Record<string, unknown>)[name]);
    }
  });

  it('leaves the middleware, validation and OpenAPI values to @fw/app/<package>, where each is its package\'s own', async () => {
    const subpaths = { middleware: await import('@fw/app/middleware'), validate: await import('@fw/app/validate'), openapi: await import('@fw/app/openapi') };
    for (const [pkg, names] of Object.entries(SUBPATH_ONLY) as Array<[keyof typeof SUBPATH_ONLY, readonly string[]]>) {
      for (const name of names) {
        expect([name, name in app]).toEqual([name, false]);
        expect((subpaths[pkg] as Record<string, unknown>)[name]).toBe((SCOPED[pkg] as Record<string, unknown>)[name]);
      }
    }
  });

  it('declares exactly the claimed values and types in its published types', () => {
    const declared = declaredExports(dist('app'));
    expect(sorted(declared)).toEqual(sorted([...Object.keys(VALUES), ...TYPES]));
  });
});

describe('the @fw/app/<package> subpaths', () => {
  const subpaths: Record<keyof typeof SCOPED, () => Promise<Record<string, unknown>>> = {
    core: () => import('@fw/app/core'),
    graphql: () => import('@fw/app/graphql'),
    grpc: () => import('@fw/app/grpc'),
    middleware: () => import('@fw/app/middleware'),
    openapi: () => import('@fw/app/openapi'),
    tracing: () => import('@fw/app/tracing'),
    validate: () => import('@fw/app/validate'),
  };

  const names = (Object.keys(SCOPED) as Array<keyof typeof SCOPED>).map((name) => [name, name] as const);

  it.each(names)('@fw/app/%s is exactly @fw/%s: every value, the same objects', async (name) => {
    const scoped = SCOPED[name] as Record<string, unknown>;
    const sub = await subpaths[name]();
    expect(sorted(Object.keys(sub))).toEqual(sorted(Object.keys(scoped)));
    for (const key of Object.keys(scoped)) expect(sub[key]).toBe(scoped[key]);
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
