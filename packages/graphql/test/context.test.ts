import { HTTPError, type Context } from '@fw/core';
import type { IncomingMessage } from 'node:http';
import { gql, schema, serve, type Served } from './helpers.js';

interface AppContext {
  user: { id: string } | undefined;
  auth: string | undefined;
  requestId: string;
}

const rootValue = {
  whoami: (_args: unknown, context: AppContext) => context.user?.id ?? null,
  auth: (_args: unknown, context: AppContext) => context.auth ?? null,
  hello: (_args: unknown, context: AppContext) => context.requestId,
  addTodo: ({ title }: { title: string }) => ({ id: '1', title, done: false }),
};

describe('the context factory', () => {
  let served: Served;
  const calls: Array<{ req: IncomingMessage; ctx: Context }> = [];

  beforeAll(async () => {
    served = await serve(
      {
        schema,
        rootValue,
        // The documented form: the raw request for headers, the framework context for ctx.user.
        context: async (req, ctx): Promise<AppContext> => {
          calls.push({ req, ctx });
          if (req.headers.authorization === 'Bearer revoked') {
            throw new HTTPError(401, 'Token revoked', undefined, { headers: { 'www-authenticate': 'Bearer error="invalid_token"' } });
          }
          if (req.headers.authorization === 'Bearer crash') throw new Error('session store is down');
          await new Promise((resolve) => setImmediate(resolve));
          return { user: ctx.user as AppContext['user'], auth: req.headers.authorization, requestId: String(ctx.state.requestId) };
        },
      },
      (app) => {
        // A global authentication middleware: it runs before the GraphQL handler.
        app.use(async (ctx, next) => {
          ctx.state.requestId = `req-${calls.length + 1}`;
          const header = ctx.headers.authorization;
          if (header === 'Bearer blocked') throw new HTTPError(401, 'Unauthorized');
          if (typeof header === 'string' && header.startsWith('Bearer user-')) ctx.user = { id: header.slice('Bearer '.length) };
          await next();
        });
      },
    );
  });
  afterAll(() => served.close());

  it('gets the raw request, so resolvers can read the authorization header', async () => {
    const res = await gql(served.endpoint, { query: '{ auth }' }, { headers: { authorization: 'Bearer abc' } });
    expect(res.body).toEqual({ data: { auth: 'Bearer abc' } });
    const last = calls[calls.length - 1]!;
    expect(typeof last.req.headers).toBe('object');
    expect(last.req.url).toBe('/graphql');
  });

  it('gets the framework context, so a user set by middleware reaches resolvers', async () => {
    const res = await gql(served.endpoint, { query: '{ whoami hello }' }, { headers: { authorization: 'Bearer user-42' } });
    expect(res.body.data.whoami).toBe('user-42');
    expect(res.body.data.hello).toMatch(/^req-\d+$/);
    const last = calls[calls.length - 1]!;
    expect(last.ctx.protocol).toBe('graphql');
    expect(last.ctx.req).toBe(last.req);
  });

  it('is awaited when it is async, and called once per operation', async () => {
    const before = calls.length;
    const res = await gql(served.endpoint, { query: '{ hello whoami auth }' });
    expect(res.body.data.hello).toMatch(/^req-/);
    expect(calls.length).toBe(before + 1);
  });

  it('is not called for requests refused before execution', async () => {
    const before = calls.length;
    expect((await gql(served.endpoint, { query: '{ nope }' })).status).toBe(400);
    expect((await gql(served.endpoint, { query: 'mutation { addTodo(title: "x") { id } }' }, { method: 'GET' })).status).toBe(405);
    expect(calls.length).toBe(before);
  });

  it('refuses the request with the status and headers of an HTTPError it throws', async () => {
    const res = await gql(served.endpoint, { query: '{ whoami }' }, { headers: { authorization: 'Bearer revoked' } });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    expect(res.body).toEqual({ errors: [{ message: 'Token revoked', extensions: { code: 'UNAUTHENTICATED', status: 401 } }] });
  });

  it('masks an unexpected error it throws as a 500', async () => {
    const res = await gql(served.endpoint, { query: '{ whoami }' }, { headers: { authorization: 'Bearer crash' } });
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ errors: [{ message: 'Internal server error', extensions: { code: 'INTERNAL_SERVER_ERROR', status: 500 } }] });
  });

  it('is never reached when global middleware rejects the request', async () => {
    const before = calls.length;
    const res = await fetch(served.endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer blocked' },
      body: JSON.stringify({ query: '{ whoami }' }),
    });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ errors: [{ message: 'Unauthorized', extensions: { code: 'UNAUTHENTICATED', status: 401 } }] });
    expect(calls.length).toBe(before);
  });
});

describe('a fixed context value', () => {
  let served: Served;

  beforeAll(async () => {
    served = await serve({ schema, rootValue, context: { user: { id: 'static' }, auth: 'fixed', requestId: 'r' } });
  });
  afterAll(() => served.close());

  it('is passed to every resolver as it is', async () => {
    const res = await gql(served.endpoint, { query: '{ whoami auth hello }' });
    expect(res.body).toEqual({ data: { whoami: 'static', auth: 'fixed', hello: 'r' } });
  });
});

describe('global middleware on the GraphQL path', () => {
  let served: Served;
  const seen: string[] = [];

  beforeAll(async () => {
    served = await serve({ schema, rootValue: { hello: () => 'hi', addTodo: ({ title }: { title: string }) => ({ id: '9', title, done: false }) } }, (app) => {
      app.use(async (ctx, next) => {
        const started = ctx.protocol;
        await next();
        seen.push(`${started} ${ctx.method} ${ctx.path} ${ctx.statusCode}`);
        ctx.setHeader('x-response-status', String(ctx.statusCode));
      });
    });
  });
  afterAll(() => served.close());

  it('runs around the GraphQL handler and sees its status after next()', async () => {
    const ok = await gql(served.endpoint, { query: '{ hello }' });
    expect(ok.headers.get('x-response-status')).toBe('200');
    const bad = await gql(served.endpoint, { query: '{ hello' });
    expect(bad.headers.get('x-response-status')).toBe('400');
    expect(seen.slice(-2)).toEqual(['graphql POST /graphql 200', 'graphql POST /graphql 400']);
  });
});
