import * as grpc from '@grpc/grpc-js';
import { buildSchema } from 'graphql';
import { createApp, HTTPError, type App, type AppOptions, type GrpcUnaryHandler } from '@fw/app';
import { authenticate } from '@fw/app/middleware';
import { getItem, graphqlRequest, itemsClient, SHOP_PROTO } from './support.js';

const schema = buildSchema(`type Query { hello: String, whoami: String }`);

/** A verifier for the tests: the token is the user id; "bad" is refused. */
const verify = (token: string) => (token === 'bad' ? undefined : { sub: token, roles: token === 'admin' ? ['admin'] : [] });

describe('createApp protocol options', () => {
  it('wires GraphQL and exposes its schema through the protocol manager', async () => {
    const app = createApp({ protocols: { graphql: { schema, rootValue: { hello: () => 'world' } } } });
    expect(app.getProtocolManager()?.getGraphQLSchema()).toBe(schema);
    expect(app.getProtocolManager()?.getGraphQLPath()).toBe('/graphql');
    const res = await app.inject({ method: 'POST', url: '/graphql', body: { query: '{ hello }' } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ data: { hello: 'world' } });
  });

  it('has no protocol manager when protocols are absent or switched off', () => {
    expect(createApp().getProtocolManager()).toBeUndefined();
    expect(createApp({ protocols: { graphql: false, grpc: false } }).getProtocolManager()).toBeUndefined();
  });

  it('accepts graphql: true (served from operations) and fails listen() when nothing names graphql', async () => {
    const app = createApp({ protocols: { graphql: true } });
    expect(() => app.getProtocolManager()?.getGraphQLSchema()).toThrow(/without a schema and no operation names graphql/);
    await expect(app.listen(0, '127.0.0.1')).rejects.toThrow(/without a schema and no operation names graphql/);
  });

  it('refuses gRPC on any adapter other than node-http, naming the rule', () => {
    const grpcConfig = { port: 0, protoPath: SHOP_PROTO, services: { 'shop.Items': { Get: () => ({ id: '1', owner: '' }) } } };
    expect(() => createApp({ adapter: { type: 'express' }, protocols: { grpc: grpcConfig } })).toThrow(/gRPC requires the HTTP adapter "node-http"/);
    expect(() => createApp({ adapter: { type: 'node-http' }, protocols: { grpc: grpcConfig } })).not.toThrow();
  });

  it('accepts grpc: true (served from operations), fails listen() with nothing to serve, and refuses unknown services at createApp time', async () => {
    const app = createApp({ protocols: { grpc: { port: 0, host: '127.0.0.1' } } });
    await expect(app.listen(0, '127.0.0.1')).rejects.toThrow(/gRPC/);
    expect(() => createApp({ protocols: { grpc: true } })).not.toThrow();
    expect(() => createApp({ protocols: { grpc: { port: 0, protoPath: SHOP_PROTO, services: { 'shop.Nope': {} } } } })).toThrow(/shop\.Nope/);
  });

  it('refuses an unknown adapter type', () => {
    expect(() => createApp({ adapter: { type: 'bun' } })).toThrow(/unknown adapter type "bun"/);
  });
});

describe('one app, three protocols, one middleware model (real sockets)', () => {
  let app: App;
  let url: string;
  let client: ReturnType<typeof itemsClient>;

  beforeAll(async () => {
    const options: AppOptions = {
      adapter: { type: 'node-http' },
      onLog: () => undefined,
      protocols: {
        graphql: {
          schema,
          rootValue: { hello: () => 'world', whoami: (_args: unknown, context: { user?: { sub: string } }) => context.user?.sub ?? null },
          context: (_req, ctx) => ({ user: ctx.user as { sub: string } | undefined }),
        },
        grpc: {
          port: 0,
          host: '127.0.0.1',
          protoPath: SHOP_PROTO,
          middleware: 'global',
          services: {
            'shop.Items': {
              Get: ((call, callback) => {
                if (call.request.id === 'missing') return callback(new HTTPError(404, 'No such item'));
                callback(null, { id: call.request.id, owner: (call.ctx.user as { sub: string }).sub });
              }) satisfies GrpcUnaryHandler<{ id: string }, { id: string; owner: string }>,
            },
          },
        },
      },
    };
    app = createApp(options);
    // One authentication middleware for every protocol: REST routes, the GraphQL path, gRPC calls.
    app.use(authenticate({ verifier: verify, optional: true }));
    app.use(async (ctx, next) => {
      if (ctx.path !== '/graphql' && ctx.protocol !== 'graphql' && ctx.user === undefined && ctx.path !== '/public') throw new HTTPError(401, 'Authentication required');
      await next();
    });
    app.get('/me', (ctx) => ctx.json({ user: (ctx.user as { sub: string }).sub }));
    app.get('/public', (ctx) => ctx.json({ ok: true }));
    const info = await app.listen(0, '127.0.0.1');
    url = info.url;
    client = itemsClient(app.getProtocolManager()!.getGrpcAddress()!.target);
  });

  afterAll(async () => {
    client?.close();
    await app?.close();
  });

  it('starts the gRPC server with listen() on its own port', () => {
    const address = app.getProtocolManager()!.getGrpcAddress()!;
    expect(address.port).toBeGreaterThan(0);
    expect(address.port).not.toBe(Number(new URL(url).port));
    expect(app.getProtocolManager()!.getProtocols()).toEqual(['http', 'graphql', 'grpc']);
  });

  it('authenticates REST requests with the Authorization header', async () => {
    expect((await fetch(`${url}/me`, { headers: { authorization: 'Bearer alice' } }).then((r) => r.json()))).toEqual({ user: 'alice' });
    const refused = await fetch(`${url}/me`);
    expect(refused.status).toBe(401);
    const bad = await fetch(`${url}/me`, { headers: { authorization: 'Bearer bad' } });
    expect(bad.status).toBe(401);
    expect(bad.headers.get('www-authenticate')).toMatch(/invalid_token/);
  });

  it('hands the user set by middleware to GraphQL resolvers', async () => {
    const res = await graphqlRequest(`${url}/graphql`, '{ whoami }', { authorization: 'Bearer bob' });
    expect(res).toEqual({ status: 200, body: { data: { whoami: 'bob' } } });
    const anonymous = await graphqlRequest(`${url}/graphql`, '{ whoami hello }');
    expect(anonymous.body.data).toEqual({ whoami: null, hello: 'world' });
  });

  it('runs the same middleware for gRPC calls, reading metadata', async () => {
    await expect(getItem(client, 'i1', 'carol')).resolves.toEqual({ id: 'i1', owner: 'carol' });
    await expect(getItem(client, 'i1')).rejects.toMatchObject({ code: grpc.status.UNAUTHENTICATED, details: 'Authentication required' });
    await expect(getItem(client, 'i1', 'bad')).rejects.toMatchObject({ code: grpc.status.UNAUTHENTICATED });
  });

  it('maps an HTTPError from a gRPC handler through the shared table', async () => {
    await expect(getItem(client, 'missing', 'carol')).rejects.toMatchObject({ code: grpc.status.NOT_FOUND, details: 'No such item' });
  });
});
