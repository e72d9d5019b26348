import { connect as connectHttp2, constants, type ClientHttp2Session, type IncomingHttpHeaders } from 'node:http2';
import { connect } from 'node:net';
import { randomBytes } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import { createApp, type App, type GrpcUnaryHandler } from '@fw/app';
import { getItem, itemsClient, SHOP_PROTO } from '../support.js';
import { send, sleep, within } from './support.js';

// gRPC abuse through createApp: oversized messages get RESOURCE_EXHAUSTED before the handler runs,
// and malformed frames — raw bytes on the port, broken gRPC framing over real HTTP/2, streams reset
// as fast as they open — never crash the server: a normal call works after each.

const MAX_MESSAGE = 1024;
/** grpc-js keeps idle connections forever unless told otherwise (see SECURITY.md). */
const IDLE_MS = 1000;

/** A gRPC message frame: compressed flag, 4-byte big-endian length, payload. */
function frame(payload: Buffer, options: { compressed?: boolean; declaredLength?: number } = {}): Buffer {
  const head = Buffer.alloc(5);
  head[0] = options.compressed ? 1 : 0;
  head.writeUInt32BE(options.declaredLength ?? payload.length, 1);
  return Buffer.concat([head, payload]);
}

/** GetRequest { id: 'x' } in protobuf. */
const GET_X = Buffer.from([0x0a, 0x01, 0x78]);

interface RawCallResult {
  httpStatus?: number;
  grpcStatus?: number;
  grpcMessage?: string;
  reset?: number;
}

