import * as grpc from '@grpc/grpc-js';
import { Application, createContextKey, HTTPError, type Middleware, type Next, type RequestContext } from '@fw/core';
import type { PluginHost } from '@fw/core/plugin';
import { GrpcContext, grpcPlugin, type GrpcUnaryHandler } from '../src/index.js';
import { client, failure, PROTO, start, stop, unary, type EchoReply, type EchoRequest, type Started } from './helpers.js';

const TENANT = createContextKey<string>('test.tenant', { default: 'public' });

describe('the gRPC call context as a RequestContext', () => {
  interface Seen {
    protocol: string;
    method: string;
    path: string;
    procedure: RequestContext['procedure'];
    statusCode: number;
    tenantAfter: string;
  }
  const seen: Seen[] = [];
  let server: Started;
  let echo: grpc.Client;

  // Typed on the protocol-neutral context: the same function would run on REST and GraphQL.
  const record: Middleware<RequestContext> = async (ctx, next) => {
    const entry: Seen = { protocol: ctx.protocol, method: ctx.method, path: ctx.path, procedure: ctx.procedure, statusCode: 0, tenantAfter: '' };
    seen.push(entry);
    try {
      await next();
    } finally {
      entry.statusCode = ctx.statusCode;
      entry.tenantAfter = ctx.get(TENANT);
    }
  };
  const tenant: Middleware<RequestContext> = (ctx, next) => {
    const header = ctx.headers['x-tenant'];
    if (typeof header === 'string') ctx.set(TENANT, header);
    return next();
  };

  const Unary: GrpcUnaryHandler<EchoRequest, Partial<EchoReply>> = (call) => {
    if (call.request.message === 'fail') throw new HTTPError(409, 'Taken');
    return { message: call.ctx.get(TENANT), peer: call.ctx.ip };
  };

  beforeAll(async () => {
    server = await start({ services: { 'fwtest.Echo': { Unary } }, middleware: [record, tenant] }, undefined, { trustProxy: 1 });
    echo = client(server.target);
  });

  afterAll(() => stop(server, echo));
  beforeEach(() => void (seen.length = 0));

  it("says method 'POST' (the HTTP verb gRPC runs on), the RPC path in path and the called RPC in procedure", async () => {
    await unary(echo, 'Unary', {});
    expect(seen).toEqual([
      {
        protocol: 'grpc',
        method: 'POST',
        path: '/fwtest.Echo/Unary',
        procedure: { service: 'fwtest.Echo', method: 'Unary', type: 'unary' },
        statusCode: 200,
        tenantAfter: 'public',
      },
    ]);
  });

  it('keeps a variable set with ctx.set for ctx.get in later middleware and the handler', async () => {
    const { reply } = await unary(echo, 'Unary', {}, { metadata: { 'x-tenant': 'acme' } });
    expect(reply.message).toBe('acme');
    expect(seen[0]!.tenantAfter).toBe('acme');
  });

  it("answers ctx.get with the key's default on a call that did not set it", async () => {
    const { reply } = await unary(echo, 'Unary', {});
    expect(reply.message).toBe('public');
  });

  it('reports the HTTP equivalent of the gRPC status as statusCode', async () => {
    const err = await failure(unary(echo, 'Unary', { message: 'fail' }));
    expect(err.code).toBe(grpc.status.ALREADY_EXISTS);
    expect(seen[0]!.statusCode).toBe(409);
  });

  it("believes x-forwarded-for metadata as far as the app's trustProxy allows", async () => {
    const { reply } = await unary(echo, 'Unary', {}, { metadata: { 'x-forwarded-for': '198.51.100.1, 203.0.113.7' } });
    expect(reply.peer).toBe('203.0.113.7');
  });

  it('exposes no underscore members on the context', async () => {
    let keys: string[] = [];
    const Probe: GrpcUnaryHandler<EchoRequest, Partial<EchoReply>> = (call) => {
      keys = [...Object.keys(call.ctx), ...Object.getOwnPropertyNames(Object.getPrototypeOf(call.ctx) as object)];
      return {};
    };
    const probe = await start({ services: { 'fwtest.Echo': { Unary: Probe } } });
    const c = client(probe.target);
    try {
      await unary(c, 'Unary', {});
      expect(keys).toContain('setHeader');
      expect(keys.filter((k) => k.startsWith('_'))).toEqual([]);
    } finally {
      c.close();
      await probe.app.close();
    }
  });
});

