import { checkContract, type InjectRequest, type InjectResponse, type OpenAPIDocument } from '@fw/app';
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
    demo = await startDemoProcess({ RATE_LIMIT_MAX: '100000' });
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
        postOrders: { body: { lines: [{ bookId: 'b4', quantity: 1 }] }, status: 201 },
        postBooks: { body: { title: `Contract ${version}`, author: 'Test', genre: 'science', priceCents: 100, stock: 1 }, status: 201 },
      },
    });
    if (!report.ok) throw new Error(report.summary);
    expect(report.results.filter((r) => !r.skipped).length).toBeGreaterThan(version === 'v1' ? 6 : 1);
  });
});
