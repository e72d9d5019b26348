import { createServer, connect, type Server, type Socket } from 'node:net';
import { mintToken } from '../src/auth.js';
import { createClient, FwClientError, type OrderEvent } from '../src/client.js';
import { DEV_JWT_SECRET } from '../src/config.js';
import { startDemoProcess, type DemoProcess } from './demo-process.js';

// The client `fw emit --client` generated from the demo (src/client.ts, committed and checked by
// generated.test.ts) against the demo served on a real socket (a child process, as \`pnpm demo\`
// runs it), reached through a TCP proxy the test can cut: each operation gives what a raw fetch
// of its REST route gives, refusals are FwClientErrors, and the live order events arrive in
// order, resume after the connection drops mid-stream, and stop when the caller aborts.
jest.setTimeout(60_000);

describe('the generated client against the demo', () => {
  let demo: DemoProcess;
  let proxy: Server;
  let base: string;
  let customer: string;
  let noRole: string;
  /** Every open connection through the proxy, both ends. */
  const sockets = new Set<Socket>();
  /** Ends the stream the events test reads, whatever happens to the test. */
  const controller = new AbortController();

  beforeAll(async () => {
    demo = await startDemoProcess({ RATE_LIMIT_MAX: '100000', JWT_SECRET: DEV_JWT_SECRET });
    const target = new URL(demo.endpoints.rest);
    proxy = createServer((downstream) => {
      const upstream = connect(Number(target.port), target.hostname);
      for (const socket of [downstream, upstream]) {
        sockets.add(socket);
        socket.once('close', () => sockets.delete(socket));
        socket.on('error', () => undefined);
      }
      downstream.pipe(upstream).pipe(downstream);
      downstream.once('close', () => upstream.destroy());
      upstream.once('close', () => downstream.destroy());
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const address = proxy.address() as { port: number };
    base = `http://127.0.0.1:${address.port}`;
    customer = demo.endpoints.customerToken;
    noRole = await mintToken({ id: 'u-nobody', roles: [] }, DEV_JWT_SECRET);
  });

  afterAll(async () => {
    controller.abort();
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => proxy?.close(resolve));
    if (demo) expect(await demo.stop()).toBe(0);
  });

  const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });

  async function raw(path: string, init: RequestInit = {}): Promise<{ status: number; body: unknown }> {
    const res = await fetch(`${base}${path}`, init);
    return { status: res.status, body: await res.json() };
  }

  async function eventually(check: () => boolean, what: string): Promise<void> {
    for (let waited = 0; !check(); waited += 25) {
      if (waited > 30_000) throw new Error(`waited 30 s for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  const lines = (pattern: RegExp): number => demo.output().split('\n').filter((line) => pattern.test(line)).length;
  const closedLines = (): number => lines(/live: orderEvents closed over/);
  const openedLines = (): number => lines(/live: orderEvents opened over/);

  it('gives for every operation what a raw fetch of its route gives', async () => {
    const client = createClient({ baseUrl: base, headers: bearer(customer) });
    expect(await client.getBook({ id: 'b1' })).toEqual((await raw('/api/v1/books/b1')).body);
    expect(await client.listBooks({ genre: 'fiction', limit: 1 })).toEqual((await raw('/api/v1/books?genre=fiction&limit=1')).body);
    expect(await client.listBooks()).toEqual((await raw('/api/v1/books')).body);

    const placed = await client.placeOrder({ lines: [{ bookId: 'b4', quantity: 1 }] });
    const placedRaw = await raw('/api/v1/orders', { method: 'POST', headers: { 'content-type': 'application/json', ...bearer(customer) }, body: JSON.stringify({ lines: [{ bookId: 'b4', quantity: 1 }] }) });
    expect(placedRaw.status).toBe(201);
    const { id: _id, createdAt: _at, ...rest } = placedRaw.body as { id: string; createdAt: string };
    expect(placed).toMatchObject(rest);
    expect(placed.status).toBe('placed');

    const mine = await client.myOrders();
    expect(mine).toEqual((await raw('/api/v1/orders', { headers: bearer(customer) })).body);
    expect(mine.map((order) => order.id)).toContain(placed.id);
  });

  it('rejects 400, 401, 403, 404 and 409 with an FwClientError carrying the code, the status and the details', async () => {
    const client = createClient({ baseUrl: base });
    const failure = (call: Promise<unknown>): Promise<unknown> => call.then(
      () => new Error('resolved'),
      (err: unknown) => err,
    );
    const invalid = await failure(client.getBook({ id: 'x1' }));
    expect(invalid).toBeInstanceOf(FwClientError);
    expect(invalid).toMatchObject({ code: 'invalid_argument', status: 400, message: 'Validation failed', details: [expect.objectContaining({ field: 'params.id', message: 'not a book id' })] });
    const order = { lines: [{ bookId: 'b3', quantity: 50 }] };
    expect(await failure(client.placeOrder(order))).toMatchObject({ name: 'FwClientError', code: 'unauthenticated', status: 401 });
    expect(await failure(client.placeOrder(order, { headers: bearer(noRole) }))).toMatchObject({ code: 'permission_denied', status: 403 });
    expect(await failure(client.getBook({ id: 'b999' }))).toMatchObject({ code: 'not_found', status: 404 });
    expect(await failure(client.placeOrder(order, { headers: bearer(customer) }))).toMatchObject({ code: 'conflict', status: 409 });
  });

  it('calls headers() for every request', async () => {
    let calls = 0;
    const client = createClient({ baseUrl: base, headers: () => (++calls === 2 ? {} : bearer(customer)) });
    await client.myOrders();
    await expect(client.myOrders()).rejects.toMatchObject({ code: 'unauthenticated' });
    await client.myOrders();
    expect(calls).toBe(3);
  });

  it('delivers the order events in order, resumes after the server drops the connection with none lost or repeated, and stops on abort', async () => {
    const client = createClient({ baseUrl: base, headers: () => bearer(customer) });
    const opened = openedLines();
    const closed = closedLines();
    const seen: OrderEvent[] = [];
    const reading = (async () => {
      for await (const event of client.orderEvents({}, { signal: controller.signal })) seen.push(event);
    })();
    await eventually(() => openedLines() === opened + 1, 'the stream to open');
    const orders: string[] = [];
    const place = async (): Promise<void> => void orders.push((await client.placeOrder({ lines: [{ bookId: 'b4', quantity: 1 }] })).id);
    await place();
    await place();
    await eventually(() => seen.length === 2, 'the first two events');

    // Every connection drops: the stream's among them.
    for (const socket of sockets) socket.destroy();
    // Let fetch's pool see its idle connections closed too, before the next call picks one.
    await new Promise((resolve) => setTimeout(resolve, 300));
    await place();
    await place();
    await eventually(() => openedLines() === opened + 2, 'the stream to reconnect');
    expect(lines(/live: orderEvents opened over \w+, resuming after /)).toBe(1);
    await place();
    await eventually(() => seen.length === 5, 'all five events');
    expect(seen.map((event) => event.orderId)).toEqual(orders);
    expect(seen.every((event) => event.status === 'placed')).toBe(true);
    expect(new Set(seen.map((event) => event.eventId)).size).toBe(5);

    controller.abort();
    await reading;
    await eventually(() => closedLines() === closed + 2, "the stream's handler to run its finally");
  });

  it('rejects a stream refused before its first event', async () => {
    const refused = await (async () => {
      for await (const event of createClient({ baseUrl: base }).orderEvents()) return event;
      return undefined;
    })().catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(FwClientError);
    expect(refused).toMatchObject({ code: 'unauthenticated', status: 401 });
  });
});