describe('middleware registered after listen()', () => {
  const Unary: GrpcUnaryHandler<EchoRequest, Partial<EchoReply>> = (call) => ({
    message: ((call.ctx.state.marks as string[] | undefined) ?? []).join(','),
  });

  it("runs an app.use() middleware added after listen on the next call, with middleware: 'global'", async () => {
    const server = await start({ services: { 'fwtest.Echo': { Unary } }, middleware: 'global' }, (app) =>
      app.use((ctx, next) => ((ctx.state.marks = ['first']), next())),
    );
    const echo = client(server.target);
    try {
      expect((await unary(echo, 'Unary', {})).reply.message).toBe('first');
      server.app.use((ctx, next) => ((ctx.state.marks as string[]).push('late'), next()));
      expect((await unary(echo, 'Unary', {})).reply.message).toBe('first,late');
      expect((await unary(echo, 'Unary', {})).reply.message).toBe('first,late');
    } finally {
      echo.close();
      await server.app.close();
    }
  });

  it('runs a wrapper added after listen on the next call', async () => {
    let host: PluginHost | undefined;
    const server = await start({ services: { 'fwtest.Echo': { Unary } } }, (app) =>
      app.register({ name: 'late-wrapper', setup: (h) => void (host = h) }),
    );
    const echo = client(server.target);
    try {
      expect((await unary(echo, 'Unary', {})).reply.message).toBe('');
      host!.wrap((ctx: RequestContext, next: Next) => ((ctx.state.marks = ['wrapped']), next()));
      expect((await unary(echo, 'Unary', {})).reply.message).toBe('wrapped');
    } finally {
      echo.close();
      await server.app.close();
    }
  });
});

describe('where the gRPC plugin logs', () => {
  it("reports server errors through the app's onLog when the gRPC config names no onLog of its own", async () => {
    const logs: string[] = [];
    const app = new Application({ onLog: (message) => logs.push(message) });
    const Unary: GrpcUnaryHandler = () => {
      throw new Error('database down');
    };
    const plugin = grpcPlugin({ port: 0, host: '127.0.0.1', protoPath: PROTO, services: { 'fwtest.Echo': { Unary } } });
    app.register(plugin);
    await app.listen(0, '127.0.0.1');
    const echo = client(plugin.address!.target);
    try {
      const err = await failure(unary(echo, 'Unary', {}));
      expect(err.code).toBe(grpc.status.INTERNAL);
      expect(logs).toEqual(['Error on /fwtest.Echo/Unary']);
    } finally {
      echo.close();
      await app.close();
    }
  });

  it('lets an instanceof check narrow a RequestContext to the gRPC context', async () => {
    const codes: Array<number | undefined> = [];
    const Unary: GrpcUnaryHandler = () => ({});
    const server = await start({ services: { 'fwtest.Echo': { Unary } } }, (app) =>
      app.register({
        name: 'codes',
        setup: (h) =>
          void h.wrap(async (ctx: RequestContext, next: Next) => {
            await next();
            if (ctx instanceof GrpcContext) codes.push(ctx.protocolStatus);
          }),
      }),
    );
    const echo = client(server.target);
    try {
      await unary(echo, 'Unary', {});
      expect(codes).toEqual([grpc.status.OK]);
    } finally {
      echo.close();
      await server.app.close();
    }
  });
});

describe("the gRPC context's names", () => {
  it("names the called RPC and its status once, with core's neutral members", () => {
    const members = Object.getOwnPropertyNames(GrpcContext.prototype);
    expect(members).toEqual(expect.arrayContaining(['procedure', 'protocolStatus', 'protocolStatusOf']));
    expect(members.filter((name) => name === 'rpc' || name === 'grpcCode')).toEqual([]);
  });
});
