import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { gunzipSync, gzipSync } from 'node:zlib';
import { z } from 'zod';
import { compress, createApp, etag, HTTPError, idempotency, MemoryStore, type App } from '@fw/app';
import { defineOperation } from '@fw/app/validate';

// idempotency() beside the other HTTP middleware and transports, through real sockets: a REST
// operation and the same operation over Connect on the app's port, a gzip request body, and
// compress() outside it (the replay is compressed like the first answer).

let runs = 0;
const createOrder = defineOperation({
  name: 'createOrder',
  input: z.object({ sku: z.string(), qty: z.int32().min(1) }),
  output: z.object({ orderId: z.string(), sku: z.string(), qty: z.int32(), note: z.string() }),
  handler: ({ sku, qty }) => ({ orderId: `o${++runs}`, sku, qty, note: 'x'.repeat(2000) }),
  rest: { method: 'POST', path: '/orders', status: 201 },
  grpc: { service: 'shop.v1.Orders' },
});

describe('idempotency() with compress() and Connect on one app (real sockets)', () => {
  let app: App;
  let base: string;

  beforeAll(async () => {
    app = createApp({ onLog: () => undefined, shutdown: false, protocols: { connect: true } });
    app.use(compress());
    app.use(etag());
    app.use(idempotency());
    app.operation(createOrder);
    base = (await app.listen(0, '127.0.0.1')).url;
  });

  afterAll(async () => {
    await app?.close();
  });

  beforeEach(() => {
    runs = 0;
  });

  const post = (path: string, body: string | Uint8Array, headers: Record<string, string>) => fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: body as BodyInit });

  it('replays a REST answer to a retry with the same key, compressed as the first was', async () => {
    const body = JSON.stringify({ sku: 'lamp', qty: 2 });
    const first = await post('/orders', body, { 'idempotency-key': 'rest-1', 'accept-encoding': 'gzip' });
    const retry = await post('/orders', body, { 'idempotency-key': 'rest-1', 'accept-encoding': 'gzip' });
    expect(first.status).toBe(201);
    expect(retry.status).toBe(201);
    expect(first.headers.get('content-encoding')).toBe('gzip');
    expect(retry.headers.get('content-encoding')).toBe('gzip');
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    // fetch decodes gzip: the same JSON, from one run of the handler.
    expect(await retry.json()).toEqual(await first.json());
    expect(runs).toBe(1);
    // A client that does not take gzip gets the stored answer uncompressed.
    const plain = await fetch(`${base}/orders`, { method: 'POST', headers: { 'content-type': 'application/json', 'idempotency-key': 'rest-1', 'accept-encoding': 'identity' }, body });
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(((await plain.json()) as { orderId: string }).orderId).toBe('o1');
    expect(runs).toBe(1);
  });

  it('fingerprints a gzip request body as sent, and still parses it', async () => {
    const body = gzipSync(JSON.stringify({ sku: 'desk', qty: 1 }));
    const first = await post('/orders', body, { 'idempotency-key': 'gz-1', 'content-encoding': 'gzip' });
    expect(first.status).toBe(201);
    expect(((await first.json()) as { sku: string }).sku).toBe('desk');
    const retry = await post('/orders', body, { 'idempotency-key': 'gz-1', 'content-encoding': 'gzip' });
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    const other = await post('/orders', gzipSync(JSON.stringify({ sku: 'desk', qty: 3 })), { 'idempotency-key': 'gz-1', 'content-encoding': 'gzip' });
    expect(other.status).toBe(422);
    expect(runs).toBe(1);
  });

  it('replays a Connect call to a retry with the same key, and refuses another body with it', async () => {
    const headers = { 'idempotency-key': 'connect-1', 'connect-protocol-version': '1' };
    const body = JSON.stringify({ sku: 'chair', qty: 4 });
    const first = await post('/shop.v1.Orders/CreateOrder', body, headers);
    expect(first.status).toBe(200);
    const answer = (await first.json()) as { orderId: string };
    expect(answer.orderId).toBe('o1');
    const retry = await post('/shop.v1.Orders/CreateOrder', body, headers);
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(await retry.json()).toEqual(answer);
    // The same key with another body: 422 unprocessable_entity, which Connect's table answers as
    // invalid_argument (400), the code it has for a request that cannot be processed as sent.
    const other = await post('/shop.v1.Orders/CreateOrder', JSON.stringify({ sku: 'chair', qty: 5 }), headers);
    expect(other.status).toBe(400);
    expect(await other.json()).toEqual({ code: 'invalid_argument', message: 'This Idempotency-Key was already used with a different request' });
    expect(runs).toBe(1);
  });

  it('answers 409 to a concurrent retry while the first runs, never running the handler twice', async () => {
    const body = JSON.stringify({ sku: 'rug', qty: 1 });
    const answers = await Promise.all(Array.from({ length: 5 }, () => post('/orders', body, { 'idempotency-key': 'race-1' })));
    const statuses = answers.map((a) => a.status).sort();
    // The handler answers at once, so some retries may already see its stored answer.
    expect(statuses.every((s) => s === 201 || s === 409)).toBe(true);
    expect(runs).toBe(1);
    for (const a of answers) if (a.status === 409) expect(a.headers.get('retry-after')).toBe('1');
  });

  it('keeps a gzip answer decodable byte for byte', async () => {
    const body = JSON.stringify({ sku: 'vase', qty: 1 });
    const raw = await new Promise<Buffer>((resolve, reject) => {
      const url = new URL('/orders', base);
      const req = request(
        { host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { 'content-type': 'application/json', 'idempotency-key': 'bytes-1', 'accept-encoding': 'gzip' } },
        (res: IncomingMessage) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve(Buffer.concat(chunks)));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
    expect(JSON.parse(gunzipSync(raw).toString('utf8'))).toMatchObject({ sku: 'vase', orderId: 'o1' });
  });
});

