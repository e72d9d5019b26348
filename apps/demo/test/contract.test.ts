import type { InjectRequest, InjectResponse } from '@fw/app/core';
import { checkContract, type OpenAPIDocument } from '@fw/app/openapi';
import { mintToken } from '../src/auth.js';
import { DEV_JWT_SECRET } from '../src/config.js';
import { ORDER_LIMITS } from '../src/domain/rules.js';
import { startDemoProcess, type DemoProcess } from './demo-process.js';

// The demo's own documentation, held to its real answers: every documented operation is called
// over a real socket with an example built from its schemas, and the status and body must match
// the documented response.
jest.setTimeout(60_000);

/** checkContract's in-process interface, served by real HTTP requests to the demo process. */
function overHttp(base: string) {
  return {
    async inject(request: InjectRequest): Promise<InjectResponse> {
      const headers: Record<string, string> = {};
      for (const [key, value] of Object.entries(request.headers ?? {})) if (value !== undefined) headers[key] = String(value);
      let body: string | undefined;
      if (request.body !== undefined) {
        body = typeof request.body === 'string' ? request.body : JSON.stringify(request.body);
        headers['content-type'] ??= 'application/json';
      }
      const res = await fetch(`${base}${request.url}`, { method: request.method ?? 'GET', headers, body });
      const rawBody = Buffer.from(await res.arrayBuffer());
      const text = rawBody.toString('utf8');
      return { statusCode: res.status, headers: Object.fromEntries(res.headers), body: text, rawBody, json: <T>() => JSON.parse(text) as T };
    },
  };
}

