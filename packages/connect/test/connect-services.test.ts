import { gzipSync } from 'node:zlib';
import { create, toBinary, fromBinary, type DescService } from '@bufbuild/protobuf';
import { Code, ConnectError, createClient, type Transport } from '@connectrpc/connect';
import { createConnectTransport, createGrpcWebTransport } from '@connectrpc/connect-node';
import { Metadata, type ServiceError } from '@grpc/grpc-js';
import { Application } from '@fw/core';
import { grpcPlugin, type GrpcPlugin } from '@fw/grpc';
import { connectPlugin } from '../src/index.js';
import { enveloped, frames } from './fixtures.js';
import { GREETER, greeterService, grpcClient, identify, SERVICE, seen } from './services-fixtures.js';

// Hand-written services (your own .proto, grpc-js-style handlers) on the HTTP port, seen by
// @connectrpc/connect-node clients over real sockets, and checked against a grpc-js client of the
// same handlers on the gRPC port.

type Options = { headers?: Record<string, string>; timeoutMs?: number; signal?: AbortSignal; onTrailer?: (trailers: Headers) => void };
type Untyped = Record<string, (request: object, options?: Options) => Promise<Record<string, unknown>>>;
type Streaming = Record<string, (request: object, options?: Options) => AsyncIterable<Record<string, unknown>>>;
type GrpcJsClient = ReturnType<typeof grpcClient>;

jest.setTimeout(60_000);

async function connectError(promise: Promise<unknown>): Promise<ConnectError> {
  try {
    await promise;
  } catch (err) {
    return ConnectError.from(err);
  }
  throw new Error('expected the call to fail');
}

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 25));
  expect(check()).toBe(true);
}

/** A unary call with the grpc-js client: the reply, or the ServiceError. */
function grpcUnary(client: GrpcJsClient, method: string, request: object, metadata = new Metadata()): Promise<{ reply?: Record<string, unknown>; error?: ServiceError }> {
  return new Promise((resolve) => {
    client[method]!(request, metadata, (error: ServiceError | null, reply: Record<string, unknown>) => resolve(error === null ? { reply } : { error }));
  });
}

/** A grpc-web-text body: base64, each frame encoded alone (padded pieces one after another). */
function fromBase64Text(text: string): Buffer {
  return Buffer.concat((text.match(/[^=]+=*/g) ?? []).map((piece) => Buffer.from(piece, 'base64')));
}

/** The trailers of a gRPC-Web body (its frame with flag 0x80). */
function trailersOf(body: Buffer): Record<string, string> {
  const frame = frames(body).find((f) => (f.flags & 0x80) !== 0);
  const out: Record<string, string> = {};
  for (const line of (frame?.payload.toString('latin1') ?? '').split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) out[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
  }
  return out;
}

