import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import * as app from '@fw/app';
import * as appCore from '@fw/app/core';
import * as appGraphql from '@fw/app/graphql';
import * as appGrpc from '@fw/app/grpc';
import * as appMetrics from '@fw/app/metrics';
import * as appMiddleware from '@fw/app/middleware';
import * as appOpenapi from '@fw/app/openapi';
import * as appTracing from '@fw/app/tracing';
import * as appValidate from '@fw/app/validate';
import * as core from '@fw/core';
import * as graphql from '@fw/graphql';
import * as grpc from '@fw/grpc';
import * as metrics from '@fw/metrics';
import * as middleware from '@fw/middleware';
import * as openapi from '@fw/openapi';
import * as tracing from '@fw/tracing';
import * as validate from '@fw/validate';
import * as grpcLib from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import * as graphqlLib from 'graphql';
import * as zod from 'zod';
import { SHOP_PROTO } from './support.js';

// One module instance per package, whichever loader loads it: a project that depends on the built
// packages (linked into its node_modules, as a package manager installs them) runs the same
// program (fixtures/loaders/checks.cjs) as an ES module, with require, under tsx in an ES module
// project and in a CommonJS one, and bundled by esbuild; jest runs it here, in its own registry.
// Every loader must see `@fw/app`'s names as the packages' own objects, and every error thrown by
// core, middleware, validate, graphql and grpc code as an `HTTPError` of the one `@fw/core`.

const execFileAsync = promisify(execFile);
const APP_DIR = join(__dirname, '..');
const PACKAGES_DIR = join(APP_DIR, '..');
const CHECKS = join(__dirname, 'fixtures', 'loaders', 'checks.cjs');
const FW = ['app', 'core', 'graphql', 'grpc', 'metrics', 'middleware', 'openapi', 'tracing', 'validate'];
const SCOPED = FW.filter((name) => name !== 'app');
/** What the program imports besides the fw packages: the user's own copies of the libraries. */
const LIBRARIES = { graphqlLib: 'graphql', grpcLib: '@grpc/grpc-js', protoLoader: '@grpc/proto-loader', zod: 'zod' };
/**
 * Left out of the bundle, as projects that bundle a gRPC server do: grpc-health-check and
 * @grpc/reflection read their .proto files from their own folder at run time, and the rest of the
 * gRPC stack stays beside them so that it exists once. Linked into the project for the bundle.
 */
const GRPC_STACK = ['@grpc/grpc-js', '@grpc/proto-loader', '@grpc/reflection', 'grpc-health-check', 'protobufjs'];
const ident = (name: string): string => name.replace(/\W/g, '_');

/** The program's imports as ES module syntax (also what tsx compiles and esbuild bundles). */
function esmHeader(): string {
  const lines = [...FW.map((name) => `import * as ${name} from '@fw/${name}';`), ...SCOPED.map((name) => `import * as sub_${name} from '@fw/app/${name}';`)];
  for (const [binding, spec] of Object.entries(LIBRARIES)) lines.push(`import * as ${binding} from '${spec}';`);
  lines.push(`import check from './checks.cjs';`);
  return lines.join('\n');
}

/** The program's imports as require() calls. */
function cjsHeader(): string {
  const lines = [...FW.map((name) => `const ${name} = require('@fw/${name}');`), ...SCOPED.map((name) => `const sub_${name} = require('@fw/app/${name}');`)];
  for (const [binding, spec] of Object.entries(LIBRARIES)) lines.push(`const ${binding} = require('${spec}');`);
  lines.push(`const check = require('./checks.cjs');`);
  return lines.join('\n');
}

const PROGRAM_BODY = `
const m = { ${FW.map(ident).join(', ')}, sub: { ${SCOPED.map((name) => `${name}: sub_${name}`).join(', ')} }, ${Object.keys(LIBRARIES).join(', ')}, protoPath: ${JSON.stringify(SHOP_PROTO)} };
check(m).then(
  (result) => { process.stdout.write('RESULT ' + JSON.stringify(result) + '\\n'); process.exit(0); },
  (error) => { process.stderr.write(String(error && error.stack) + '\\n'); process.exit(1); },
);
`;

interface Checked {
  identity: string[];
  errors: Record<string, unknown>;
}

let root: string;
const project = (kind: 'esm' | 'cjs'): string => join(root, kind);

/** A node_modules entry linked to the real directory of `target` (its own dependencies resolve from there). */
function link(name: string, target: string): void {
  const at = join(root, 'node_modules', name);
  mkdirSync(dirname(at), { recursive: true });
  symlinkSync(realpathSync(target), at, 'dir');
}

