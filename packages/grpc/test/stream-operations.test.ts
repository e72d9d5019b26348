import http2 from 'node:http2';
import * as grpc from '@grpc/grpc-js';
import protobuf from 'protobufjs';
import { HTTPError, tracked, type Middleware, type RequestContext } from '@fw/core';
import { GRPC_STATUS } from '../src/index.js';
import { t } from './fixtures/operation.js';
import { streamOperation } from './fixtures/stream-operation.js';
import { generatedClient, startOperations, type StartedOperations } from './operations-helpers.js';

const Tick = t.object({ n: t.int32(), note: t.optional(t.string()) }, 'Tick');

/** What the handlers did, per test. */
const seen = {
  started: 0,
  finallyRan: 0,
  yielded: 0,
  signalReason: undefined as unknown,
  lastEventId: undefined as string | undefined,
};

/** The event a message carries: the response message holds the named output in its field `tick`. */
function tickOf(message: Record<string, unknown>): unknown {
  return (message.tick as { n?: unknown } | undefined)?.n;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Resolves when the signal aborts. */
function aborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true })));
}

const requireToken: Middleware<RequestContext> = async (ctx, next) => {
  const token = ctx.headers.authorization;
  if (token === undefined) throw new HTTPError(401, 'Authentication required');
  if (token !== 'Bearer admin') throw new HTTPError(403, 'Insufficient permissions');
  await next();
};

const ticks = streamOperation<{ count: number; failAt?: number; mode?: string; unit?: string }>({
  name: 'ticks',
  input: t.object({ count: t.int32(), failAt: t.optional(t.int32()), mode: t.optional(t.string()), unit: t.optional(t.enum(['seconds', 'minutes'], 'Unit')) }),
  output: Tick,
  grpc: { service: 'clock.Ticker' },
  async *handler(input, ctx) {
    seen.started++;
    seen.lastEventId = ctx.lastEventId;
    try {
      for (let n = 1; n <= input.count; n++) {
        if (n === input.failAt) throw input.mode === 'plain' ? new Error('database password leaked') : new HTTPError(404, 'The clock stopped');
        seen.yielded++;
        if (input.mode === 'big') yield { n, note: 'x'.repeat(200 * 1024) };
        else if (input.mode === 'medium') yield { n, note: 'x'.repeat(100 * 1024) };
        else if (input.mode === 'huge') yield { n, note: 'x'.repeat(4096) };
        else if (input.mode === 'bad') yield { n: 'not a number' };
        else yield tracked(String(n), { n });
      }
      if (input.mode === 'wait') await aborted(ctx.signal);
    } finally {
      seen.signalReason = ctx.signal.aborted ? ctx.signal.reason : undefined;
      seen.finallyRan++;
    }
  },
});

const guarded = streamOperation<{ count: number }>({
  name: 'guardedTicks',
  input: t.object({ count: t.int32() }),
  output: Tick,
  middleware: [requireToken],
  grpc: { service: 'clock.Ticker' },
  async *handler(input) {
    seen.started++;
    for (let n = 1; n <= input.count; n++) yield { n };
  },
});

interface Outcome {
  messages: Array<Record<string, unknown>>;
  status: grpc.StatusObject;
}

function reset(): void {
  seen.started = 0;
  seen.finallyRan = 0;
  seen.yielded = 0;
  seen.signalReason = undefined;
  seen.lastEventId = undefined;
}

async function eventually(check: () => boolean, what: string, ms = 3000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await sleep(10);
  }
}

