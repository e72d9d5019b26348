import * as grpc from '@grpc/grpc-js';
import type { GrpcBidiHandler, GrpcServerStreamHandler, GrpcUnaryHandler } from '../src/index.js';
import { client, start, stop, streams, type EchoReply, type EchoRequest, type Started } from './helpers.js';

// Bytes that are not UTF-8: sent as the UTF-8 of their base64 text, or of the string, they would arrive changed.
const BYTES = Buffer.from([0xab, 0xab, 0xab, 0x00, 0xff]);
const OTHER = Buffer.from([0x01, 0x02]);

const Unary: GrpcUnaryHandler<EchoRequest, Partial<EchoReply>> = (call) => {
  const ctx = call.ctx;
  switch (call.request.message) {
    case 'buffer':
      ctx.setHeader('x-raw-bin', BYTES);
      break;
    case 'uint8array':
      ctx.setHeader('x-raw-bin', new Uint8Array(BYTES));
      break;
    case 'list':
      ctx.setHeader('x-raw-bin', [BYTES, OTHER.toString('base64')]);
      break;
    case 'echo':
      // What ctx.headers shows, written back as it is.
      ctx.setHeader('x-echo-bin', ctx.headers['x-echo-bin']!);
      break;
    case 'not-base64':
      ctx.setHeader('x-raw-bin', 'plain text');
      break;
    case 'buffer-on-text-key':
      ctx.setHeader('x-text', BYTES);
      break;
  }
  return { message: ctx.headers['x-echo-bin'] ?? '' };
};

// The documented way to send trailers from a generator: a header set once the stream has started.
const ServerStreamIterable: GrpcServerStreamHandler<EchoRequest, Partial<EchoReply>> = async function* (call) {
  yield { message: 'first' };
  call.ctx.setHeader('x-trailer-bin', BYTES);
  call.ctx.setHeader('x-echo-bin', call.ctx.headers['x-echo-bin'] ?? '');
};

const Bidi: GrpcBidiHandler<EchoRequest, Partial<EchoReply>> = async (call) => {
  for await (const _ of call) {
    // read until the client half-closes
  }
  call.ctx.setHeader('x-trailer-bin', new Uint8Array(BYTES));
};

interface Outcome {
  error?: grpc.ServiceError;
  headers: grpc.Metadata;
  trailers: grpc.Metadata;
  reply?: EchoReply;
}

function call(echo: grpc.Client, message: string, metadata = new grpc.Metadata()): Promise<Outcome> {
  return new Promise((resolve) => {
    let headers = new grpc.Metadata();
    let reply: EchoReply | undefined;
    let error: grpc.ServiceError | undefined;
    const unary = (echo as unknown as Record<string, (...args: unknown[]) => grpc.ClientUnaryCall>).Unary!.bind(echo);
    const c = unary({ message }, metadata, (err: grpc.ServiceError | null, value: EchoReply) => {
      if (err) error = err;
      else reply = value;
    });
    c.on('metadata', (md: grpc.Metadata) => (headers = md));
    c.on('status', (status: grpc.StatusObject) => setImmediate(() => resolve({ error, headers, trailers: status.metadata, reply })));
  });
}

function streamOutcome(stream: grpc.ClientReadableStream<unknown> | grpc.ClientDuplexStream<unknown, unknown>): Promise<{ messages: number; status: grpc.StatusObject }> {
  return new Promise((resolve, reject) => {
    let messages = 0;
    stream.on('data', () => messages++);
    stream.on('error', reject);
    stream.on('status', (status: grpc.StatusObject) => resolve({ messages, status }));
  });
}

describe('binary (-bin) metadata, read and written', () => {
  let server: Started;
  let echo: grpc.Client;

  beforeAll(async () => {
    server = await start({ services: { 'fwtest.Echo': { Unary, ServerStreamIterable, Bidi } } });
    echo = client(server.target);
  });

  afterAll(() => stop(server, echo));

  it('sends the bytes of a Buffer set on a -bin key as they are', async () => {
    const { headers, error } = await call(echo, 'buffer');
    expect(error).toBeUndefined();
    expect(headers.get('x-raw-bin')).toEqual([BYTES]);
  });

  it('sends the bytes of a Uint8Array set on a -bin key as they are', async () => {
    const { headers } = await call(echo, 'uint8array');
    expect(headers.get('x-raw-bin')).toEqual([BYTES]);
  });

  it('shows a -bin value of the request as base64 and sends that string, written back, as the same bytes', async () => {
    const metadata = new grpc.Metadata();
    metadata.set('x-echo-bin', BYTES);
    const { headers, reply } = await call(echo, 'echo', metadata);
    expect(reply!.message).toBe(BYTES.toString('base64'));
    expect(headers.get('x-echo-bin')).toEqual([BYTES]);
  });

  it('writes back a -bin key the client sent twice (read as "a, b") as its two values', async () => {
    const metadata = new grpc.Metadata();
    metadata.add('x-echo-bin', BYTES);
    metadata.add('x-echo-bin', OTHER);
    const { headers, reply } = await call(echo, 'echo', metadata);
    expect(reply!.message).toBe(`${BYTES.toString('base64')}, ${OTHER.toString('base64')}`);
    expect(headers.get('x-echo-bin')).toEqual([BYTES, OTHER]);
  });

  it('sends each item of a list set on a -bin key: Buffers as bytes, strings as base64', async () => {
    const { headers } = await call(echo, 'list');
    expect(headers.get('x-raw-bin')).toEqual([BYTES, OTHER]);
  });

  it('refuses a string on a -bin key that is not base64, rather than sending other bytes', async () => {
    const { error } = await call(echo, 'not-base64');
    expect(error?.code).toBe(grpc.status.INTERNAL);
    expect(server.logs.at(-1)!.error).toEqual(new TypeError('Metadata "x-raw-bin" is binary: give its value as a Buffer or Uint8Array, or as base64 (as ctx.headers shows it)'));
  });

  it('refuses bytes on a key without -bin, which can carry only text', async () => {
    const { error } = await call(echo, 'buffer-on-text-key');
    expect(error?.code).toBe(grpc.status.INTERNAL);
    expect(server.logs.at(-1)!.error).toEqual(new TypeError('Metadata "x-text" is text: binary values need a key ending in "-bin"'));
  });

  it('sends binary trailers set by an async generator once its stream has started', async () => {
    const metadata = new grpc.Metadata();
    metadata.set('x-echo-bin', OTHER);
    const iterable = echo as unknown as { ServerStreamIterable(request: unknown, metadata: grpc.Metadata): grpc.ClientReadableStream<unknown> };
    const { messages, status } = await streamOutcome(iterable.ServerStreamIterable({}, metadata));
    expect(messages).toBe(1);
    expect(status.code).toBe(grpc.status.OK);
    expect(status.metadata.get('x-trailer-bin')).toEqual([BYTES]);
    expect(status.metadata.get('x-echo-bin')).toEqual([OTHER]);
  });

  it('sends binary trailers set by a bidi handler before it returns', async () => {
    const bidi = streams(echo).Bidi();
    const outcome = streamOutcome(bidi);
    bidi.write({ message: 'a' });
    bidi.end();
    const { status } = await outcome;
    expect(status.code).toBe(grpc.status.OK);
    expect(status.metadata.get('x-trailer-bin')).toEqual([BYTES]);
  });
});
