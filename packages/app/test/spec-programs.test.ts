import * as grpc from '@grpc/grpc-js';
import { buildSchema } from 'graphql';
import { z } from 'zod';
import {
  authenticate,
  cors,
  createApp,
  createHandler,
  HTTPError,
  logger,
  rateLimit,
  requireRole,
  Router,
  validate,
  type Context,
  type GrpcUnaryHandler,
  type Middleware,
} from '@fw/app';
import { getItem, graphqlRequest, itemsClient, SHOP_PROTO } from './support.js';

// Programs written for the interface spec, as its users write them: every name from the one
// '@fw/app' import, the createApp options they pass, Koa-style middleware. Each runs over a real
// socket (REST and GraphQL with fetch, gRPC with a grpc-js client).

/** The token verifier such programs pass to `authenticate`: the token is the user id. */
const verifier = (token: string) => (token === 'bad' ? undefined : { sub: token, roles: token === 'admin' ? ['admin'] : [] });

/** Shared business logic, called from every protocol. */
const books = new Map([['1', { id: '1', title: 'The Dispossessed', owner: 'ursula' }]]);
function findBook(id: string) {
  const book = books.get(id);
  if (book === undefined) throw new HTTPError(404, `Book ${id} not found`);
  return book;
}

describe('a REST program written for the spec', () => {
  const lines: string[] = [];
  const app = createApp({
    host: '127.0.0.1',
    port: 0,
    cors: { origin: ['https://shop.example'] },
    middleware: [logger({ stream: { write: (line: string) => lines.push(line) } })],
  });
  // Error middleware: a try/catch around next() answers the conventional error body.
  const errors: Middleware<Context> = async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      const status = err instanceof HTTPError ? err.statusCode : 500;
      ctx.json({ error: true, message: err instanceof Error ? err.message : 'error', code: status, details: err instanceof HTTPError ? err.details : undefined }, status);
    }
  };
  app.use(errors);

  const api = new Router({ prefix: '/api' });
  api.group('/v1', (v1) => {
    v1.get('/books/:id', (ctx) => ctx.json(findBook(ctx.params.id)));
    v1.post(
      '/books',
      ...createHandler({ body: z.object({ title: z.string().min(1) }) }, (ctx) => {
        ctx.json({ id: '2', title: ctx.body.title }, 201);
      }),
    );
  });
  api.get('/search', validate({ query: z.object({ limit: z.coerce.number().int().max(10) }) }), (ctx) => ctx.json({ limit: ctx.query.limit }));
  api.get('/limited', rateLimit({ windowMs: 60_000, maxRequests: 1 }), (ctx) => ctx.text('ok'));
  api.get('/admin', authenticate(verifier), requireRole('admin'), (ctx) => ctx.json({ sub: (ctx.user as { sub: string }).sub }));
  app.use('/', api);
  let base = '';

  beforeAll(async () => {
    const info = await app.listen();
    base = `http://127.0.0.1:${info.port}`;
  });
  afterAll(() => app.close());

  it('listens on the host and port given to createApp', () => {
    expect(app.server?.address()).toMatchObject({ address: '127.0.0.1' });
  });

  it('serves grouped, prefixed routes and validates with createHandler and validate()', async () => {
    const found = await fetch(`${base}/api/v1/books/1`);
    expect([found.status, await found.json()]).toEqual([200, books.get('1')]);
    const created = await fetch(`${base}/api/v1/books`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"title":"Dune"}' });
    expect([created.status, await created.json()]).toEqual([201, { id: '2', title: 'Dune' }]);
    const invalid = await fetch(`${base}/api/v1/books`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"title":""}' });
    const body = (await invalid.json()) as { error: boolean; message: string; details: { errors: Array<{ field: string; code: string }> } };
    expect([invalid.status, body.error, body.message, body.details.errors.map((e) => [e.field, e.code])]).toEqual([400, true, 'Validation failed', [['body.title', 'too_small']]]);
    const query = await fetch(`${base}/api/search?limit=3`);
    expect(await query.json()).toEqual({ limit: 3 });
  });

  it('answers a thrown HTTPError through the error middleware with the conventional body', async () => {
    const missing = await fetch(`${base}/api/v1/books/9`);
    expect([missing.status, await missing.json()]).toEqual([404, { error: true, message: 'Book 9 not found', code: 404 }]);
  });

  it('runs the cors option first and the middleware option for every request', async () => {
    const preflight = await fetch(`${base}/api/v1/books`, { method: 'OPTIONS', headers: { origin: 'https://shop.example', 'access-control-request-method': 'POST' } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('https://shop.example');
    expect(lines.some((line) => line.includes('GET /api/v1/books/1'))).toBe(true);
  });

  it('sets the rate-limit headers and limits', async () => {
    const first = await fetch(`${base}/api/limited`);
    expect([first.status, first.headers.get('x-ratelimit-limit'), first.headers.get('x-ratelimit-remaining')]).toEqual([200, '1', '0']);
    const second = await fetch(`${base}/api/limited`);
    expect(second.status).toBe(429);
    expect(second.headers.get('retry-after')).toMatch(/^\d+$/);
  });

  it('authenticates bearer tokens and checks roles', async () => {
    expect((await fetch(`${base}/api/admin`)).status).toBe(401);
    expect((await fetch(`${base}/api/admin`, { headers: { authorization: 'Bearer reader' } })).status).toBe(403);
    const admin = await fetch(`${base}/api/admin`, { headers: { authorization: 'Bearer admin' } });
    expect([admin.status, await admin.json()]).toEqual([200, { sub: 'admin' }]);
  });
});

