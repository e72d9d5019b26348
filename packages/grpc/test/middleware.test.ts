import * as grpc from '@grpc/grpc-js';
import { HTTPError, type Middleware } from '@fw/core';
import { GrpcContext, type GrpcServerStreamHandler, type GrpcUnaryHandler } from '../src/index.js';
import { client, collect, failure, start, streams, unary, wrap, type EchoReply, type EchoRequest, type Started } from './helpers.js';

interface TestUser {
  sub: string;
  roles: string[];
}

// Written against core's HTTP Context, touching only the cross-protocol fields: the same function
// must guard REST routes and gRPC calls (the real `authenticate` lives in @fw/middleware).
const authenticate: Middleware = async (ctx, next) => {
  const header = ctx.headers.authorization;
  if (typeof header !== 'string' || !header.startsWith('Bearer ')) {
    throw new HTTPError(401, 'Missing bearer token', undefined, { headers: { 'WWW-Authenticate': 'Bearer realm="fw"' } });
  }
  const token = header.slice('Bearer '.length);
  if (token !== 'admin-token' && token !== 'viewer-token') throw new HTTPError(401, 'Invalid token');
  ctx.user = { sub: token === 'admin-token' ? 'ada' : 'bob', roles: token === 'admin-token' ? ['admin'] : ['viewer'] } satisfies TestUser;
  ctx.setHeader('x-authenticated', 'yes');
  await next();
};

const requireRole =
  (role: string): Middleware =>
  (ctx, next) => {
    if (!(ctx.user as TestUser | undefined)?.roles.includes(role)) throw new HTTPError(403, `Requires role ${role}`);
    return next();
  };

const WhoAmI: GrpcUnaryHandler<unknown, Partial<EchoReply>> = (call, callback) => {
  callback(null, { user: (call.ctx.user as TestUser).sub });
};

describe('authenticate-style middleware on gRPC calls', () => {
  let server: Started;
  let admin: grpc.Client;
  let echo: grpc.Client;
  let entered = 0;

  const ServerStream: GrpcServerStreamHandler<EchoRequest, Partial<EchoReply>> = (call) => {
    entered++;
    call.write({ user: (call.ctx.user as TestUser).sub });
    call.end();
  };

  beforeAll(async () => {
    server = await start(
      { services: { 'fwtest.Admin': { WhoAmI }, 'fwtest.Echo': { ServerStream } }, middleware: [authenticate, requireRole('admin')] },
      (app) => app.get('/me', authenticate, (ctx) => ctx.json({ sub: (ctx.user as TestUser).sub })),
    );
    admin = client(server.target, 'Admin');
    echo = client(server.target);
  });

  afterAll(async () => {
    admin.close();
    echo.close();
    await server.app.close();
  });

  it('accepts a call whose metadata carries a valid bearer token and fills ctx.user', async () => {
    const { reply, metadata } = await unary(admin, 'WhoAmI', {}, { metadata: { authorization: 'Bearer admin-token' } });
    expect(reply.user).toBe('ada');
    expect(metadata.get('x-authenticated')).toEqual(['yes']);
  });

  it('rejects a call without credentials with UNAUTHENTICATED and the WWW-Authenticate trailer', async () => {
    const err = await failure(unary(admin, 'WhoAmI', {}));
    expect(err.code).toBe(grpc.status.UNAUTHENTICATED);
    expect(err.details).toBe('Missing bearer token');
    expect(err.metadata.get('www-authenticate')).toEqual(['Bearer realm="fw"']);
  });

  it('rejects an invalid token with UNAUTHENTICATED', async () => {
    const err = await failure(unary(admin, 'WhoAmI', {}, { metadata: { authorization: 'Bearer forged' } }));
    expect(err.code).toBe(grpc.status.UNAUTHENTICATED);
    expect(err.details).toBe('Invalid token');
  });

  it('rejects a user without the role with PERMISSION_DENIED', async () => {
    const err = await failure(unary(admin, 'WhoAmI', {}, { metadata: { authorization: 'Bearer viewer-token' } }));
    expect(err.code).toBe(grpc.status.PERMISSION_DENIED);
    expect(err.details).toBe('Requires role admin');
  });

  it('runs the same middleware function unchanged on an HTTP route', async () => {
    expect((await server.app.inject({ url: '/me' })).statusCode).toBe(401);
    const ok = await server.app.inject({ url: '/me', headers: { authorization: 'Bearer viewer-token' } });
    expect(ok.json()).toEqual({ sub: 'bob' });
  });

  it('runs middleware before a streaming handler is entered: rejected calls never reach it', async () => {
    entered = 0;
    const err = await failure(collect(streams(echo).ServerStream({})));
    expect(err.code).toBe(grpc.status.UNAUTHENTICATED);
    expect(entered).toBe(0);
  });

  it('streams to an authenticated caller, with the headers middleware set sent as initial metadata', async () => {
    entered = 0;
    const metadata = new grpc.Metadata();
    metadata.set('authorization', 'Bearer admin-token');
    const call = streams(echo).ServerStream({}, metadata);
    const initial = new Promise<grpc.Metadata>((resolve) => call.on('metadata', resolve));
    expect((await collect(call)).map((r) => r.user)).toEqual(['ada']);
    expect((await initial).get('x-authenticated')).toEqual(['yes']);
    expect(entered).toBe(1);
  });
});