describe('the demo keeps its documented contract', () => {
  let demo: DemoProcess;

  beforeAll(async () => {
    demo = await startDemoProcess({ RATE_LIMIT_MAX: '100000', JWT_SECRET: DEV_JWT_SECRET });
  });

  afterAll(async () => {
    if (demo) await demo.stop();
  });

  it('serves one document for both versions and one per version', async () => {
    const all = (await fetch(`${demo.endpoints.rest}/openapi.json`).then((r) => r.json())) as OpenAPIDocument;
    expect(all.openapi).toBe('3.1.0');
    expect(Object.keys(all.paths ?? {})).toEqual(expect.arrayContaining(['/api/v1/books', '/api/v1/books/{id}', '/api/v2/books', '/api/v1/orders']));
    const docs = await fetch(`${demo.endpoints.rest}/docs`);
    expect(docs.status).toBe(200);
    expect(await docs.text()).not.toMatch(/https?:\/\/(?!127\.0\.0\.1|localhost)/);
  });

  it('answers every error status a v1 route can give with a status its document lists', async () => {
    const base = demo.endpoints.rest;
    const document = (await fetch(`${base}/api/v1/openapi.json`).then((r) => r.json())) as OpenAPIDocument;
    // A valid token of a user with no role, and unknown to the store.
    const guest = { authorization: `Bearer ${await mintToken({ id: 'u-guest', roles: [] }, DEV_JWT_SECRET)}` };
    const customer = { authorization: `Bearer ${demo.endpoints.customerToken}` };
    const anonymous = { authorization: '' };
    const newBook = { title: 'Contract errors', author: 'Test', genre: 'science', priceCents: 100, stock: 1 };
    const report = await checkContract(overHttp(base), document, {
      basePath: '/api/v1',
      headers: { authorization: `Bearer ${demo.endpoints.adminToken}` },
      operations: {
        listBooks: [{ status: 200 }, { query: { limit: 1000 }, status: 400 }],
        getBook: [{ params: { id: 'b1' }, status: 200 }, { params: { id: 'b404' }, status: 404 }, { params: { id: 'x1' }, status: 400 }],
        postBooks: [
          { body: newBook, status: 201 },
          { body: newBook, status: 409 },
          { body: { title: '' }, status: 400 },
          { body: newBook, headers: anonymous, status: 401 },
          { body: newBook, headers: customer, status: 403 },
        ],
        postBooksByIdRestock: [{ params: { id: 'b404' }, body: { quantity: 1 }, status: 404 }, { params: { id: 'b1' }, body: { quantity: 0 }, status: 400 }],
        deleteBooksById: [{ params: { id: 'b404' }, status: 404 }, { params: { id: 'b1' }, headers: customer, status: 403 }],
        myOrders: [{ status: 200 }, { headers: anonymous, status: 401 }, { headers: guest, status: 403 }],
        placeOrder: [
          { body: { lines: [{ bookId: 'b4', quantity: 1 }] }, status: 201 },
          { body: { lines: [{ bookId: 'b3', quantity: 2 }, { bookId: 'b3', quantity: 2 }] }, status: 409 },
          { body: { lines: [{ bookId: 'b404', quantity: 1 }] }, status: 404 },
          { body: { lines: Array.from({ length: ORDER_LIMITS.maxLines + 1 }, () => ({ bookId: 'b4', quantity: 1 })) }, status: 400 },
          { body: { lines: [{ bookId: 'b4', quantity: 1 }] }, headers: anonymous, status: 401 },
          { body: { lines: [{ bookId: 'b4', quantity: 1 }] }, headers: guest, status: 403 },
        ],
        getMe: [{ status: 200 }, { headers: anonymous, status: 401 }, { headers: guest, status: 404 }],
        // The event streams' refusals are a status and a JSON body, sent before any event. (Their 200
        // is an endless text/event-stream, which checkContract cannot read to its end: the live
        // events' own test reads it.)
        orderEvents: [{ headers: anonymous, status: 401 }, { headers: guest, status: 403 }, { query: { orderId: 'x' }, status: 400 }],
        stockEvents: [{ query: { bookId: 'x1' }, status: 400 }],
        postOrdersByIdStatus: [
          { params: { id: 'o-unknown' }, body: { status: 'shipped' }, status: 404 },
          { params: { id: 'o-unknown' }, body: { status: 'lost' }, status: 400 },
          { params: { id: 'o-unknown' }, body: { status: 'shipped' }, headers: customer, status: 403 },
        ],
      },
    });
    if (!report.ok) throw new Error(report.summary);
    expect(new Set(report.results.map((r) => r.status))).toEqual(new Set([200, 201, 400, 401, 403, 404, 409]));
    // Every route is limited by the global rateLimit: 429 is documented on each.
    for (const item of Object.values(document.paths)) for (const operation of Object.values(item)) expect(Object.keys((operation as { responses: object }).responses)).toContain('429');
  });

  it.each([['v1'], ['v2']])('answers every %s operation as documented', async (version) => {
    const base = demo.endpoints.rest;
    const document = (await fetch(`${base}/api/${version}/openapi.json`).then((r) => r.json())) as OpenAPIDocument;
    const report = await checkContract(overHttp(base), document, {
      basePath: `/api/${version}`,
      headers: { authorization: `Bearer ${demo.endpoints.adminToken}` },
      operations: {
        // Writes use ids that later reads do not need.
        deleteBooksById: { params: { id: 'b5' }, status: 204 },
        postBooksByIdRestock: { params: { id: 'b2' }, body: { quantity: 3 } },
        placeOrder: { body: { lines: [{ bookId: 'b4', quantity: 1 }] }, status: 201 },
        postBooks: { body: { title: `Contract ${version}`, author: 'Test', genre: 'science', priceCents: 100, stock: 1 }, status: 201 },
        // An endless text/event-stream: read by the live events' test, not here.
        orderEvents: { skip: true },
        stockEvents: { skip: true },
        // Needs an order id of this run: its success is checked below.
        postOrdersByIdStatus: { skip: true },
      },
    });
    if (!report.ok) throw new Error(report.summary);
    expect(report.results.filter((r) => !r.skipped).length).toBeGreaterThan(version === 'v1' ? 6 : 1);
  });

  it('moves an order on as documented (admin), and refuses to move it back with 409', async () => {
    const base = demo.endpoints.rest;
    const document = (await fetch(`${base}/api/v1/openapi.json`).then((r) => r.json())) as OpenAPIDocument;
    const placed = await fetch(`${base}/api/v1/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${demo.endpoints.customerToken}` },
      body: JSON.stringify({ lines: [{ bookId: 'b4', quantity: 1 }] }),
    });
    const { id } = (await placed.json()) as { id: string };
    const report = await checkContract(overHttp(base), document, {
      basePath: '/api/v1',
      headers: { authorization: `Bearer ${demo.endpoints.adminToken}` },
      operations: Object.fromEntries(
        Object.values(document.paths)
          .flatMap((item) => Object.values(item) as Array<{ operationId: string }>)
          .map(({ operationId }) => [
            operationId,
            operationId === 'postOrdersByIdStatus'
              ? [{ params: { id }, body: { status: 'delivered' }, status: 200 }, { params: { id }, body: { status: 'shipped' }, status: 409 }]
              : { skip: true },
          ]),
      ),
    });
    if (!report.ok) throw new Error(report.summary);
    expect(report.results.filter((r) => !r.skipped).map((r) => r.status)).toEqual([200, 409]);
  });
});
