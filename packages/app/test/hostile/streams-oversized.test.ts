import * as grpc from '@grpc/grpc-js';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { startFeed, FEED_SUBSCRIPTION, type FeedServer } from './streams-feed.js';
import { latencies } from './streams-support.js';
import { send } from './support.js';

// Oversized messages on every streaming protocol: an event larger than streams.maxEventBytes is
// never sent (a server-sent event stream answers 500, a GraphQL subscription ends with an internal
// error then complete, a gRPC stream ends INTERNAL), a gRPC request larger than
// maxReceiveMessageLength is RESOURCE_EXHAUSTED before the handler runs; each with its reason, and
// the process answers the next request.

const MAX_EVENT = 64 * 1024;
const MAX_RECEIVE = 1024;
const OVER = MAX_EVENT + 1024;

describe('oversized stream messages', () => {
  let feed: FeedServer;
  const logs: string[] = [];

  beforeAll(async () => {
    feed = await startFeed({ streams: { maxEventBytes: MAX_EVENT }, grpc: { maxReceiveMessageLength: MAX_RECEIVE }, log: (message) => logs.push(message) });
  });

  afterEach(async () => {
    expect(await latencies(feed.port, '/ping', 3, 'pong')).toHaveLength(3);
  });

  afterAll(async () => {
    await feed.close();
  });

  it('a server-sent event over maxEventBytes: never sent, an error event with the error body, the handler finished', async () => {
    const reply = await send(feed.base, { path: `/feed?tag=sse-big&size=${OVER}&pace=0`, headers: { accept: 'text/event-stream' } });
    // The stream opened at once (headers before the first event): the failure is in the stream.
    expect(reply.status).toBe(200);
    const data = /event: error\ndata: (.*)\n/.exec(reply.text)?.[1];
    expect(JSON.parse(data ?? 'null')).toMatchObject({ error: true, message: 'Internal Server Error', code: 500 });
    expect(reply.text.length).toBeLessThan(1024);
    expect(feed.stats.get('sse-big')?.finished).toBe(true);
    expect(logs.join('\n')).toMatch(/maxEventBytes/);
  });

  it('a GraphQL event over maxEventBytes over graphql-ws: an internal error, then complete; the socket stays up', async () => {
    const client = createClient({ url: `${feed.base.replace(/^http/, 'ws')}/graphql`, webSocketImpl: WebSocket, retryAttempts: 0 });
    try {
      const results: unknown[] = [];
      for await (const result of client.iterate({ query: FEED_SUBSCRIPTION, variables: { tag: 'ws-big', size: OVER, pace: 0 } })) results.push(result);
      expect(results).toHaveLength(1);
      expect(results[0]).toMatchObject({ errors: [{ extensions: { status: 500 } }] });
      expect(JSON.stringify(results[0]).length).toBeLessThan(1024);
      // The same connection serves the next subscription.
      const next = client.iterate({ query: FEED_SUBSCRIPTION, variables: { tag: 'ws-small', size: 8, pace: 1 } });
      expect((await next.next()).value).toMatchObject({ data: { feed: { n: 0 } } });
      await next.return?.();
    } finally {
      await client.dispose();
    }
  });

  it('a gRPC stream event over maxEventBytes: INTERNAL, and a request over maxReceiveMessageLength: RESOURCE_EXHAUSTED before the handler', async () => {
    const status = (call: grpc.ClientReadableStream<unknown>): Promise<grpc.ServiceError | undefined> =>
      new Promise((resolve) => {
        call.on('data', () => undefined);
        call.on('error', resolve);
        call.on('end', () => resolve(undefined));
      });
    const big = await status(feed.rpc({ tag: 'grpc-big', size: OVER, pace: 0 }));
    expect(big?.code).toBe(grpc.status.INTERNAL);
    expect(feed.stats.get('grpc-big')?.finished).toBe(true);
    const tag = 'r'.repeat(MAX_RECEIVE * 2);
    const refused = await status(feed.rpc({ tag, size: 8, pace: 1 }));
    expect(refused?.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    expect(feed.stats.has(tag)).toBe(false);
  });
});