// Over gRPC the key is call metadata: the operation's result is kept (Dates and bytes intact) and a
// retry is answered with it, the handler not running again.
let payments = 0;
const makePay = (middleware: Array<ReturnType<typeof idempotency>> = []) => defineOperation({
  name: 'pay',
  middleware,
  input: z.object({ account: z.string(), cents: z.int32() }),
  output: z.object({ paymentId: z.string(), cents: z.int32(), at: z.date() }),
  handler: ({ account, cents }) => {
    if (account === 'locked') throw new HTTPError(409, 'Account is locked', undefined, { code: 'failed_precondition' });
    if (account === 'broken') throw new Error('database down');
    payments++;
    return { paymentId: `p${payments}`, cents, at: new Date(Date.UTC(2026, 11, 2, 10, payments)) };
  },
  rest: { method: 'POST', path: '/payments' },
  grpc: { service: 'bank.v1.Payments' },
});
const pay = makePay();

type Unary = (request: unknown, metadata: grpc.Metadata, callback: (err: grpc.ServiceError | null, reply?: unknown, ) => void) => grpc.ClientUnaryCall;

describe.each([
  ['app.use(idempotency()) with gRPC middleware "global"', 'global'],
  ["the operation's own middleware", 'operation'],
] as const)('idempotency() over gRPC, as %s (real sockets)', (_name, placement) => {
  let app: App;
  let client: grpc.Client & Record<string, Unary>;
  let protoDir: string;
  let base: string;

  beforeAll(async () => {
    app = createApp({ onLog: () => undefined, shutdown: false, protocols: { grpc: { port: 0, host: '127.0.0.1', middleware: 'global' } } });
    const store = new MemoryStore();
    if (placement === 'global') {
      app.use(idempotency({ store }));
      app.operation(pay);
    } else {
      app.operation(makePay([idempotency({ store })]));
    }
    protoDir = await mkdtemp(join(tmpdir(), 'fw-idem-'));
    for (const { file, text } of app.getProtocolManager()!.grpc!.generateProtos()) {
      await mkdir(dirname(join(protoDir, file)), { recursive: true });
      await writeFile(join(protoDir, file), text);
    }
    base = (await app.listen(0, '127.0.0.1')).url;
    const definition = protoLoader.loadSync(join(protoDir, 'bank', 'v1', 'bank.proto'), { keepCase: true, defaults: true, longs: String });
    const pkg = grpc.loadPackageDefinition(definition) as unknown as { bank: { v1: { Payments: grpc.ServiceClientConstructor } } };
    client = new pkg.bank.v1.Payments(app.getProtocolManager()!.getGrpcAddress()!.target, grpc.credentials.createInsecure()) as never;
  });

  afterAll(async () => {
    client?.close();
    await app?.close();
    if (protoDir) await rm(protoDir, { recursive: true, force: true });
  });

  beforeEach(() => {
    payments = 0;
  });

  function call(request: unknown, key?: string): Promise<{ err: grpc.ServiceError | null; reply: unknown; replayed: string | undefined }> {
    const metadata = new grpc.Metadata();
    if (key !== undefined) metadata.set('idempotency-key', key);
    return new Promise((resolve) => {
      let replayed: string | undefined;
      const unary = client['Pay']!(request, metadata, (err, reply) => resolve({ err, reply, replayed }));
      unary.on('metadata', (m: grpc.Metadata) => {
        const value = m.get('idempotent-replayed')[0];
        replayed = value === undefined ? undefined : String(value);
      });
    });
  }

  it('answers a retry with the same key and message with the kept result, marked in the metadata', async () => {
    const first = await call({ account: 'a', cents: 500 }, `g-${placement}-1`);
    const retry = await call({ account: 'a', cents: 500 }, `g-${placement}-1`);
    expect(first.err).toBeNull();
    expect(retry.err).toBeNull();
    expect(retry.reply).toEqual(first.reply);
    expect(first.replayed).toBeUndefined();
    expect(retry.replayed).toBe('true');
    // The date came back as the handler gave it: kept as a Date, sent in its RFC 3339 form.
    const payment = (retry.reply as { payment?: unknown }).payment ?? retry.reply;
    expect(payment).toMatchObject({ payment_id: 'p1', cents: 500, at: '2026-12-02T10:01:00.000Z' });
    expect(payments).toBe(1);
  });

  it('refuses the key with another message: INVALID_ARGUMENT (422 unprocessable_entity)', async () => {
    await call({ account: 'a', cents: 500 }, `g-${placement}-2`);
    const other = await call({ account: 'a', cents: 501 }, `g-${placement}-2`);
    expect(other.err?.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(other.err?.details).toBe('This Idempotency-Key was already used with a different request');
    expect(payments).toBe(1);
  });

  it('replays a refusal (4xx) with its code, and runs again after a server failure (5xx)', async () => {
    const locked = await call({ account: 'locked', cents: 1 }, `g-${placement}-3`);
    const again = await call({ account: 'locked', cents: 1 }, `g-${placement}-3`);
    expect(locked.err?.code).toBe(grpc.status.FAILED_PRECONDITION);
    expect(again.err?.code).toBe(grpc.status.FAILED_PRECONDITION);
    expect(again.err?.details).toBe('Account is locked');
    const broken = await call({ account: 'broken', cents: 1 }, `g-${placement}-4`);
    expect(broken.err?.code).toBe(grpc.status.INTERNAL);
    // Not kept: the retry runs the handler again (and fails again).
    const retried = await call({ account: 'broken', cents: 1 }, `g-${placement}-4`);
    expect(retried.err?.code).toBe(grpc.status.INTERNAL);
    expect(retried.replayed).toBeUndefined();
  });

  it('runs every call without a key, and keeps REST and gRPC keys apart', async () => {
    await call({ account: 'a', cents: 1 });
    await call({ account: 'a', cents: 1 });
    expect(payments).toBe(2);
    const rest = await fetch(`${base}/payments`, { method: 'POST', headers: { 'content-type': 'application/json', 'idempotency-key': `g-${placement}-5` }, body: JSON.stringify({ account: 'a', cents: 9 }) });
    expect(rest.status).toBe(200);
    const grpcCall = await call({ account: 'a', cents: 9 }, `g-${placement}-5`);
    expect(grpcCall.replayed).toBeUndefined();
    expect(payments).toBe(4);
  });
});