describe('gRPC abuse through createApp', () => {
  let app: App;
  let target: string;
  let port: number;
  let url: string;
  let handled = 0;
  let client: ReturnType<typeof itemsClient>;
  const sessions: ClientHttp2Session[] = [];

  beforeAll(async () => {
    app = createApp({
      onLog: () => undefined,
      protocols: {
        grpc: {
          port: 0,
          host: '127.0.0.1',
          protoPath: SHOP_PROTO,
          maxReceiveMessageLength: MAX_MESSAGE,
          serverOptions: { 'grpc.max_connection_idle_ms': IDLE_MS },
          services: {
            'shop.Items': {
              Get: (async (call) => {
                handled++;
                return { id: call.request.id, owner: 'owner' };
              }) satisfies GrpcUnaryHandler<{ id: string }, { id: string; owner: string }>,
            },
          },
        },
      },
    });
    app.get('/ok', (ctx) => ctx.text('ok'));
    ({ url } = await app.listen(0, '127.0.0.1'));
    ({ target, port } = app.getProtocolManager()!.getGrpcAddress()!);
    client = itemsClient(target);
  });

  afterAll(async () => {
    for (const session of sessions) session.destroy();
    client.close();
    await app.close();
  });

  afterEach(async () => {
    // After every case: a normal call on a fresh client works, and HTTP is served.
    const fresh = itemsClient(target);
    try {
      await expect(getItem(fresh, 'after')).resolves.toEqual({ id: 'after', owner: 'owner' });
    } finally {
      fresh.close();
    }
    expect((await send(url, { path: '/ok' })).status).toBe(200);
  });

  function session(): ClientHttp2Session {
    const s = connectHttp2(`http://127.0.0.1:${port}`);
    s.on('error', () => undefined);
    sessions.push(s);
    return s;
  }

  /** One call over raw HTTP/2 with `body` as the request stream. */
  function rawCall(s: ClientHttp2Session, body: Buffer, headers: Record<string, string> = {}, path = '/shop.Items/Get'): Promise<RawCallResult> {
    return new Promise((resolve) => {
      const result: RawCallResult = {};
      const read = (h: IncomingHttpHeaders): void => {
        if (h[':status'] !== undefined) result.httpStatus = Number(h[':status']);
        if (h['grpc-status'] !== undefined) result.grpcStatus = Number(h['grpc-status']);
        if (h['grpc-message'] !== undefined) result.grpcMessage = decodeURIComponent(String(h['grpc-message']));
      };
      const req = s.request({ ':method': 'POST', ':path': path, 'content-type': 'application/grpc', te: 'trailers', ...headers });
      req.on('response', read);
      req.on('trailers', read);
      req.on('error', () => undefined);
      req.resume();
      req.on('close', () => {
        if (req.rstCode !== constants.NGHTTP2_NO_ERROR) result.reset = req.rstCode;
        resolve(result);
      });
      req.end(body);
    });
  }

  it('answers a well-formed raw HTTP/2 call (the raw client below is sound)', async () => {
    const before = handled;
    expect(await rawCall(session(), frame(GET_X))).toMatchObject({ httpStatus: 200, grpcStatus: grpc.status.OK });
    expect(handled).toBe(before + 1);
  });

  it('answers RESOURCE_EXHAUSTED to a message over maxReceiveMessageLength, without running the handler', async () => {
    const before = handled;
    await expect(getItem(client, 'x'.repeat(MAX_MESSAGE * 2))).rejects.toMatchObject({ code: grpc.status.RESOURCE_EXHAUSTED });
    expect(handled).toBe(before);
  });

  it('answers RESOURCE_EXHAUSTED at once to a frame that declares 2 GiB, without waiting for (or allocating) it', async () => {
    // A well-formed call just before, timed: the same machine at the same moment.
    let t = performance.now();
    expect(await rawCall(session(), frame(GET_X))).toMatchObject({ grpcStatus: grpc.status.OK });
    const baseline = performance.now() - t;
    const before = handled;
    t = performance.now();
    const result = await rawCall(session(), frame(GET_X, { declaredLength: 0x7fffffff }));
    expect(result.grpcStatus).toBe(grpc.status.RESOURCE_EXHAUSTED);
    // At once: about as soon as a whole call is answered, not after waiting for 2 GiB.
    expect(performance.now() - t).toBeLessThan(Math.max(1000, 20 * baseline));
    expect(handled).toBe(before);
  });

  it.each([
    ['a frame shorter than its declared length', frame(GET_X, { declaredLength: 100 })],
    ['half a length prefix', Buffer.from([0, 0])],
    ['an empty body', Buffer.alloc(0)],
    ['two messages on a unary call', Buffer.concat([frame(GET_X), frame(GET_X)])],
  ])('answers %s with an error status, without running the handler', async (_name, body) => {
    const before = handled;
    const result = await rawCall(session(), body);
    expect(result.grpcStatus).toBeDefined();
    expect(result.grpcStatus).not.toBe(grpc.status.OK);
    expect(handled).toBe(before);
  });

  it('answers bytes that are not a valid protobuf message with an error status', async () => {
    const before = handled;
    // Field 2 with wire type 7, which does not exist.
    const result = await rawCall(session(), frame(Buffer.from([0x17, 0x01])));
    expect(result.grpcStatus).toBeDefined();
    expect(result.grpcStatus).not.toBe(grpc.status.OK);
    expect(handled).toBe(before);
  });

  it('refuses an unknown compression, a bad grpc-timeout, another content type and unknown methods', async () => {
    const s = session();
    expect((await rawCall(s, frame(GET_X, { compressed: true }), { 'grpc-encoding': 'snappy' })).grpcStatus).toBe(grpc.status.UNIMPLEMENTED);
    expect((await rawCall(s, frame(GET_X), { 'grpc-timeout': 'soon' })).grpcStatus).toBe(grpc.status.INTERNAL);
    expect((await rawCall(s, frame(GET_X), { 'content-type': 'text/plain' })).httpStatus).toBe(415);
    expect((await rawCall(s, frame(GET_X), {}, '/shop.Items/Nope')).grpcStatus).toBe(grpc.status.UNIMPLEMENTED);
    expect((await rawCall(s, frame(GET_X), {}, '/no.Such/Service')).grpcStatus).toBe(grpc.status.UNIMPLEMENTED);
  });

  it('resets a stream whose metadata is larger than the header limit, and keeps the connection usable for others', async () => {
    const result = await rawCall(session(), frame(GET_X), { 'x-huge': 'x'.repeat(100_000) });
    expect(result.grpcStatus).toBeUndefined();
    expect(result.reset).toBeDefined();
  });

  it('survives streams opened and reset as fast as possible (HTTP/2 rapid reset)', async () => {
    const s = session();
    for (let i = 0; i < 500 && !s.closed && !s.destroyed; i++) {
      const req = s.request({ ':method': 'POST', ':path': '/shop.Items/Get', 'content-type': 'application/grpc', te: 'trailers' });
      req.on('error', () => undefined);
      req.close(constants.NGHTTP2_CANCEL);
      if (i % 50 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    await sleep(100);
  });

  it('closes connections that send garbage, and (with grpc.max_connection_idle_ms) those that then stay silent', async () => {
    const preface = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');
    const cases: Array<[string, Buffer | undefined]> = [
      ['an HTTP/1.1 request', Buffer.from('GET / HTTP/1.1\r\nHost: t\r\n\r\n')],
      ['random bytes', randomBytes(4096)],
      ['the preface, then a frame of an unknown type with garbage', Buffer.concat([preface, Buffer.from([0, 0, 5, 0xff, 0, 0, 0, 0, 1, 1, 2, 3, 4, 5]), randomBytes(64)])],
      // The server answers GOAWAY (FRAME_SIZE_ERROR) but leaves closing to the client: the idle time-out closes it.
      ['the preface, then a SETTINGS frame of a wrong length', Buffer.concat([preface, Buffer.from([0, 0, 5, 4, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5])])],
      ['the preface and nothing else', preface],
      ['nothing at all', undefined],
    ];
    const opened = Date.now();
    const lifetimes = await Promise.all(
      cases.map(async ([, bytes]) => {
        const socket = connect(port, '127.0.0.1');
        socket.on('error', () => undefined);
        socket.resume();
        const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(Date.now() - opened)));
        if (bytes !== undefined) socket.write(bytes);
        const outcome = await within(closed, IDLE_MS + 2000, 'still open' as const);
        socket.destroy();
        return outcome;
      }),
    );
    const byName = Object.fromEntries(cases.map(([name], i) => [name, lifetimes[i]]));
    for (const name of Object.keys(byName)) expect([name, typeof byName[name]]).toEqual([name, 'number']);
    // Garbage that breaks the connection itself is cut at once.
    for (const name of ['an HTTP/1.1 request', 'random bytes', 'the preface, then a frame of an unknown type with garbage']) {
      expect([name, (byName[name] as number) < IDLE_MS]).toEqual([name, true]);
    }
  });

  it('answers 500 concurrent calls on one channel after all that', async () => {
    const replies = await Promise.all(Array.from({ length: 500 }, (_, i) => getItem(client, `c${i}`)));
    expect(replies.map((r) => r.id)).toEqual(Array.from({ length: 500 }, (_, i) => `c${i}`));
  });
});
