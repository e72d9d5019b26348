import { ROUTE_META, type Middleware } from '@fw/core';
import type { GrpcConfig } from '../src/index.js';
import { start, type Started } from './helpers.js';

const Unary = (_call: unknown, callback: (error: null, reply: object) => void): void => callback(null, {});

// Shaped like @fw/middleware's: `authenticate(verifier)` returns a function named `authenticate`
// that carries route meta `{ auth: true }`.
const authenticate: Middleware = Object.assign(async function authenticate(_ctx: unknown, next: () => Promise<void>) {
  await next();
}, { [ROUTE_META]: { auth: true } });
const guard: Middleware = Object.assign(function guard(_ctx: unknown, next: () => Promise<void>) {
  return next();
}, { [ROUTE_META]: { auth: true, roles: ['admin'] } });
const verifyJwt: Middleware = async function verifyJwt(_ctx, next) {
  await next();
};
const cors: Middleware = async function cors(_ctx, next) {
  await next();
};

async function warningsFor(global: Middleware[], config: Partial<GrpcConfig> = {}): Promise<string[]> {
  let server: Started | undefined;
  try {
    server = await start({ services: { 'fwtest.Echo': { Unary } }, ...config }, (app) => {
      for (const fn of global) app.use(fn);
    });
    return server.logs.filter((l) => l.message.startsWith('gRPC:')).map((l) => l.message);
  } finally {
    await server?.app.close();
  }
}

describe('start-up warnings', () => {
  it("warns when the app authenticates globally but gRPC does not run app middleware, naming middleware: 'global'", async () => {
    const warnings = await warningsFor([cors, authenticate]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('"authenticate"');
    expect(warnings[0]).toContain("middleware: 'global'");
  });

  it('recognises authentication by its route meta (requireRole-style) and by its name (verifyJwt)', async () => {
    const warnings = await warningsFor([guard, verifyJwt]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('"guard"');
    expect(warnings[0]).toContain('"verifyJwt"');
  });

  it("does not warn when gRPC runs the app's middleware", async () => {
    expect(await warningsFor([authenticate], { middleware: 'global' })).toEqual([]);
  });

  it('does not warn when the authentication middleware is listed for gRPC', async () => {
    expect(await warningsFor([authenticate], { middleware: [authenticate] })).toEqual([]);
  });

  it('does not warn about global middleware that does not authenticate', async () => {
    expect(await warningsFor([cors])).toEqual([]);
  });
});
