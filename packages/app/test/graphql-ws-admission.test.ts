import { buildSchema } from 'graphql';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { createApp, type App, type AppOptions } from '@fw/app';
import { cors, rateLimit } from '@fw/app/middleware';

// What the app's cors() and rateLimit() mean for GraphQL over WebSocket (graphql-ws with `ws`),
// through real sockets: browsers send the page's cookies with an upgrade from any site and apply
// no CORS to the answer, so the upgrade's Origin is held to cors() (a plain 403 before the
// handshake); and one socket carries any number of operations, so rateLimit() counts each.

const schema = buildSchema(`
  type Query { whoami: String }
  type Mutation { transfer(amount: Int!): String }
`);
/** Who the session cookie says the caller is: `sid=alice` is alice. */
const session = (cookie: string | undefined): string | undefined => (cookie?.includes('sid=alice') === true ? 'alice' : undefined);
const rootValue = {
  whoami: (_args: unknown, context: { user?: unknown }) => context.user ?? null,
  transfer: ({ amount }: { amount: number }, context: { user?: unknown }) => `${String(context.user)} sent ${amount}`,
};

const apps: App[] = [];
const clients: Client[] = [];

afterAll(async () => {
  await Promise.all(clients.map(async (client) => client.dispose()));
  await Promise.all(apps.map((app) => app.close()));
});

/** Starts an app serving the schema, with the session cookie read by a global middleware after `options.middleware`; resolves with its ws URL. */
async function serve(options: AppOptions): Promise<{ app: App; ws: string; http: string }> {
  const app = createApp({ onLog: () => undefined, health: false, shutdown: false, ...options, protocols: { graphql: { schema, rootValue, context: (_req, ctx) => ({ user: ctx.user }) } } });
  app.use((ctx, next) => {
    ctx.user = session(ctx.headers.cookie);
    return next();
  });
  apps.push(app);
  const info = await app.listen(0, '127.0.0.1');
  const http = `http://127.0.0.1:${info.port}/graphql`;
  return { app, ws: http.replace(/^http/, 'ws'), http };
}

/** How the server answered an upgrade sent with `headers`: `open`, or the HTTP status it refused with. */
function upgrade(url: string, headers: Record<string, string>): Promise<number | 'open'> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, 'graphql-transport-ws', { headers });
    socket.once('unexpected-response', (_req, res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    socket.once('open', () => {
      socket.close();
      resolve('open');
    });
    socket.once('error', reject);
  });
}

/** A graphql-ws client whose upgrade carries `headers` (a page's Origin and cookie), on one socket kept open between operations. */
function client(url: string, headers: Record<string, string> = {}, onClosed?: () => void): Client {
  class PageWebSocket extends WebSocket {
    constructor(address: string, protocols?: string | string[]) {
      super(address, protocols, { headers });
    }
  }
  const made = createClient({ url, webSocketImpl: PageWebSocket, retryAttempts: 0, lazy: true, lazyCloseTimeout: 60_000, on: { closed: () => onClosed?.() } });
  clients.push(made);
  return made;
}

/** The one result of an operation, or the errors it was refused with. */
async function run(made: Client, query: string): Promise<unknown> {
  try {
    const results: unknown[] = [];
    for await (const result of made.iterate({ query })) results.push(result);
    return results[0];
  } catch (errors) {
    return { refused: errors };
  }
}

describe("graphql-ws and the app's cors()", () => {
  it('refuses an upgrade from a foreign origin carrying the session cookie with 403, so its page runs no mutation', async () => {
    const { ws } = await serve({ middleware: [cors({ origin: 'https://app.example', credentials: true })] });
    expect(await upgrade(ws, { origin: 'https://evil.example', cookie: 'sid=alice' })).toBe(403);
    // The allowed origin, with its cookie, is the user.
    expect(await run(client(ws, { origin: 'https://app.example', cookie: 'sid=alice' }), 'mutation { transfer(amount: 5) }')).toEqual({ data: { transfer: 'alice sent 5' } });
    // A client that is not a browser sends no Origin.
    expect(await run(client(ws, { cookie: 'sid=alice' }), '{ whoami }')).toEqual({ data: { whoami: 'alice' } });
  });

  it('holds the upgrade to exactly what cors() lets a fetch of that page read: listed origins, cookies only with credentials: true', async () => {
    const { ws } = await serve({ middleware: [cors({ origin: 'https://app.example' })] });
    expect(await upgrade(ws, { origin: 'https://evil.example' })).toBe(403);
    expect(await upgrade(ws, { origin: 'https://app.example' })).toBe('open');
    expect(await upgrade(ws, { origin: 'https://app.example', cookie: 'sid=alice' })).toBe(403);
    const any = await serve({ cors: true });
    expect(await upgrade(any.ws, { origin: 'https://evil.example' })).toBe('open');
    expect(await upgrade(any.ws, { origin: 'https://evil.example', cookie: 'sid=alice' })).toBe(403);
  });

  it('without cors(), admits a foreign origin only without credentials, and the page of the server itself always', async () => {
    const { ws, http } = await serve({});
    expect(await upgrade(ws, { origin: 'https://evil.example', cookie: 'sid=alice' })).toBe(403);
    expect(await upgrade(ws, { origin: 'https://evil.example' })).toBe('open');
    expect(await upgrade(ws, { origin: new URL(http).origin, cookie: 'sid=alice' })).toBe('open');
  });
});

describe("graphql-ws and the app's rateLimit()", () => {
  it('counts every operation one socket carries, refusing those past the limit with a 429 error while the socket stays open', async () => {
    const { ws, http } = await serve({ middleware: [rateLimit({ maxRequests: 5 })] });
    // An HTTP request still counts once.
    const res = await fetch(http, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ whoami }' }) });
    expect([res.status, res.headers.get('x-ratelimit-remaining')]).toEqual([200, '4']);
    let closed = false;
    const made = client(ws, { cookie: 'sid=alice' }, () => (closed = true));
    const results: unknown[] = [];
    for (let i = 1; i <= 10; i++) results.push(await run(made, `mutation { transfer(amount: ${i}) }`));
    // The socket itself took none of the five: four are left for its operations.
    expect(results.slice(0, 4)).toEqual([1, 2, 3, 4].map((i) => ({ data: { transfer: `alice sent ${i}` } })));
    const tooMany = { refused: [{ message: 'Too many requests, please try again later', extensions: { code: 'TOO_MANY_REQUESTS', status: 429 } }] };
    expect(results.slice(4)).toEqual(Array.from({ length: 6 }, () => tooMany));
    expect(closed).toBe(false);
  });
});