describe('which middleware runs for gRPC', () => {
  const Unary: GrpcUnaryHandler<EchoRequest, Partial<EchoReply>> = (call) => ({ message: (call.ctx.state.seen as string | undefined) ?? 'none' });

  const marker: Middleware = (ctx, next) => {
    ctx.state.seen = `global:${ctx.protocol}`;
    return next();
  };

  it('runs no app.use middleware by default', async () => {
    const server = await start({ services: { 'fwtest.Echo': { Unary } } }, (app) => app.use(marker));
    const echo = client(server.target);
    try {
      expect((await unary(echo, 'Unary', {})).reply.message).toBe('none');
    } finally {
      echo.close();
      await server.app.close();
    }
  });

  it("runs the app.use middleware with middleware: 'global'", async () => {
    const server = await start({ services: { 'fwtest.Echo': { Unary } }, middleware: 'global' }, (app) => app.use(marker));
    const echo = client(server.target);
    try {
      expect((await unary(echo, 'Unary', {})).reply.message).toBe('global:grpc');
    } finally {
      echo.close();
      await server.app.close();
    }
  });

  it("splices the global middleware in where 'global' stands in a list", async () => {
    const order: string[] = [];
    const first = (_ctx: GrpcContext, next: () => Promise<void>): Promise<void> => (order.push('grpc-first'), next());
    const server = await start({ services: { 'fwtest.Echo': { Unary } }, middleware: [first, 'global'] }, (app) =>
      app.use((ctx, next) => (order.push(`global-${ctx.protocol}`), next())),
    );
    const echo = client(server.target);
    try {
      await unary(echo, 'Unary', {});
      expect(order).toEqual(['grpc-first', 'global-grpc']);
    } finally {
      echo.close();
      await server.app.close();
    }
  });

  it('fails the call with the mapped status when middleware answers with ctx.json(body, 401) instead of calling next', async () => {
    const deny: Middleware = (ctx) => ctx.status(401).json({ error: true, message: 'No credentials' });
    const server = await start({ services: { 'fwtest.Echo': { Unary } }, middleware: [deny] });
    const echo = client(server.target);
    try {
      const err = await failure(unary(echo, 'Unary', {}));
      expect(err.code).toBe(grpc.status.UNAUTHENTICATED);
      expect(err.details).toBe('No credentials');
    } finally {
      echo.close();
      await server.app.close();
    }
  });

  it('fails with INTERNAL (logged) when middleware neither calls next nor answers', async () => {
    const server = await start({ services: { 'fwtest.Echo': { Unary } }, middleware: [() => undefined] });
    const echo = client(server.target);
    try {
      const err = await failure(unary(echo, 'Unary', {}));
      expect(err.code).toBe(grpc.status.INTERNAL);
      expect(server.logs.map((l) => (l.error as Error).message)).toEqual(['The middleware for /fwtest.Echo/Unary neither called next() nor answered the call']);
    } finally {
      echo.close();
      await server.app.close();
    }
  });
});

