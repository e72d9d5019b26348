import { connect as connectHttp2, type ClientHttp2Session } from 'node:http2';
import { connect } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createClient as createSseClient } from 'graphql-sse';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { startFeed, FEED_SUBSCRIPTION, type FeedInput, type FeedServer } from './streams-feed.js';
import { eventually } from './streams-support.js';

// A client that never reads, on each protocol (server-sent events, graphql-ws, a gRPC server
// stream), fed as fast as the server will send: the server stops pulling events once its buffer
// is full, ends the stream (its handler's finally runs) within streams.stallTimeout, having
// produced no more than maxBufferedBytes plus what the kernel's socket buffers hold; the process's
// heap stays bounded, and a client reading the same feed meanwhile keeps receiving.

const MAX_BUFFERED = 256 * 1024;
const STALL_MS = 1500;
/** maxBufferedBytes plus both kernels' socket buffers on loopback (a few MiB each at most). */
const PRODUCED_BOUND = 16 * 1024 * 1024;
const HEAP_BOUND = 64 * 1024 * 1024;
/** Ample on a loaded machine: a wait, not a bound. */
const WAIT_MS = 30_000;

// Full collections before each heap reading: otherwise it counts garbage a busy machine has not collected yet.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
jest.setTimeout(4 * WAIT_MS);
const HOSTILE: Omit<FeedInput, 'tag'> = { size: 16 * 1024, pace: 0 };
const READER: Omit<FeedInput, 'tag'> = { size: 256, pace: 5 };

const STALLED = new RegExp(`the client read nothing for ${STALL_MS} ms \\(streams.stallTimeout\\)`);
const OVER_BUFFER = new RegExp(`more than ${MAX_BUFFERED} bytes \\(streams.maxBufferedBytes\\) were waiting for the client`);
/** A protobuf varint. */
function varint(value: number): number[] {
  const bytes: number[] = [];
  do {
    let byte = value & 0x7f;
    value = Math.floor(value / 128);
    if (value > 0) byte |= 0x80;
    bytes.push(byte);
  } while (value > 0);
  return bytes;
}

/** FeedRequest { tag = 1; size = 2; pace = 3 } in protobuf. */
const feedRequest = (input: FeedInput): Buffer => {
  const tag = Buffer.from(input.tag);
  return Buffer.from([0x0a, ...varint(tag.length), ...tag, 0x10, ...varint(input.size), 0x18, ...varint(input.pace)]);
};

/** A gRPC message frame: not compressed, 4-byte big-endian length, payload. */
const grpcFrame = (payload: Buffer): Buffer => {
  const head = Buffer.alloc(5);
  head.writeUInt32BE(payload.length, 1);
  return Buffer.concat([head, payload]);
};

const query = (input: FeedInput): string => `tag=${input.tag}&size=${input.size}&pace=${input.pace}`;