describe('streaming operations on gRPC (server streaming)', () => {
  let server: StartedOperations;
  let client: grpc.Client;

  function open(method: string, request: object, metadata = new grpc.Metadata(), options: grpc.CallOptions = {}): grpc.ClientReadableStream<Record<string, unknown>> {
    const fn = (client as unknown as Record<string, (r: object, m: grpc.Metadata, o: grpc.CallOptions) => grpc.ClientReadableStream<Record<string, unknown>>>)[method]!;
    return fn.call(client, request, metadata, options);
  }

  function collect(call: grpc.ClientReadableStream<Record<string, unknown>>): Promise<Outcome> {
    return new Promise((resolve) => {
      const messages: Array<Record<string, unknown>> = [];
      call.on('data', (message: Record<string, unknown>) => messages.push(message));
      call.on('error', () => undefined);
      call.on('status', (status: grpc.StatusObject) => resolve({ messages, status }));
    });
  }

  beforeAll(async () => {
    server = await startOperations([ticks, guarded], {}, undefined, { streams: { maxPerClient: 3, stallTimeout: 300, maxBufferedBytes: 256 * 1024, maxEventBytes: 150 * 1024 } });
    client = generatedClient(server.grpc.generateProtos(), 'clock.Ticker', server.target);
  });

  afterAll(async () => {
    client?.close();
    await server?.app.close();
  });

  beforeEach(reset);

  it('is a server-streaming RPC in the generated proto', () => {
    const file = server.grpc.generateProtos().find((f) => f.text.includes('service Ticker'))!;
    expect(file.text).toMatch(/rpc Ticks\s*\(\w+\) returns \(stream \w+\);/);
  });

  it('sends each event as one message, in order, then OK', async () => {
    const { messages, status } = await collect(open('Ticks', { count: 3 }));
    expect(messages.map((m) => tickOf(m))).toEqual([1, 2, 3]);
    expect(status.code).toBe(GRPC_STATUS.OK);
    expect(seen.finallyRan).toBe(1);
  });

  it.each([
    ['no credentials', undefined, GRPC_STATUS.UNAUTHENTICATED, 'Authentication required'],
    ['a token without the role', 'Bearer user', GRPC_STATUS.PERMISSION_DENIED, 'Insufficient permissions'],
  ])('refuses with a status and no message when the middleware refuses: %s', async (_, token, code, details) => {
    const metadata = new grpc.Metadata();
    if (token !== undefined) metadata.set('authorization', token);
    const { messages, status } = await collect(open('GuardedTicks', { count: 2 }, metadata));
    expect(messages).toEqual([]);
    expect(status).toMatchObject({ code, details });
    expect(seen.started).toBe(0);
  });

  it('serves the stream when the middleware lets it through', async () => {
    const metadata = new grpc.Metadata();
    metadata.set('authorization', 'Bearer admin');
    const { messages, status } = await collect(open('GuardedTicks', { count: 2 }, metadata));
    expect(messages.map((m) => tickOf(m))).toEqual([1, 2]);
    expect(status.code).toBe(GRPC_STATUS.OK);
  });

  it('refuses an invalid input with INVALID_ARGUMENT before any message, without running the handler', async () => {
    const { messages, status } = await collect(open('Ticks', { count: 1, unit: 7 }));
    expect(messages).toEqual([]);
    expect(status.code).toBe(GRPC_STATUS.INVALID_ARGUMENT);
    expect(seen.started).toBe(0);
  });

  it('ends the stream with the mapped status when the handler throws after some events', async () => {
    const { messages, status } = await collect(open('Ticks', { count: 5, fail_at: 3 }));
    expect(messages.map((m) => tickOf(m))).toEqual([1, 2]);
    expect(status).toMatchObject({ code: GRPC_STATUS.NOT_FOUND, details: 'The clock stopped' });
  });

  it('ends the stream with INTERNAL, never the message, for an unknown error or an event that does not match the output', async () => {
    const plain = await collect(open('Ticks', { count: 5, fail_at: 2, mode: 'plain' }));
    expect(plain.messages.map((m) => tickOf(m))).toEqual([1]);
    expect(plain.status).toMatchObject({ code: GRPC_STATUS.INTERNAL, details: 'Internal server error' });
    const bad = await collect(open('Ticks', { count: 2, mode: 'bad' }));
    expect(bad.messages).toEqual([]);
    expect(bad.status.code).toBe(GRPC_STATUS.INTERNAL);
    expect(server.logs.some((log) => String(log.error).includes('database password leaked'))).toBe(true);
  });

  it('ends the stream with INTERNAL when an event is larger than streams.maxEventBytes', async () => {
    const { messages, status } = await collect(open('Ticks', { count: 2, mode: 'big' }));
    expect(messages).toEqual([]);
    expect(status.code).toBe(GRPC_STATUS.INTERNAL);
  });

  it('passes the last-event-id metadata to the handler as ctx.lastEventId', async () => {
    const metadata = new grpc.Metadata();
    metadata.set('last-event-id', '41');
    await collect(open('Ticks', { count: 1 }, metadata));
    expect(seen.lastEventId).toBe('41');
  });

  it("aborts ctx.signal and runs the handler's finally when the client cancels", async () => {
    const call = open('Ticks', { count: 1, mode: 'wait' });
    const outcome = collect(call);
    await eventually(() => seen.yielded === 1, 'the first event');
    call.cancel();
    expect((await outcome).status.code).toBe(GRPC_STATUS.CANCELLED);
    await eventually(() => seen.finallyRan === 1, "the handler's finally");
    expect(seen.signalReason).toBeInstanceOf(Error);
  });

  it("answers DEADLINE_EXCEEDED when the deadline passes, and runs the handler's finally", async () => {
    const { messages, status } = await collect(open('Ticks', { count: 1, mode: 'wait' }, new grpc.Metadata(), { deadline: Date.now() + 300 }));
    expect(messages.map((m) => tickOf(m))).toEqual([1]);
    expect(status.code).toBe(GRPC_STATUS.DEADLINE_EXCEEDED);
    await eventually(() => seen.finallyRan === 1, "the handler's finally");
  });

  it('refuses a stream past streams.maxPerClient with RESOURCE_EXHAUSTED, and takes new ones once others ended', async () => {
    const calls = [open('Ticks', { count: 1, mode: 'wait' }), open('Ticks', { count: 1, mode: 'wait' }), open('Ticks', { count: 1, mode: 'wait' })];
    const outcomes = calls.map(collect);
    await eventually(() => seen.yielded === 3, 'three open streams');
    const refused = await collect(open('Ticks', { count: 1 }));
    expect(refused.messages).toEqual([]);
    expect(refused.status.code).toBe(GRPC_STATUS.RESOURCE_EXHAUSTED);
    expect(refused.status.details).toMatch(/Too many open streams/);
    for (const call of calls) call.cancel();
    await Promise.all(outcomes);
    await eventually(() => seen.finallyRan === 3, 'the handlers to finish');
    // Slots are given back once the handlers' finally has run.
    await sleep(20);
    const after = await collect(open('Ticks', { count: 1 }));
    expect(after.status.code).toBe(GRPC_STATUS.OK);
  });

  /** A raw HTTP/2 call that reads nothing: node's http2 then gives the server no flow-control window (a paused grpc-js client still takes messages into its own buffer). */
  function stalledCall(request: object): { reset: () => Promise<number>; close: () => void } {
    const file = server.grpc.generateProtos().find((f) => f.text.includes('service Ticker'))!;
    const Request = protobuf.parse(file.text, new protobuf.Root(), { keepCase: true }).root.lookupType('clock.TicksRequest');
    const body = Request.encode(request).finish();
    const frame = Buffer.alloc(5 + body.length);
    frame.writeUInt32BE(body.length, 1);
    Buffer.from(body).copy(frame, 5);
    const session = http2.connect(`http://${server.target}`);
    session.on('error', () => undefined);
    const stream = session.request({ ':method': 'POST', ':path': '/clock.Ticker/Ticks', 'content-type': 'application/grpc', te: 'trailers' });
    stream.on('error', () => undefined);
    stream.end(frame);
    stream.pause();
    const closed = new Promise<number>((resolve) => stream.once('close', () => resolve(stream.rstCode ?? -1)));
    return {
      // The RST_STREAM code the server ended the stream with, while the client still reads nothing.
      reset: () => closed,
      close() {
        stream.close();
        session.close();
      },
    };
  }

  it('stops pulling events from a client that does not read, ends the stream with RESOURCE_EXHAUSTED after streams.stallTimeout and runs the finally', async () => {
    const call = stalledCall({ count: 100_000, mode: 'huge' });
    try {
      await eventually(() => seen.finallyRan === 1, 'the stream to end', 5000);
      // Back-pressure: the handler was asked for what the buffers hold, not for 100,000 events (400 MB).
      expect(seen.yielded).toBeGreaterThan(0);
      expect(seen.yielded).toBeLessThan(200);
      expect(server.logs.filter((log) => log.message === 'Ended the stream of /clock.Ticker/Ticks: the client read nothing for 300 ms (streams.stallTimeout)')).toHaveLength(1);
      // The HTTP/2 stream itself is reset (ENHANCE_YOUR_CALM: RESOURCE_EXHAUSTED to a gRPC client), not
      // left open behind its unread buffer: a status would wait as long as the client does.
      expect(await call.reset()).toBe(http2.constants.NGHTTP2_ENHANCE_YOUR_CALM);
    } finally {
      call.close();
    }
  });

  it('ends the stream with RESOURCE_EXHAUSTED as soon as more than streams.maxBufferedBytes wait for the client', async () => {
    const call = stalledCall({ count: 100, mode: 'medium' });
    try {
      await eventually(() => seen.finallyRan === 1, 'the stream to end', 2000);
      expect(seen.yielded).toBeLessThanOrEqual(4); // 256 KiB / 100 KiB events
      expect(server.logs.some((log) => log.message.endsWith('more than 262144 bytes (streams.maxBufferedBytes) were waiting for the client'))).toBe(true);
      expect(await call.reset()).toBe(http2.constants.NGHTTP2_ENHANCE_YOUR_CALM);
    } finally {
      call.close();
    }
  });
});

