import { Application, HTTPError, tracked, type Middleware, type RequestContext } from '@fw/core';
import { createClient as createSseClient, type Client as SseClient } from 'graphql-sse';
import { createClient as createWsClient, type Client as WsClient } from 'graphql-ws';
import WebSocket from 'ws';
import { graphqlPlugin } from '../src/index.js';
import { defineTestOperation, defineTestStreamOperation, t } from './fixtures/operation.js';
import { collect } from './subscription-helpers.js';

// A streaming operation (stream: true, graphql: { type: 'subscription' }) on the wire: the same
// events in the same order over SSE (both modes) and WebSocket, the same refusals, and the
// handler's finally when the client leaves.

const OrderEvent = t.object({ orderId: t.id(), status: t.string() }, { name: 'OrderEvent' });

const seen = { finished: 0 };
let finishedWaiters: Array<() => void> = [];
const nextFinish = (): Promise<void> => new Promise((resolve) => finishedWaiters.push(resolve));

/** Refuses without a bearer token (401) and with the wrong one (403), once, when the stream opens. */
const requireAuth: Middleware<RequestContext> = async (ctx, next) => {
  const auth = ctx.headers.authorization;
  if (auth === undefined) throw new HTTPError(401, 'Sign in to follow orders');
  if (auth !== 'Bearer good') throw new HTTPError(403, 'Not your orders');
  await next();
};

const orderEvents = defineTestStreamOperation({
  name: 'orderEvents',
  input: t.object({ orderId: t.id(), follow: t.optional(t.boolean()) }),
  output: OrderEvent,
  graphql: { type: 'subscription' },
  middleware: [requireAuth],
  check: (input) => (input.orderId === 'unknown' ? [{ field: 'orderId', message: 'No such order' }] : []),
  async *handler(input, ctx) {
    const orderId = input.orderId as string;
    try {
      for (const status of ['placed', 'paid', 'shipped']) yield tracked(`${orderId}-${status}`, { orderId, status });
      if (input.follow === true) await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
    } finally {
      seen.finished++;
      const waiting = finishedWaiters;
      finishedWaiters = [];
      for (const resolve of waiting) resolve();
    }
  },
});

const ping = defineTestOperation({ name: 'ping', output: t.string(), graphql: { type: 'query' }, handler: () => 'pong' });

let app: Application;
let endpoint: string;
const clients: Array<SseClient | WsClient> = [];

beforeAll(async () => {
  app = new Application({ onLog: () => undefined });
  app.register(graphqlPlugin(true));
  app.operation(ping);
  app.operation(orderEvents);
  const info = await app.listen(0, '127.0.0.1');
  endpoint = `http://127.0.0.1:${info.port}/graphql`;
});

afterAll(async () => {
  await Promise.all(clients.map(async (client) => client.dispose()));
  await app.close();
});

const headers = { authorization: 'Bearer good' };
const transports: Array<[string, (auth?: string) => { iterate: SseClient['iterate'] | WsClient['iterate'] }]> = [
  ['SSE, distinct connections', (auth = headers.authorization) => remember<SseClient>(createSseClient({ url: endpoint, retryAttempts: 0, headers: auth === '' ? {} : { authorization: auth } }))],
  ['SSE, a single connection', (auth = headers.authorization) => remember(createSseClient({ url: endpoint, singleConnection: true, retryAttempts: 0, headers: auth === '' ? {} : { authorization: auth } }) as unknown as SseClient)],
  ['WebSocket', (auth = headers.authorization) => remember(createWsClient({ url: endpoint.replace(/^http/, 'ws'), webSocketImpl: WebSocket, retryAttempts: 0, lazy: true, connectionParams: auth === '' ? {} : { authorization: auth } }))],
];

function remember<T extends SseClient | WsClient>(client: T): T {
  clients.push(client);
  return client;
}

const QUERY = 'subscription ($orderId: ID!, $follow: Boolean) { orderEvents(orderId: $orderId, follow: $follow) { orderId status } }';

it('delivers the same events in the same order on every transport at once', async () => {
  const all = await Promise.all(transports.map(([, client]) => collect(client().iterate({ query: QUERY, variables: { orderId: 'o1' } }))));
  const expected = ['placed', 'paid', 'shipped'].map((status) => ({ data: { orderEvents: { orderId: 'o1', status } } }));
  for (const results of all) expect(results).toEqual(expected);
});

describe.each(transports)('over %s', (_name, client) => {
  it("runs the handler's finally when the client leaves", async () => {
    const finished = nextFinish();
    const iterator = client().iterate({ query: QUERY, variables: { orderId: 'o2', follow: true } });
    expect((await iterator.next()).value).toEqual({ data: { orderEvents: { orderId: 'o2', status: 'placed' } } });
    await iterator.return?.(undefined);
    await finished;
  });

  it("refuses before any event: the operation middleware's 401 and 403, and an input error (400 over SSE, BAD_USER_INPUT over WebSocket)", async () => {
    const refusal = async (auth: string, variables: Record<string, unknown>): Promise<unknown> => {
      try {
        await collect(client(auth).iterate({ query: QUERY, variables }));
      } catch (err) {
        return err;
      }
      return undefined;
    };
    const codes = async (auth: string, variables: Record<string, unknown>): Promise<unknown> => {
      const err = (await refusal(auth, variables)) as { response?: { status: number } } | Array<{ extensions: { code: string } }> | undefined;
      // graphql-ws's client throws the errors of the `error` message; graphql-sse's the refused response.
      return Array.isArray(err) ? err[0]?.extensions.code : err?.response?.status;
    };
    const refusals = [await codes('', { orderId: 'o3' }), await codes('Bearer bad', { orderId: 'o3' }), await codes('Bearer good', { orderId: 'unknown' })];
    expect(refusals).toEqual(_name === 'WebSocket' ? ['UNAUTHENTICATED', 'FORBIDDEN', 'BAD_USER_INPUT'] : [401, 403, 400]);
  });
});
