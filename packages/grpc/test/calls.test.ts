import type * as grpc from '@grpc/grpc-js';
import type { GrpcBidiHandler, GrpcClientStreamHandler, GrpcServerStreamHandler, GrpcUnaryHandler } from '../src/index.js';
import { client, collect, start, streams, unary, type EchoReply, type EchoRequest, type Started } from './helpers.js';

const Unary: GrpcUnaryHandler<EchoRequest, Partial<EchoReply>> = (call, callback) => {
  call.ctx.setHeader('x-served-by', 'callback');
  callback(null, { message: `hello ${call.request.message}`, peer: call.ctx.ip });
};

const UnaryAsync: GrpcUnaryHandler<EchoRequest, Partial<EchoReply>> = async (call) => {
  await new Promise((resolve) => setImmediate(resolve));
  return { message: `async ${call.request.message}`, user: call.ctx.headers['x-user'] ?? '' };
};

const ServerStream: GrpcServerStreamHandler<EchoRequest, Partial<EchoReply>> = (call) => {
  for (let i = 0; i < (call.request.count ?? 0); i++) call.write({ message: call.request.message, index: i });
  call.end();
};

const ServerStreamIterable: GrpcServerStreamHandler<EchoRequest, Partial<EchoReply>> = async function* (call) {
  for (let i = 0; i < (call.request.count ?? 0); i++) {
    await new Promise((resolve) => setImmediate(resolve));
    yield { message: `item ${i}`, index: i };
  }
};

const ClientStream: GrpcClientStreamHandler<EchoRequest, Partial<EchoReply>> = async (call) => {
  const words: string[] = [];
  for await (const request of call) words.push((request as EchoRequest).message ?? '');
  return { message: words.join(' '), index: words.length };
};

const ClientStreamCallback: GrpcClientStreamHandler<EchoRequest, Partial<EchoReply>> = (call, callback) => {
  let count = 0;
  call.on('data', () => count++);
  call.on('end', () => callback(null, { message: 'counted', index: count }));
};

const Bidi: GrpcBidiHandler<EchoRequest, Partial<EchoReply>> = async (call) => {
  let index = 0;
  for await (const request of call) call.write({ message: `echo ${(request as EchoRequest).message}`, index: index++ });
};

describe('gRPC calls through a real grpc-js client', () => {
  let server: Started;
  let echo: grpc.Client;

  beforeAll(async () => {
    server = await start({
      services: { 'fwtest.Echo': { Unary, UnaryAsync, ServerStream, ServerStreamIterable, ClientStream, Bidi } },
    });
    echo = client(server.target);
  });

  afterAll(async () => {
    echo.close();
    await server.app.close();
  });

  it('binds both the HTTP server and the gRPC server before listen() resolves', async () => {
    expect(server.app.server?.listening).toBe(true);
    expect(server.grpc.address).toEqual({ host: '127.0.0.1', port: expect.any(Number), target: `127.0.0.1:${server.grpc.address!.port}` });
    expect(server.grpc.address!.port).toBeGreaterThan(0);
  });

  it('answers a unary call made with the (call, callback) form', async () => {
    const { reply, metadata } = await unary(echo, 'Unary', { message: 'world' });
    expect(reply.message).toBe('hello world');
    expect(metadata.get('x-served-by')).toEqual(['callback']);
  });

  it('reports the client address as ctx.ip', async () => {
    const { reply } = await unary(echo, 'Unary', { message: 'x' });
    expect(reply.peer).toBe('127.0.0.1');
  });

  it('answers a unary call made with the async (call) => response form, with metadata as lower-case headers', async () => {
    const { reply } = await unary(echo, 'UnaryAsync', { message: 'there' }, { metadata: { 'X-User': 'ada' } });
    expect(reply).toMatchObject({ message: 'async there', user: 'ada' });
  });

  it('streams responses written to a server-streaming call', async () => {
    const items = await collect<EchoReply>(streams(echo).ServerStream({ message: 'tick', count: 3 }));
    expect(items.map((i) => [i.message, i.index])).toEqual([['tick', 0], ['tick', 1], ['tick', 2]]);
  });

  it('streams the items of an async iterable returned by a server-streaming handler and ends the call', async () => {
    const items = await collect<EchoReply>(
      streams(echo).ServerStreamIterable({ count: 4 }),
    );
    expect(items.map((i) => i.message)).toEqual(['item 0', 'item 1', 'item 2', 'item 3']);
  });

  it('answers a client-streaming call once the client has sent everything', async () => {
    const reply = await new Promise<EchoReply>((resolve, reject) => {
      const call = streams(echo).ClientStream((err, value) =>
        err ? reject(err) : resolve(value!),
      );
      for (const message of ['one', 'two', 'three']) call.write({ message });
      call.end();
    });
    expect(reply).toMatchObject({ message: 'one two three', index: 3 });
  });

  it('echoes every message of a bidi call and ends when the handler returns', async () => {
    const call = streams(echo).Bidi();
    const replies = collect<EchoReply>(call);
    call.write({ message: 'a' });
    call.write({ message: 'b' });
    call.end();
    expect((await replies).map((r) => [r.message, r.index])).toEqual([['echo a', 0], ['echo b', 1]]);
  });
});

describe('a client-streaming handler in the (call, callback) form', () => {
  it('answers through the callback', async () => {
    const server = await start({ services: { 'fwtest.Echo': { ClientStream: ClientStreamCallback } } });
    const echo = client(server.target);
    try {
      const reply = await new Promise<EchoReply>((resolve, reject) => {
        const call = streams(echo).ClientStream((err, value) =>
          err ? reject(err) : resolve(value!),
        );
        call.write({ message: 'x' });
        call.write({ message: 'y' });
        call.end();
      });
      expect(reply).toMatchObject({ message: 'counted', index: 2 });
    } finally {
      echo.close();
      await server.app.close();
    }
  });
});

describe('a bidi handler in the event style', () => {
  it("echoes through 'data'/'end' listeners, even when the arrow returns the call itself", async () => {
    // `call.on(...)` returns the call; that return value must not be taken for a response source.
    const ClassicBidi = (call: grpc.ServerDuplexStream<EchoRequest, Partial<EchoReply>>) =>
      call.on('data', (request: EchoRequest) => call.write({ message: `classic ${request.message}` })).on('end', () => call.end());
    const server = await start({ services: { 'fwtest.Echo': { Bidi: ClassicBidi } } });
    const echo = client(server.target);
    try {
      const call = streams(echo).Bidi();
      const replies = collect<EchoReply>(call);
      call.write({ message: 'x' });
      call.write({ message: 'y' });
      call.end();
      expect((await replies).map((r) => r.message)).toEqual(['classic x', 'classic y']);
    } finally {
      echo.close();
      await server.app.close();
    }
  });
});
