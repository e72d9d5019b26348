import { HTTPError, type Context, type Next } from '@fw/core';
import { markPerCall, withOriginPolicy } from '@fw/core/plugin';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { schema, serve, type Served } from './helpers.js';
import { collect } from './subscription-helpers.js';

// What the app admits on graphql-ws, through real sockets: the upgrade's Origin against the origin
// policies of the global middleware (a plain HTTP 403 before the handshake), and the middleware
// marked per call run for each operation the socket carries (its refusal that operation's `error`
// message, the socket open). Built on core's marks alone; @fw/app's tests use cors() and rateLimit().

const APP_ORIGIN = 'https://app.example';

let served: Served;
let wsUrl: string;
/** How often the connection middleware and the per-call middleware ran, and how many calls the quota lets through. */
const counts = { connections: 0, calls: 0, budget: 3 };
const clients: Client[] = [];

beforeAll(async () => {
  const rootValue = { hello: () => 'world', addTodo: ({ title }: { title: string }) => ({ id: String(counts.calls), title, done: false }) };
  served = await serve({ schema, rootValue }, (app) => {
    app.use(withOriginPolicy((_ctx: Context, next: Next) => next(), (origin) => origin === APP_ORIGIN));
    app.use((_ctx, next) => (counts.connections++, next()));
    app.use(
      markPerCall((_ctx: Context, next: Next) => {
        counts.calls++;
        if (counts.calls > counts.budget) throw new HTTPError(429, 'Too many requests, please try again later');
        return next();
      }),
    );
  });
  wsUrl = served.endpoint.replace(/^http/, 'ws');
});

afterAll(async () => {
  await Promise.all(clients.map(async (made) => made.dispose()));
  await served.close();
});

/** How the server answered an upgrade sent with `headers`: `open`, or the HTTP status it refused with. */
function upgrade(headers: Record<string, string>): Promise<number | 'open'> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(wsUrl, 'graphql-transport-ws', { headers });
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

describe('graphql-ws admission', () => {
  it("refuses an upgrade from an origin the app's origin policy does not admit with a plain 403, before the handshake", async () => {
    expect(await upgrade({ origin: 'https://evil.example', cookie: 'sid=alice' })).toBe(403);
    expect(await upgrade({ origin: 'null' })).toBe(403);
    expect(await upgrade({ origin: APP_ORIGIN, cookie: 'sid=alice' })).toBe('open');
    // A client that is not a browser sends no Origin.
    expect(await upgrade({ cookie: 'sid=alice' })).toBe('open');
  });

  it('runs the per-call middleware for each operation, not the connection; past the quota an operation gets a 429 error and the socket goes on', async () => {
    counts.connections = 0;
    counts.calls = 0;
    counts.budget = 3;
    let closed = false;
    // One socket all along: kept open between operations.
    const made = createClient({ url: wsUrl, webSocketImpl: WebSocket, retryAttempts: 0, lazy: true, lazyCloseTimeout: 60_000, on: { closed: () => (closed = true) } });
    clients.push(made);
    const results = [];
    for (let i = 0; i < 5; i++) {
      results.push(await collect(made.iterate({ query: 'mutation($t: String!) { addTodo(title: $t) { title } }', variables: { t: `todo ${i}` } })).catch((errors: unknown) => errors));
    }
    expect(results.slice(0, 3)).toEqual([0, 1, 2].map((i) => [{ data: { addTodo: { title: `todo ${i}` } } }]));
    const tooMany = [{ message: 'Too many requests, please try again later', extensions: { code: 'TOO_MANY_REQUESTS', status: 429 } }];
    expect(results.slice(3)).toEqual([tooMany, tooMany]);
    expect([counts.connections, counts.calls]).toEqual([1, 5]);
    // The same socket carries the next operation the quota lets through.
    counts.budget = 10;
    expect(await collect(made.iterate({ query: '{ hello }' }))).toEqual([{ data: { hello: 'world' } }]);
    expect([closed, counts.connections]).toEqual([false, 1]);
  });

  it('counts an HTTP request once, in the global chain as before', async () => {
    counts.calls = 0;
    counts.budget = 10;
    const res = await fetch(served.endpoint, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ hello }' }) });
    expect(await res.json()).toEqual({ data: { hello: 'world' } });
    expect(counts.calls).toBe(1);
  });
});