describe('closing the app with gRPC streams open', () => {
  it("ends them with UNAVAILABLE and waits for the handlers' finally", async () => {
    reset();
    const server = await startOperations([ticks], {}, undefined, { streams: { stallTimeout: 2000 } });
    const client = generatedClient(server.grpc.generateProtos(), 'clock.Ticker', server.target);
    const call = (client as unknown as Record<string, (r: object) => grpc.ClientReadableStream<unknown>>).Ticks!.call(client, { count: 1, mode: 'wait' });
    const status = new Promise<grpc.StatusObject>((resolve) => {
      call.on('data', () => undefined);
      call.on('error', () => undefined);
      call.on('status', resolve);
    });
    await eventually(() => seen.yielded === 1, 'the stream to open');
    await server.app.close();
    expect(seen.finallyRan).toBe(1);
    expect(seen.signalReason).toBeInstanceOf(HTTPError);
    const ended = await status;
    expect(ended.code).toBe(GRPC_STATUS.UNAVAILABLE);
    client.close();
  });
});

describe('a gRPC stream past streams.maxDuration', () => {
  it("is ended with UNAVAILABLE (reconnect), after ctx.signal aborted and the handler's finally ran", async () => {
    reset();
    const server = await startOperations([ticks], {}, undefined, { streams: { maxDuration: 300 } });
    const client = generatedClient(server.grpc.generateProtos(), 'clock.Ticker', server.target);
    try {
      const call = (client as unknown as Record<string, (r: object) => grpc.ClientReadableStream<Record<string, unknown>>>).Ticks!.call(client, { count: 2, mode: 'wait' });
      const messages: unknown[] = [];
      const status = await new Promise<grpc.StatusObject>((resolve) => {
        call.on('data', (message: Record<string, unknown>) => messages.push(tickOf(message)));
        call.on('error', () => undefined);
        call.on('status', resolve);
      });
      expect(messages).toEqual([1, 2]);
      expect(status.code).toBe(GRPC_STATUS.UNAVAILABLE);
      expect(status.details).toMatch(/maximum duration \(300 ms\)/);
      await eventually(() => seen.finallyRan === 1, "the handler's finally");
      expect(seen.signalReason).toBeInstanceOf(HTTPError);
    } finally {
      client.close();
      await server.app.close();
    }
  });
});
