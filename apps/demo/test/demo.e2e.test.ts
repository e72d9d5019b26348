import * as http from 'node:http';
import * as grpc from '@grpc/grpc-js';
import { catalogClient, metadata, reflect, unary, type CatalogClient } from './grpc-client.js';
import { startDemoProcess, type DemoProcess } from './demo-process.js';

// The demo as a newcomer runs it: a child process started like `pnpm demo`, then one real
// client per protocol. Built first by turbo (the test task depends on the build).
jest.setTimeout(60_000);

async function gql(url: string, query: string, variables?: Record<string, unknown>, token?: string) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ query, variables }),
  });
  return { status: res.status, body: (await res.json()) as { data?: Record<string, unknown> | null; errors?: Array<{ message: string; extensions?: { code?: string; status?: number } }> } };
}

describe('the demo on all three protocols', () => {
  let demo: DemoProcess;
  let api: string;
  let client: CatalogClient;

  beforeAll(async () => {
    demo = await startDemoProcess({ RATE_LIMIT_MAX: '80' });
    api = demo.endpoints.rest;
    client = catalogClient(demo.endpoints.grpc);
  });

  afterAll(async () => {
    client?.close();
    if (demo) expect(await demo.stop()).toBe(0);
  });

  describe('REST', () => {
    it('serves v1 and v2 side by side', async () => {
      const v1 = (await fetch(`${api}/api/v1/books?genre=fiction`).then((r) => r.json())) as Array<{ id: string }>;
      expect(v1.map((b) => b.id)).toEqual(['b1', 'b5']);
      const v2 = await fetch(`${api}/api/v2/books/b2`).then((r) => r.json());
      expect(v2).toMatchObject({ id: 'b2', price: { amount: '15.99', currency: 'EUR' }, inStock: true });
    });

    it('answers 401 without a token and 403 with a token lacking the role', async () => {
      const body = { title: 'Kindred', author: 'Octavia E. Butler', genre: 'fiction', priceCents: 1499, stock: 4 };
      const anonymous = await fetch(`${api}/api/v1/books`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer/);
      const customer = await fetch(`${api}/api/v1/books`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${demo.endpoints.customerToken}` }, body: JSON.stringify(body) });
      expect(customer.status).toBe(403);
      const admin = await fetch(`${api}/api/v1/books`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${demo.endpoints.adminToken}` }, body: JSON.stringify(body) });
      expect(admin.status).toBe(201);
      expect(await admin.json()).toMatchObject({ title: 'Kindred', stock: 4 });
    });

    it('answers a validation failure with the spec body', async () => {
      const res = await fetch(`${api}/api/v1/books`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${demo.endpoints.adminToken}` },
        body: JSON.stringify({ title: '', genre: 'poetry', priceCents: -1 }),
      });
      expect(res.status).toBe(400);
      const body = (await res.json()) as { details: { errors: Array<{ field: string }> } };
      expect(body).toMatchObject({ error: true, message: 'Validation failed', code: 400 });
      const fields = body.details.errors.map((e) => e.field).sort();
      expect(fields).toEqual(['body.author', 'body.genre', 'body.priceCents', 'body.title']);
      for (const entry of body.details.errors) expect(Object.keys(entry).sort()).toEqual(['code', 'field', 'message']);
    });

    it('places an order for the token holder and refuses one that exceeds stock with 409', async () => {
      const headers = { 'content-type': 'application/json', authorization: `Bearer ${demo.endpoints.customerToken}` };
      const ok = await fetch(`${api}/api/v1/orders`, { method: 'POST', headers, body: JSON.stringify({ lines: [{ bookId: 'b4', quantity: 2 }] }) });
      expect(ok.status).toBe(201);
      expect(await ok.json()).toMatchObject({ userId: 'u-reader', totalCents: 1798 });
      const tooMany = await fetch(`${api}/api/v1/orders`, { method: 'POST', headers, body: JSON.stringify({ lines: [{ bookId: 'b3', quantity: 99 }] }) });
      expect(tooMany.status).toBe(409);
      expect(await tooMany.json()).toMatchObject({ error: true, code: 409, details: { bookId: 'b3', available: 3 } });
    });

    it('allows the traceparent and tracestate request headers in a CORS preflight', async () => {
      const res = await fetch(`${api}/api/v1/books`, {
        method: 'OPTIONS',
        headers: { origin: 'https://shop.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type, traceparent, tracestate' },
      });
      expect(res.status).toBe(204);
      const allowed = (res.headers.get('access-control-allow-headers') ?? '').toLowerCase().split(/\s*,\s*/);
      expect(allowed).toEqual(expect.arrayContaining(['authorization', 'content-type', 'traceparent', 'tracestate']));
    });
  });

  describe('GraphQL', () => {
    it('answers a query with variables', async () => {
      const res = await gql(demo.endpoints.graphql, 'query($g: Genre) { listBooks(genre: $g) { id } }', { g: 'history' });
      expect(res).toEqual({ status: 200, body: { data: { listBooks: [{ id: 'b3' }] } } });
    });

    it('runs a mutation as the user of the Authorization header (ctx.user, through the context factory)', async () => {
      const res = await gql(demo.endpoints.graphql, 'mutation { placeOrder(input: { lines: [{ bookId: "b1", quantity: 1 }] }) { userId totalCents lines { bookId quantity priceCents } } }', undefined, demo.endpoints.customerToken);
      expect(res.body).toEqual({ data: { placeOrder: { userId: 'u-reader', totalCents: 1299, lines: [{ bookId: 'b1', quantity: 1, priceCents: 1299 }] } } });
      const mine = await gql(demo.endpoints.graphql, '{ myOrders { totalCents } }', undefined, demo.endpoints.customerToken);
      expect(mine.body.data?.myOrders).toEqual(expect.arrayContaining([{ totalCents: 1299 }]));
    });

    it('refuses the mutation without a token with an UNAUTHENTICATED error', async () => {
      const res = await gql(demo.endpoints.graphql, 'mutation { placeOrder(input: { lines: [{ bookId: "b1", quantity: 1 }] }) { id } }');
      expect(res.body.errors?.[0]).toMatchObject({ extensions: { code: 'UNAUTHENTICATED', status: 401 } });
    });
  });

  describe('gRPC', () => {
    it('answers a unary call', async () => {
      // The generated GetBookResponse carries the named Book as one field; fields are lower_snake_case.
      const { book } = await unary<{ book: Record<string, unknown> }>((cb) => client.GetBook({ id: 'b2' }, metadata(), cb));
      expect(book).toMatchObject({ id: 'b2', title: 'A Brief History of Time', price_cents: 1599, genre: 'GENRE_SCIENCE' });
      await expect(unary((cb) => client.GetBook({ id: 'b404' }, metadata(), cb))).rejects.toMatchObject({ code: grpc.status.NOT_FOUND });
    });

    it('lists the catalogue, with the generated enum names', async () => {
      const all = await unary<{ items: Array<Record<string, unknown>> }>((cb) => client.ListBooks({}, metadata(), cb));
      // The seeded five plus the book the REST test added.
      expect(all.items.map((b) => b.id)).toEqual(expect.arrayContaining(['b1', 'b2', 'b3', 'b4', 'b5']));
      expect(all.items).toHaveLength(6);
      const science = await unary<{ items: Array<Record<string, unknown>> }>((cb) => client.ListBooks({ genre: 'GENRE_SCIENCE', limit: 1 }, metadata(), cb));
      expect(science.items).toEqual([expect.objectContaining({ id: 'b2', genre: 'GENRE_SCIENCE' })]);
    });

    it('serves server reflection, so grpcurl can list and describe the service without the proto file', async () => {
      const listed = await reflect(demo.endpoints.grpc, { list_services: '' });
      expect(listed.list_services_response?.service.map((s) => s.name)).toContain('bookstore.Catalog');
      const described = await reflect(demo.endpoints.grpc, { file_containing_symbol: 'bookstore.Catalog' });
      expect(described.error_response).toBeUndefined();
      const files = described.file_descriptor_response?.file_descriptor_proto ?? [];
      expect(files.some((file) => Buffer.from(file).toString('latin1').includes('PlaceOrder'))).toBe(true);
    });

    it('places an order with metadata auth, and refuses one without', async () => {
      const { order } = await unary<{ order: Record<string, unknown> }>((cb) => client.PlaceOrder({ lines: [{ book_id: 'b4', quantity: 1 }] }, metadata(demo.endpoints.customerToken), cb));
      expect(order).toMatchObject({ user_id: 'u-reader', total_cents: 899, status: 'ORDER_STATUS_PLACED' });
      const mine = await unary<{ items: Array<Record<string, unknown>> }>((cb) => client.MyOrders({}, metadata(demo.endpoints.customerToken), cb));
      expect(mine.items.map((o) => o.id)).toContain(order.id);
      await expect(unary((cb) => client.PlaceOrder({ lines: [{ book_id: 'b4', quantity: 1 }] }, metadata(), cb))).rejects.toMatchObject({ code: grpc.status.UNAUTHENTICATED });
      await expect(unary((cb) => client.PlaceOrder({ lines: [{ book_id: 'b4', quantity: 1 }] }, metadata('not-a-jwt'), cb))).rejects.toMatchObject({ code: grpc.status.UNAUTHENTICATED });
      await expect(unary((cb) => client.MyOrders({}, metadata(), cb))).rejects.toMatchObject({ code: grpc.status.UNAUTHENTICATED });
    });
  });

  it('refuses a malformed book id with the same validation on every protocol (one operation, getBook)', async () => {
    const rest = await fetch(`${api}/api/v1/books/x1`);
    expect(rest.status).toBe(400);
    expect(((await rest.json()) as { details: { errors: Array<{ field: string }> } }).details.errors.map((e) => e.field)).toEqual(['params.id']);
    const res = await gql(demo.endpoints.graphql, '{ getBook(id: "x1") { id } }');
    expect(res.body.errors?.[0]).toMatchObject({ message: 'Validation failed', extensions: { code: 'BAD_USER_INPUT', status: 400 } });
    await expect(unary((cb) => client.GetBook({ id: 'x1' }, metadata(), cb))).rejects.toMatchObject({ code: grpc.status.INVALID_ARGUMENT, details: 'Validation failed' });
  });

  it('limits a burst with 429 and Retry-After, but never the health check (last: it uses up the window)', async () => {
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    for (let i = 0; i < 90; i++) {
      const res = await fetch(`${api}/`);
      statuses.push(res.status);
      if (res.status === 429) {
        retryAfter = res.headers.get('retry-after');
        expect(await res.json()).toMatchObject({ error: true, code: 429, message: 'Too many requests, please try again later' });
      } else await res.arrayBuffer();
    }
    expect(statuses).toContain(429);
    expect(statuses.filter((s) => s !== 200 && s !== 429)).toEqual([]);
    expect(Number(retryAfter)).toBeGreaterThan(0);
    // The window is used up: the health check still answers, and does not count.
    for (let i = 0; i < 3; i++) {
      const health = await fetch(`${api}/healthz`);
      expect(health.status).toBe(200);
      expect(await health.json()).toEqual({ ok: true });
    }
  });
});

/** One request on a client's own kept-alive connection: its status and whether the server asked to close. */
function send(agent: http.Agent, url: string, body?: string): Promise<{ status: number | string; close: boolean }> {
  return new Promise((resolve) => {
    const req = http.request(url, { agent, method: body ? 'POST' : 'GET', headers: body ? { 'content-type': 'application/json' } : {} }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, close: res.headers.connection === 'close' }));
      res.on('error', (err: NodeJS.ErrnoException) => resolve({ status: err.code ?? err.message, close: true }));
    });
    // A kept-alive connection the server closed while idle, as the request left on it: before any
    // answer, on a reused socket (what node's http docs say a client retries). Anything else is an error.
    req.on('error', (err: NodeJS.ErrnoException) => resolve({ status: req.reusedSocket && err.code === 'ECONNRESET' ? IDLE_CLOSED : (err.code ?? err.message), close: true }));
    req.end(body);
  });
}

const IDLE_CLOSED = 'reset on a reused idle connection';

describe('graceful shutdown of the demo', () => {
  it('finishes in-flight requests and calls on SIGTERM, refuses new ones, and exits 0', async () => {
    const demo = await startDemoProcess({ RATE_LIMIT_MAX: '100000' });
    const client = catalogClient(demo.endpoints.grpc);
    try {
      // Ten kept-alive clients send REST and GraphQL requests back to back; SIGTERM lands while
      // they run, and gRPC calls are in flight at that moment. Each client behaves as one behind a
      // load balancer would: once told `Connection: close` (or refused), it sends no more here.
      let stopped = false;
      let draining = false;
      const outcomes: Array<number | string> = [];
      const answered = new Set<number>();
      const worker = async (i: number): Promise<void> => {
        // One connection per client, reused request after request.
        const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
        try {
          while (!stopped) {
            const result = i % 2 === 0
              ? await send(agent, `${demo.endpoints.rest}/api/v2/books?limit=5`)
              : await send(agent, demo.endpoints.graphql, JSON.stringify({ query: '{ listBooks { id } }' }));
            // The drain closes idle kept-alive connections after a grace; one a client reused at
            // that instant is reset before the request reached a handler (on a loaded machine the
            // gap between two requests of one client is long enough for that). Only then.
            outcomes.push(result.status === IDLE_CLOSED && !draining ? `${IDLE_CLOSED} before SIGTERM` : result.status);
            answered.add(i);
            if (result.close) return;
          }
        } finally {
          agent.destroy();
        }
      };
      const workers = Array.from({ length: 10 }, (_, i) => worker(i));
      // SIGTERM once every client has its connection (a fixed wait raced the first connects on a
      // busy machine: one still in the kernel's accept queue when listening stops is reset, which
      // no server can answer), then a little more of them running.
      for (let waited = 0; answered.size < 10 && waited < 10_000; waited += 10) await new Promise((r) => setTimeout(r, 10));
      await new Promise((r) => setTimeout(r, 100));
      const calls = Array.from({ length: 3 }, () => new Promise<number | string>((resolve) => {
        client.ListBooks({}, metadata(), (err, page) => resolve(err ? `error: ${err.message}` : (page?.items.length ?? 0)));
      }));
      draining = true;
      const exit = demo.stop();
      const code = await exit;
      stopped = true;
      await Promise.all(workers);
      // Every request the server accepted got its real answer (200), or a 503 when it arrived on a
      // kept-alive connection during the drain; after that, connections are refused. None was
      // cut off mid-way (no reset of an answer or of a fresh connection, no hang-up).
      const unexpected = outcomes.filter((o) => o !== 200 && o !== 503 && o !== 'ECONNREFUSED' && o !== IDLE_CLOSED);
      expect(unexpected).toEqual([]);
      expect(outcomes.filter((o) => o === 200).length).toBeGreaterThan(0);
      for (const result of await Promise.all(calls)) {
        expect(result === 5 || (typeof result === 'string' && /UNAVAILABLE|No connection established|ECONNREFUSED/i.test(result))).toBe(true);
      }
      expect(code).toBe(0);
      expect(demo.output()).toContain('demo stopped');
    } finally {
      client.close();
      await demo.stop();
    }
  });
});