describe('a client that never reads', () => {
  let feed: FeedServer;
  const logs: string[] = [];
  const cleanup: Array<() => void> = [];

  beforeAll(async () => {
    feed = await startFeed({ streams: { maxBufferedBytes: MAX_BUFFERED, stallTimeout: STALL_MS }, log: (message) => logs.push(message) });
  });

  afterEach(() => {
    for (const undo of cleanup.splice(0)) undo();
  });

  afterAll(async () => {
    await feed.close();
  });

  /** Runs `hostile` beside a reader on the same protocol; checks the bounds. */
  async function provesBounded(tag: string, reader: () => () => number, hostile: () => void, reason: RegExp): Promise<void> {
    const logged = logs.length;
    gc();
    const heapBefore = process.memoryUsage().heapUsed;
    const received = reader();
    await eventually(() => received() > 0, `${tag}: the reader's first event`);
    hostile();
    await eventually(() => feed.stats.get(tag)?.finished === true, `${tag}: the server ending the stream of the client that never reads`, STALL_MS + WAIT_MS);
    const produced = feed.stats.get(tag)!.bytes;
    gc();
    const heapGrowth = process.memoryUsage().heapUsed - heapBefore;
    console.log(`${tag}: produced ${(produced / 1024).toFixed(0)} KiB for the client that never reads before its stream ended; heap growth ${(heapGrowth / 1024 / 1024).toFixed(1)} MiB`);
    expect(produced).toBeLessThan(PRODUCED_BOUND);
    expect(heapGrowth).toBeLessThan(HEAP_BOUND);
    // The reader still receives.
    const before = received();
    await eventually(() => received() > before + 5, `${tag}: the reader to keep receiving`);
    expect(feed.stats.get(`${tag}-reader`)?.finished).toBe(false);
    // The reason is logged.
    expect(logs.slice(logged).join('\n')).toMatch(reason);
  }

  /** Small events wait in the kernel's buffers (the stream stops pulling): the stall ends it; an event larger than the bound that the socket cannot take: the bound does. */
  const cases = [
    { name: 'small events', size: 16 * 1024, sse: STALLED, ws: STALLED },
    { name: `events larger than maxBufferedBytes`, size: MAX_BUFFERED + 64 * 1024, sse: OVER_BUFFER, ws: OVER_BUFFER },
  ];

  it.each(cases)('over server-sent events ($name): ended, its handler finished, the reader unaffected', async ({ size, sse }) => {
    const tag = `sse-${size}`;
    await provesBounded(
      tag,
      () => {
        let bytes = 0;
        const socket = connect(feed.port, '127.0.0.1');
        socket.on('data', (chunk: Buffer) => (bytes += chunk.length));
        socket.write(`GET /feed?${query({ tag: `${tag}-reader`, ...READER })} HTTP/1.1\r\nHost: t\r\n\r\n`);
        cleanup.push(() => socket.destroy());
        return () => bytes;
      },
      () => {
        const socket = connect(feed.port, '127.0.0.1');
        socket.pause();
        socket.write(`GET /feed?${query({ tag, ...HOSTILE, size })} HTTP/1.1\r\nHost: t\r\n\r\n`);
        cleanup.push(() => socket.destroy());
      },
      sse,
    );
  }, 4 * WAIT_MS);

  it.each(cases)('over graphql-ws ($name): the socket closed, its subscription finished, the reader unaffected', async ({ size, ws }) => {
    const tag = `ws-${size}`;
    let closeCode: number | undefined;
    let hostileSocket: WebSocket | undefined;
    await provesBounded(
      tag,
      () => {
        let events = 0;
        const client = createClient({ url: `${feed.base.replace(/^http/, 'ws')}/graphql`, webSocketImpl: WebSocket, retryAttempts: 0 });
        const results = client.iterate({ query: FEED_SUBSCRIPTION, variables: { tag: `${tag}-reader`, ...READER } });
        void (async () => {
          for await (const _ of results) events++;
        })().catch(() => undefined);
        cleanup.push(() => {
          void results.return?.();
          void client.dispose();
        });
        return () => events;
      },
      () => {
        const socket = new WebSocket(`${feed.base.replace(/^http/, 'ws')}/graphql`, 'graphql-transport-ws');
        hostileSocket = socket;
        socket.on('open', () => socket.send(JSON.stringify({ type: 'connection_init' })));
        socket.on('message', (data) => {
          if ((JSON.parse((data as Buffer).toString()) as { type: string }).type !== 'connection_ack') return;
          socket.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query: FEED_SUBSCRIPTION, variables: { tag, ...HOSTILE, size } } }));
          socket.pause();
        });
        socket.on('close', (code) => (closeCode = code));
        socket.on('error', () => undefined);
        cleanup.push(() => socket.terminate());
      },
      ws,
    );
    // Reading again, the client finds its socket closed: 1008 when the close frame got through, else cut (1006).
    hostileSocket!.resume();
    await eventually(() => closeCode !== undefined, 'the hostile WebSocket to close', WAIT_MS);
    expect([1008, 1006]).toContain(closeCode);
  }, 4 * WAIT_MS);

  it('over a gRPC server stream (raw HTTP/2, its flow-control window never reopened): ended, its handler finished, the reader unaffected', async () => {
    // grpc-js's client reads on into its own memory when paused, so the client that never reads is raw HTTP/2.
    let session: ClientHttp2Session | undefined;
    await provesBounded(
      'grpc',
      () => {
        let events = 0;
        const call = feed.rpc({ tag: 'grpc-reader', ...READER });
        call.on('data', () => events++);
        call.on('error', () => undefined);
        cleanup.push(() => call.cancel());
        return () => events;
      },
      () => {
        session = connectHttp2(`http://${feed.app.getProtocolManager()!.getGrpcAddress()!.target}`);
        session.on('error', () => undefined);
        const stream = session.request({ ':method': 'POST', ':path': '/hostile.Feed/Feed', 'content-type': 'application/grpc', te: 'trailers' });
        stream.on('error', () => undefined);
        stream.pause();
        stream.end(grpcFrame(feedRequest({ tag: 'grpc', ...HOSTILE })));
        cleanup.push(() => session?.destroy());
      },
      new RegExp(`${STALLED.source}|${OVER_BUFFER.source}`),
    );
  }, 4 * WAIT_MS);

  // The bound is on what waits for the client, not on one event: an event larger than
  // maxBufferedBytes (within maxEventBytes) reaches a client that reads.
  describe('a client that reads, given events larger than maxBufferedBytes', () => {
    const input = (tag: string): FeedInput => ({ tag, size: MAX_BUFFERED + 64 * 1024, pace: 20 });
    const twoEvents = (received: () => number, tag: string): Promise<void> => eventually(() => received() >= 2, `${tag}: two large events`, WAIT_MS);

    // An event larger than maxBufferedBytes (within maxEventBytes) reaches a client that reads: the
    // bound holds the source back until the client takes what waits, it does not end the stream.
    it('receives them over server-sent events', async () => {
      let events = 0;
      let text = '';
      const socket = connect(feed.port, '127.0.0.1');
      socket.setEncoding('latin1');
      socket.on('data', (chunk: string) => {
        text += chunk;
        const frames = text.split('\n\n');
        text = frames.pop()!;
        events += frames.filter((frame) => frame.includes('data: {')).length;
      });
      socket.write(`GET /feed?${query(input('sse-large'))} HTTP/1.1\r\nHost: t\r\n\r\n`);
      cleanup.push(() => socket.destroy());
      await twoEvents(() => events, 'sse');
    });

    it('receives them over graphql-sse', async () => {
      let events = 0;
      const client = createSseClient({ url: `${feed.base}/graphql`, retryAttempts: 0 });
      const results = client.iterate({ query: FEED_SUBSCRIPTION, variables: input('gsse-large') });
      void (async () => {
        for await (const _ of results) events++;
      })().catch(() => undefined);
      cleanup.push(() => {
        void results.return?.();
        client.dispose();
      });
      await twoEvents(() => events, 'graphql-sse');
    });

    it('receives them over graphql-ws', async () => {
      let events = 0;
      const client = createClient({ url: `${feed.base.replace(/^http/, 'ws')}/graphql`, webSocketImpl: WebSocket, retryAttempts: 0 });
      const results = client.iterate({ query: FEED_SUBSCRIPTION, variables: input('ws-large') });
      void (async () => {
        for await (const _ of results) events++;
      })().catch(() => undefined);
      cleanup.push(() => {
        void results.return?.();
        void client.dispose();
      });
      await twoEvents(() => events, 'ws');
    });

    it('receives them over a gRPC server stream', async () => {
      let events = 0;
      const call = feed.rpc(input('grpc-large'));
      call.on('data', () => events++);
      call.on('error', () => undefined);
      cleanup.push(() => call.cancel());
      await twoEvents(() => events, 'grpc');
    });
  });
});