describe('hand-written gRPC services over Connect and gRPC-Web', () => {
  let app: Application;
  let grpc: GrpcPlugin;
  let baseUrl: string;
  let service: DescService;
  let grpcJs: GrpcJsClient;
  const methods: string[] = [];

  beforeAll(async () => {
    app = new Application({ onLog: () => undefined });
    app.use(async (ctx, next) => {
      methods.push(ctx.method);
      await next();
    });
    app.use(identify);
    grpc = grpcPlugin({ ...GREETER, port: 0, host: '127.0.0.1', health: false });
    app.register(grpc);
    app.register(connectPlugin(GREETER));
    const info = await app.listen(0, '127.0.0.1');
    baseUrl = `http://127.0.0.1:${info.port}`;
    service = await greeterService();
    grpcJs = grpcClient(grpc.address!.target);
  });

  afterAll(async () => {
    grpcJs.close();
    await app.close();
  });

  const post = (path: string, body: string | Buffer, headers: Record<string, string>): Promise<Response> =>
    fetch(`${baseUrl}${path}`, { method: 'POST', body, headers });

  const transports: Array<[string, () => Transport]> = [
    ['Connect, JSON', () => createConnectTransport({ baseUrl, httpVersion: '1.1' })],
    ['Connect, binary', () => createConnectTransport({ baseUrl, httpVersion: '1.1', useBinaryFormat: true })],
    ['gRPC-Web, binary', () => createGrpcWebTransport({ baseUrl, httpVersion: '1.1' })],
  ];

  describe.each(transports)('over %s', (_name, transport) => {
    let client: Untyped;
    let streaming: Streaming;

    beforeAll(() => {
      const made: unknown = createClient(service, transport());
      client = made as Untyped;
      streaming = made as Streaming;
    });

    it('calls an async unary handler: int64 and enums round-trip, metadata, user and tenant reach it', async () => {
      const reply = await client.sayHello!(
        { name: 'Ada', visits: 41n, mood: 1 },
        { headers: { 'x-token': 't-1', authorization: 'Bearer ada', 'x-tenant': 'acme' }, timeoutMs: 5000 },
      );
      expect(reply).toMatchObject({ message: 'Hello Ada (async)', visits: 42n, mood: 1 });
      expect(reply.seen).toEqual({ token: 't-1', user: 'ada', tenant: 'acme', deadline: 'set', path: `/${SERVICE}/SayHello` });
    });

    it('calls a (call, callback) handler', async () => {
      const reply = await client.sayHelloCallback!({ name: 'Bo', visits: 0n, mood: 2 });
      expect(reply).toMatchObject({ message: 'Hello Bo (callback)', visits: 1n, mood: 2 });
      expect(reply.seen).toMatchObject({ deadline: 'none', tenant: 'none' });
    });

    it('maps an HTTPError 404 and a grpc status object as the gRPC port does', async () => {
      const missing = await connectError(client.fail!({ name: 'missing' }));
      expect([missing.code, missing.rawMessage]).toEqual([Code.NotFound, 'No greeting for missing']);
      const status = await connectError(client.fail!({ name: 'status' }));
      expect([status.code, status.rawMessage]).toEqual([Code.FailedPrecondition, 'Not now']);
      const fault = await connectError(client.fail!({ name: 'boom' }));
      expect([fault.code, fault.rawMessage]).toEqual([Code.Internal, 'Internal server error']);
    });

    it('ends a unary call past its deadline with deadline_exceeded; the handler sees its signal abort', async () => {
      const before = seen.sleepAborts.length;
      const error = await connectError(client.sleep!({ name: 'Zed' }, { timeoutMs: 200 }));
      expect(error.code).toBe(Code.DeadlineExceeded);
      await until(() => seen.sleepAborts.length === before + 1);
      expect(seen.sleepAborts.at(-1)).toMatchObject({ code: 'deadline_exceeded' });
    });

    it.each(['countdown', 'countdownIterable'])('serves a server stream (%s), and its error after the events', async (method) => {
      const lefts: number[] = [];
      for await (const reply of streaming[method]!({ from: 3 })) lefts.push(reply.left as number);
      expect(lefts).toEqual([3, 2, 1]);
      const seenBeforeError: number[] = [];
      const error = await connectError(
        (async () => {
          for await (const reply of streaming[method]!({ from: 2, fail: true })) seenBeforeError.push(reply.left as number);
        })(),
      );
      expect(seenBeforeError).toEqual([2, 1]);
      expect([error.code, error.rawMessage]).toEqual([Code.FailedPrecondition, 'Out of stock']);
    });

    it('sends the trailers a stream handler ends with (call.end(metadata)), as the gRPC port does', async () => {
      let trailers: Headers | undefined;
      const lefts: number[] = [];
      for await (const reply of streaming.countdown!({ from: 2 }, { onTrailer: (t: Headers) => (trailers = t) })) lefts.push(reply.left as number);
      expect(lefts).toEqual([2, 1]);
      expect(trailers?.get('x-counted')).toBe('2');
      expect(Buffer.from(trailers?.get('x-tally-bin') ?? '', 'base64')).toEqual(Buffer.from([2, 0xff]));
      // The same trailers on the gRPC port, from grpc-js's client.
      const grpcTrailers = await new Promise<Metadata>((resolve, reject) => {
        const call = grpcJs.countdown!({ from: 2 }) as NodeJS.EventEmitter;
        call.on('data', () => undefined);
        call.on('error', reject);
        call.on('status', (status: { metadata: Metadata }) => resolve(status.metadata));
      });
      expect(grpcTrailers.get('x-counted')).toEqual(['2']);
      expect(grpcTrailers.get('x-tally-bin')).toEqual([Buffer.from([2, 0xff])]);
    });

    it("tells the handler 'cancelled' when the client leaves a stream", async () => {
      const before = seen.cancelled;
      const controller = new AbortController();
      const iterator = streaming.wait!({}, { signal: controller.signal })[Symbol.asyncIterator]();
      expect((await iterator.next()).value).toMatchObject({ left: 1 });
      controller.abort();
      await iterator.next().catch(() => undefined);
      await until(() => seen.cancelled === before + 1);
    });
  });

  it('runs the global middleware and the gRPC middleware once per Connect call', async () => {
    const client = createClient(service, createConnectTransport({ baseUrl, httpVersion: '1.1' })) as unknown as Untyped;
    const global = seen.globalMiddleware;
    const grpcOnes = seen.grpcMiddleware;
    await client.sayHello!({ name: 'Cy' });
    expect([seen.globalMiddleware - global, seen.grpcMiddleware - grpcOnes]).toEqual([1, 1]);
  });

  it('gives the handler the request object the gRPC port gives it, and answers alike', async () => {
    const request = { name: 'Ada', visits: '9007199254740993', mood: 'MOOD_GRUMPY' };
    const overGrpc = await grpcUnary(grpcJs, 'SayHello', request);
    const onGrpc = seen.requests.at(-1);
    const client = createClient(service, createConnectTransport({ baseUrl, httpVersion: '1.1' })) as unknown as Untyped;
    const overConnect = await client.sayHello!({ name: 'Ada', visits: 9007199254740993n, mood: 2 });
    const onConnect = seen.requests.at(-1);
    expect(onConnect).toEqual(onGrpc);
    expect(onConnect).toEqual({ name: 'Ada', visits: '9007199254740993', mood: 'MOOD_GRUMPY' });
    expect(overGrpc.reply).toMatchObject({ message: 'Hello Ada (async)', visits: '9007199254740994', mood: 'MOOD_GRUMPY' });
    expect(overConnect).toMatchObject({ message: 'Hello Ada (async)', visits: 9007199254740994n, mood: 2 });
  });

  it.each(['missing', 'status', 'auth', 'boom'])('fails "%s" with the code and message a grpc-js client gets', async (name) => {
    const { error } = await grpcUnary(grpcJs, 'Fail', { name });
    const client = createClient(service, createConnectTransport({ baseUrl, httpVersion: '1.1' })) as unknown as Untyped;
    const overConnect = await connectError(client.fail!({ name }));
    const web = createClient(service, createGrpcWebTransport({ baseUrl, httpVersion: '1.1' })) as unknown as Untyped;
    const overWeb = await connectError(web.fail!({ name }));
    expect(error).toBeDefined();
    expect([overConnect.code, overConnect.rawMessage]).toEqual([error!.code, error!.details]);
    expect([overWeb.code, overWeb.rawMessage]).toEqual([error!.code, error!.details]);
    if (name === 'auth') {
      expect(error!.metadata.get('www-authenticate')).toEqual(['Bearer']);
      expect(overConnect.metadata.get('www-authenticate')).toBe('Bearer');
    }
  });

  it('answers canonical proto3 JSON: int64 as a string, enums by name', async () => {
    const res = await post(`/${SERVICE}/SayHello`, JSON.stringify({ name: 'Di', visits: '41', mood: 'MOOD_HAPPY' }), { 'content-type': 'application/json' });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ message: 'Hello Di (async)', visits: '42', mood: 'MOOD_HAPPY' });
  });

  it('sends the callback trailer as a trailer- header (Connect) and in the trailers frame (gRPC-Web)', async () => {
    const res = await post(`/${SERVICE}/SayHelloCallback`, '{}', { 'content-type': 'application/json' });
    expect(res.headers.get('trailer-x-served-by')).toBe('callback');
    const web = await post(`/${SERVICE}/SayHelloCallback`, enveloped(Buffer.alloc(0)), { 'content-type': 'application/grpc-web+proto' });
    expect(trailersOf(Buffer.from(await web.arrayBuffer()))).toMatchObject({ 'grpc-status': '0', 'x-served-by': 'callback' });
  });

  it('serves Connect GET for a NO_SIDE_EFFECTS method only', async () => {
    const client = createClient(service, createConnectTransport({ baseUrl, httpVersion: '1.1', useHttpGet: true })) as unknown as Untyped;
    methods.length = 0;
    expect(await client.sayHello!({ name: 'Ed' })).toMatchObject({ message: 'Hello Ed (async)' });
    await client.sayHelloCallback!({ name: 'Ed' });
    expect(methods).toEqual(['GET', 'POST']);
    const message = encodeURIComponent(JSON.stringify({ name: 'Fay' }));
    const refused = await fetch(`${baseUrl}/${SERVICE}/SayHelloCallback?connect=v1&encoding=json&message=${message}`);
    expect(refused.status).toBe(405);
    expect(refused.headers.get('allow')).toBe('POST');
  });

  it('speaks gRPC-Web text, unary and server streams', async () => {
    const input = service.methods.find((m) => m.name === 'SayHello')!.input;
    const body = enveloped(Buffer.from(toBinary(input, create(input, { name: 'Gus' })))).toString('base64');
    const res = await post(`/${SERVICE}/SayHello`, body, { 'content-type': 'application/grpc-web-text' });
    expect(res.headers.get('content-type')).toBe('application/grpc-web-text+proto');
    const bytes = fromBase64Text(await res.text());
    const output = service.methods.find((m) => m.name === 'SayHello')!.output;
    expect(fromBinary(output, frames(bytes)[0]!.payload)).toMatchObject({ message: 'Hello Gus (async)' });
    expect(trailersOf(bytes)).toMatchObject({ 'grpc-status': '0' });
    const count = service.methods.find((m) => m.name === 'Countdown')!;
    const streamBody = enveloped(Buffer.from(toBinary(count.input, create(count.input, { from: 2, fail: true })))).toString('base64');
    const stream = fromBase64Text(await (await post(`/${SERVICE}/Countdown`, streamBody, { 'content-type': 'application/grpc-web-text' })).text());
    const messages = frames(stream).filter((f) => f.flags === 0).map((f) => (fromBinary(count.output, f.payload) as unknown as { left: number }).left);
    expect(messages).toEqual([2, 1]);
    expect(trailersOf(stream)).toMatchObject({ 'grpc-status': '9', 'grpc-message': 'Out of stock' });
  });

  it('answers a client-streaming method unimplemented over Connect and gRPC-Web, and serves it over gRPC', async () => {
    const unary = await post(`/${SERVICE}/Collect`, '{}', { 'content-type': 'application/json' });
    expect(unary.status).toBe(501);
    const body = (await unary.json()) as { code: string; message: string };
    expect(body.code).toBe('unimplemented');
    expect(body.message).toMatch(/client-streaming method: Connect and gRPC-Web on the HTTP port serve unary and server-streaming methods only/);
    const stream = await post(`/${SERVICE}/Collect`, enveloped(Buffer.from('{}')), { 'content-type': 'application/connect+json' });
    const end = frames(Buffer.from(await stream.arrayBuffer())).find((f) => (f.flags & 0x02) !== 0)!;
    expect(JSON.parse(end.payload.toString())).toMatchObject({ error: { code: 'unimplemented' } });
    const web = await post(`/${SERVICE}/Chat`, enveloped(Buffer.alloc(0)), { 'content-type': 'application/grpc-web+proto' });
    expect(trailersOf(Buffer.from(await web.arrayBuffer()))).toMatchObject({ 'grpc-status': '12' });
    const reply = await new Promise<Record<string, unknown>>((resolve, reject) => {
      const call = grpcJs.Collect!((error: ServiceError | null, value: Record<string, unknown>) => (error === null ? resolve(value) : reject(error))) as { write(m: object): void; end(): void };
      call.write({ name: 'a' });
      call.end();
    });
    expect(reply).toMatchObject({ message: 'collected' });
  });

  it('refuses hostile input as for operations: malformed binary, unknown JSON fields, a body past the limit, a gzip bomb', async () => {
    const path = `/${SERVICE}/SayHello`;
    const malformed = await post(path, Buffer.from([0x0a, 0xff]), { 'content-type': 'application/proto' });
    expect([malformed.status, ((await malformed.json()) as { code: string }).code]).toEqual([400, 'invalid_argument']);
    const unknown = await post(path, JSON.stringify({ nom: 'x' }), { 'content-type': 'application/json' });
    expect([unknown.status, ((await unknown.json()) as { code: string }).code]).toEqual([400, 'invalid_argument']);
    const large = await post(path, JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024) }), { 'content-type': 'application/json' });
    expect([large.status, ((await large.json()) as { code: string }).code]).toEqual([429, 'resource_exhausted']);
    const bomb = await post(path, enveloped(gzipSync(Buffer.alloc(20 * 1024 * 1024)), 1), { 'content-type': 'application/grpc-web', 'grpc-encoding': 'gzip' });
    expect(trailersOf(Buffer.from(await bomb.arrayBuffer()))['grpc-status']).toBe('8');
  });

  it('lists the served paths, client streams among them', () => {
    const plugin = connectPlugin(GREETER);
    const other = new Application({ onLog: () => undefined });
    other.register(plugin);
    expect(plugin.paths()).toEqual(['Chat', 'Collect', 'Countdown', 'CountdownIterable', 'Fail', 'SayHello', 'SayHelloCallback', 'Sleep', 'Wait'].map((m) => `/${SERVICE}/${m}`));
  });

  it('checks the service options when the plugin is made', () => {
    expect(() => connectPlugin({ protoPath: GREETER.protoPath! })).toThrow('connectPlugin: protoPath is for hand-written `services`: give services too');
    expect(() => connectPlugin({ services: { 'demo.v1.Nope': {} } })).toThrow(/^connectPlugin: give `protoPath`/);
    expect(() => connectPlugin({ ...GREETER, services: { 'demo.v1.Nope': {} } })).toThrow(/^connectPlugin: service "demo.v1.Nope" is not defined/);
    expect(() => connectPlugin({ ...GREETER, servics: {} } as never)).toThrow(/servics/);
  });
});