describe('createApp onError and onNotFound options', () => {
  it('answers with the handlers given to createApp, after app.use(cors())', async () => {
    const app = createApp({
      onError: (err: HTTPError, ctx: Context) => ctx.json({ failed: err.statusCode }, 503),
      onNotFound: (ctx: Context) => ctx.json({ nothing: ctx.path }, 404),
    });
    app.use(cors());
    app.get('/boom', () => {
      throw new Error('down');
    });
    const boom = await app.inject({ method: 'GET', url: '/boom' });
    expect([boom.statusCode, boom.json()]).toEqual([503, { failed: 500 }]);
    const none = await app.inject({ method: 'GET', url: '/nowhere', headers: { origin: 'https://any.example' } });
    expect([none.statusCode, none.json(), none.headers['access-control-allow-origin']]).toEqual([404, { nothing: '/nowhere' }, '*']);
  });
});

describe('a multi-protocol program written for the spec', () => {
  const schema = buildSchema(`
    type Book { id: ID!, title: String! }
    type Query { book(id: ID!): Book, me: String }
    type Mutation { rename(id: ID!, title: String!): Book }
  `);
  const app = createApp({
    adapter: { type: 'node-http' },
    protocols: {
      graphql: {
        schema,
        context: (req: { headers: Record<string, string | string[] | undefined> }) => ({ token: req.headers.authorization }),
        rootValue: {
          book: (args: { id: string }) => findBook(args.id),
          me: (_args: unknown, context: { token?: string }) => context.token ?? null,
          rename: (args: { id: string; title: string }) => ({ ...findBook(args.id), title: args.title }),
        },
      },
      grpc: {
        port: 0,
        host: '127.0.0.1',
        protoPath: SHOP_PROTO,
        services: {
          'shop.Items': {
            Get: ((call, callback) => {
              try {
                const book = findBook(call.request.id);
                callback(null, { id: book.id, owner: book.owner });
              } catch (err) {
                callback(err as Error);
              }
            }) satisfies GrpcUnaryHandler<{ id: string }, { id: string; owner: string }>,
          },
        },
      },
    },
  });
  app.get('/books/:id', (ctx) => ctx.json(findBook(ctx.params.id)));
  let base = '';
  let client: ReturnType<typeof itemsClient>;

  beforeAll(async () => {
    const info = await app.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${info.port}`;
    client = itemsClient(app.getProtocolManager()!.getGrpcAddress()!.target);
  });
  afterAll(async () => {
    client.close();
    await app.close();
  });

  it('exposes the GraphQL schema through the protocol manager', () => {
    expect(app.getProtocolManager()?.getGraphQLSchema()).toBe(schema);
  });

  it('answers the same book on REST, GraphQL and gRPC', async () => {
    expect(await (await fetch(`${base}/books/1`)).json()).toEqual(books.get('1'));
    expect((await graphqlRequest(`${base}/graphql`, '{ book(id: "1") { id title } }')).body).toEqual({ data: { book: { id: '1', title: 'The Dispossessed' } } });
    expect(await getItem(client, '1')).toEqual({ id: '1', owner: 'ursula' });
  });

  it('maps one HTTPError(404) to each protocol', async () => {
    expect((await fetch(`${base}/books/9`)).status).toBe(404);
    const gql = await graphqlRequest(`${base}/graphql`, '{ book(id: "9") { id } }');
    expect(gql.body.errors?.[0]).toMatchObject({ message: 'Book 9 not found', extensions: { code: 'NOT_FOUND' } });
    await expect(getItem(client, '9')).rejects.toMatchObject({ code: grpc.status.NOT_FOUND });
  });

  it('passes the raw request to the GraphQL context factory and runs mutations', async () => {
    expect((await graphqlRequest(`${base}/graphql`, '{ me }', { authorization: 'Bearer t' })).body).toEqual({ data: { me: 'Bearer t' } });
    expect((await graphqlRequest(`${base}/graphql`, 'mutation { rename(id: "1", title: "X") { title } }')).body).toEqual({ data: { rename: { title: 'X' } } });
  });
});