describe('host.wrap() wrappers around gRPC calls', () => {
  interface Seen {
    protocol: string;
    method: string;
    path: string;
    procedure: unknown;
    traceHeader: string | undefined;
    protocolStatus: number | undefined;
    statusCode: number;
    threw: string | undefined;
    order: string[];
  }
  const seen: Seen[] = [];
  let server: Started;
  let echo: grpc.Client;

  const Unary: GrpcUnaryHandler<EchoRequest, Partial<EchoReply>> = (call) => {
    call.ctx.state.order = [...((call.ctx.state.order as string[]) ?? []), 'handler'];
    if (call.request.message === 'missing') throw new HTTPError(404, 'No such thing');
    return { message: 'ok' };
  };
  const ServerStream: GrpcServerStreamHandler<EchoRequest, Partial<EchoReply>> = async function* () {
    yield { message: 'one' };
    yield { message: 'two' };
  };

  beforeAll(async () => {
    server = await start(
      {
        services: { 'fwtest.Echo': { Unary, ServerStream } },
        middleware: [
          (ctx: GrpcContext, next: () => Promise<void>) => {
            ctx.state.order = ['middleware'];
            if (ctx.headers['x-deny'] === '1') throw new HTTPError(401, 'Denied by middleware');
            return next();
          },
        ],
      },
      (app) =>
        wrap(app, async (ctx, next) => {
          const record: Seen = {
            protocol: ctx.protocol,
            method: ctx.method,
            path: ctx.path,
            procedure: ctx.procedure,
            traceHeader: ctx.headers['x-trace'] as string | undefined,
            protocolStatus: undefined,
            statusCode: 0,
            threw: undefined,
            order: [],
          };
          seen.push(record);
          try {
            await next();
          } catch (err) {
            record.threw = (err as Error).message;
            throw err;
          } finally {
            record.protocolStatus = ctx instanceof GrpcContext ? ctx.protocolStatus : undefined;
            record.statusCode = ctx.statusCode;
            record.order = (ctx.state.order as string[]) ?? [];
          }
        }),
    );
    echo = client(server.target);
  });

  afterAll(async () => {
    echo.close();
    await server.app.close();
  });

  beforeEach(() => {
    seen.length = 0;
  });

  it('sees the gRPC context and protocolStatus 0 / statusCode 200 after a successful call', async () => {
    await unary(echo, 'Unary', { message: 'hi' }, { metadata: { 'x-trace': 'abc' } });
    expect(seen).toEqual([
      {
        protocol: 'grpc',
        method: 'POST',
        path: '/fwtest.Echo/Unary',
        procedure: { service: 'fwtest.Echo', method: 'Unary', type: 'unary' },
        traceHeader: 'abc',
        protocolStatus: 0,
        statusCode: 200,
        threw: undefined,
        order: ['middleware', 'handler'],
      },
    ]);
  });

  it('sees the mapped protocolStatus and the error when the handler throws', async () => {
    await failure(unary(echo, 'Unary', { message: 'missing' }));
    expect(seen[0]).toMatchObject({ protocolStatus: grpc.status.NOT_FOUND, statusCode: 404, threw: 'No such thing' });
  });

  it('sees the mapped protocolStatus when middleware rejects the call', async () => {
    await failure(unary(echo, 'Unary', {}, { metadata: { 'x-deny': '1' } }));
    expect(seen[0]).toMatchObject({ protocolStatus: grpc.status.UNAUTHENTICATED, statusCode: 401, threw: 'Denied by middleware', order: ['middleware'] });
  });

  it('wraps UNIMPLEMENTED methods too', async () => {
    await failure(unary(echo, 'UnaryAsync', {}));
    expect(seen[0]).toMatchObject({ path: '/fwtest.Echo/UnaryAsync', protocolStatus: grpc.status.UNIMPLEMENTED, statusCode: 501 });
  });

  it('sees protocolStatus 0 only once a server stream has finished', async () => {
    const items = await collect(streams(echo).ServerStream({}));
    expect(items.map((i) => i.message)).toEqual(['one', 'two']);
    expect(seen[0]).toMatchObject({ procedure: { service: 'fwtest.Echo', method: 'ServerStream', type: 'serverStream' }, protocolStatus: 0, statusCode: 200 });
  });
});