async function run(args: string[], cwd: string): Promise<Checked> {
  // Without NODE_PATH (the package manager's bin shims set one): modules resolve as in a user's project.
  const { NODE_PATH: _nodePath, NODE_OPTIONS: _nodeOptions, ...env } = process.env;
  const { stdout } = await execFileAsync(process.execPath, args, { cwd, env: { ...env, NODE_ENV: 'production' }, maxBuffer: 16 * 1024 * 1024 });
  const line = stdout.split('\n').find((l) => l.startsWith('RESULT '));
  if (line === undefined) throw new Error(`no result from node ${args.join(' ')}:\n${stdout}`);
  return JSON.parse(line.slice('RESULT '.length)) as Checked;
}

const LOADERS: Array<[string, () => Promise<Checked>]> = [
  ['node x.mjs (ES module import)', () => run(['x.mjs'], project('esm'))],
  ['node x.cjs (require)', () => run(['x.cjs'], project('cjs'))],
  ['node --import tsx x.ts ("type": "module" project)', () => run(['--import', 'tsx', 'x.ts'], project('esm'))],
  ['node --import tsx x.ts (CommonJS project)', () => run(['--import', 'tsx', 'x.ts'], project('cjs'))],
  [
    'an esbuild bundle (--bundle --platform=node)',
    async () => {
      const esbuild = await import('esbuild');
      const outfile = join(project('esm'), 'bundle.cjs');
      await esbuild.build({ entryPoints: [join(project('esm'), 'x.mjs')], bundle: true, platform: 'node', external: GRPC_STACK, outfile, logLevel: 'error' });
      return run(['bundle.cjs'], project('esm'));
    },
  ],
  [
    'jest (its CommonJS registry, this process)',
    async () => {
      const m = {
        ...{ app, core, graphql, grpc, metrics, middleware, openapi, tracing, validate },
        sub: { core: appCore, graphql: appGraphql, grpc: appGrpc, metrics: appMetrics, middleware: appMiddleware, openapi: appOpenapi, tracing: appTracing, validate: appValidate },
        ...{ graphqlLib, grpcLib, protoLoader, zod },
        protoPath: SHOP_PROTO,
      };
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- the fixture is CommonJS for every loader, jest's included
      const check = require(CHECKS) as (mods: typeof m) => Promise<Checked>;
      return JSON.parse(JSON.stringify(await check(m))) as Checked;
    },
  ],
];

/** What every loader must see. */
const seen = (status: number, validationError = false) => ({ status, httpError: true, validationError });
const EXPECTED = {
  identity: [],
  errors: {
    statuses: { http: 409, missing: 404, json: 400, auth: 401, validate: 400 },
    caught: {
      '/http': seen(409),
      '/missing': seen(404),
      '/json': seen(400),
      '/auth': seen(401),
      '/validate': seen(400, true),
      '/shop.Items/Get': seen(401),
    },
    handled: { '/http': seen(409), '/missing': seen(404), '/json': seen(400), '/auth': seen(401), '/validate': seen(400, true) },
    graphql: { status: 200, data: { hello: 'world', secret: null }, codes: ['FORBIDDEN'] },
    grpc: { found: { id: 'a1', owner: 'ann' }, missing: { code: grpcLib.status.NOT_FOUND }, unauthenticated: { code: grpcLib.status.UNAUTHENTICATED } },
  },
};

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'fw-loaders-'));
  for (const name of FW) link(`@fw/${name}`, join(PACKAGES_DIR, name));
  for (const spec of [...Object.values(LIBRARIES), 'tsx']) link(spec, join(APP_DIR, 'node_modules', spec));
  for (const spec of GRPC_STACK.filter((name) => !Object.values<string>(LIBRARIES).includes(name))) link(spec, join(PACKAGES_DIR, 'grpc', 'node_modules', spec));
  for (const kind of ['esm', 'cjs'] as const) {
    mkdirSync(project(kind));
    writeFileSync(join(project(kind), 'package.json'), JSON.stringify({ name: `fw-loaders-${kind}`, private: true, type: kind === 'esm' ? 'module' : 'commonjs' }));
    copyFileSync(CHECKS, join(project(kind), 'checks.cjs'));
    // TypeScript as users write it: ES module syntax, compiled by tsx to the project's module kind.
    writeFileSync(join(project(kind), 'x.ts'), esmHeader() + PROGRAM_BODY);
  }
  writeFileSync(join(project('esm'), 'x.mjs'), esmHeader() + PROGRAM_BODY);
  writeFileSync(join(project('cjs'), 'x.cjs'), cjsHeader() + PROGRAM_BODY);
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

describe.each(LOADERS)('a program loaded by %s', (_loader, load) => {
  it("gets @fw/app's names as the packages' own objects, and every thrown error as an HTTPError of the one @fw/core", async () => {
    expect(await load()).toEqual(EXPECTED);
  }, 120_000);
});
