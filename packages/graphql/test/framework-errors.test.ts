import { HTTPError, type Application } from '@fw/core';
import { gql, schema, serve, type Served } from './helpers.js';

const rootValue = { hello: () => 'hi' };

/** A stand-in for rateLimit(): refuses requests that carry `x-limited`. */
function limiter(app: Application): void {
  app.use(async (ctx, next) => {
    if (ctx.headers['x-limited'] !== undefined) throw new HTTPError(429, 'Too Many Requests', undefined, { headers: { 'retry-after': '5' } });
    if (ctx.headers['x-anonymous'] !== undefined) throw new HTTPError(401, 'Sign in first', undefined, { headers: { 'www-authenticate': 'Bearer realm="api"' } });
    if (ctx.headers['x-invalid'] !== undefined) throw new HTTPError(422, 'Bad input', { field: 'name' });
    if (ctx.headers['x-crash'] !== undefined) throw new Error('database password is hunter2');
    if (ctx.headers['x-read-body'] !== undefined) await ctx.parseBody();
    await next();
  });
}

describe('errors thrown before the GraphQL handler, on the GraphQL path', () => {
  let served: Served;
  const logged: string[] = [];

  beforeAll(async () => {
    served = await serve(
      { schema, rootValue, onLog: (message) => logged.push(message) },
      (app) => {
        app.use(async (ctx, next) => {
          ctx.setHeader('access-control-allow-origin', '*');
          await next();
        });
        limiter(app);
        app.get('/rest', (ctx) => ctx.json({ ok: true }));
      },
      { bodyLimit: 200, onLog: () => undefined },
    );
  });
  afterAll(() => served.close());

  it('answer a 429 as a GraphQL response, keeping the status and Retry-After', async () => {
    const res = await gql(served.endpoint, { query: '{ hello }' }, { headers: { 'x-limited': '1' } });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('5');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('content-type')).toBe('application/graphql-response+json; charset=utf-8');
    expect(res.body).toEqual({ errors: [{ message: 'Too Many Requests', extensions: { code: 'TOO_MANY_REQUESTS', status: 429 } }] });
  });

  it('answer a 401 with WWW-Authenticate, as application/json when that is what the client accepts', async () => {
    const res = await gql(served.endpoint, { query: '{ hello }' }, { method: 'GET', accept: 'application/json', headers: { 'x-anonymous': '1' } });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="api"');
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.body).toEqual({ errors: [{ message: 'Sign in first', extensions: { code: 'UNAUTHENTICATED', status: 401 } }] });
  });

  it('keep the details of an HTTPError', async () => {
    const res = await gql(served.endpoint, { query: '{ hello }' }, { headers: { 'x-invalid': '1' } });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ errors: [{ message: 'Bad input', extensions: { code: 'UNPROCESSABLE_ENTITY', status: 422, details: { field: 'name' } } }] });
  });

  it("answer a 413 from a middleware that read the body as a GraphQL response", async () => {
    const res = await gql(served.endpoint, { query: `{ hello } # ${'x'.repeat(300)}` }, { headers: { 'x-read-body': '1' } });
    expect(res.status).toBe(413);
    expect(res.body.errors[0].extensions).toEqual({ code: 'PAYLOAD_TOO_LARGE', status: 413 });
  });

  it('mask an unexpected error as a 500 GraphQL response and log it', async () => {
    logged.length = 0;
    const res = await gql(served.endpoint, { query: '{ hello }' }, { headers: { 'x-crash': '1' } });
    expect(res.status).toBe(500);
    expect(res.text).not.toContain('hunter2');
    expect(res.body).toEqual({ errors: [{ message: 'Internal server error', extensions: { code: 'INTERNAL_SERVER_ERROR', status: 500 } }] });
    expect(logged).toEqual(['GraphQL request failed on POST /graphql: database password is hunter2']);
  });

  it('leave the REST error body on other paths', async () => {
    const res = await fetch(`${served.url}/rest`, { headers: { 'x-limited': '1' } });
    expect(res.status).toBe(429);
    expect(await res.json()).toMatchObject({ error: true, message: 'Too Many Requests' });
  });
});

describe("a user's error middleware on the GraphQL path", () => {
  it('sees the error first, and its own answer stands', async () => {
    const seen: unknown[] = [];
    const served = await serve({ schema, rootValue }, (app) => {
      app.use(async (ctx, next) => {
        try {
          await next();
        } catch (err) {
          seen.push(err);
          if (ctx.headers['x-handle'] !== undefined) ctx.json({ handled: true }, 503);
          else throw err;
        }
      });
      limiter(app);
    });
    try {
      const handled = await gql(served.endpoint, { query: '{ hello }' }, { headers: { 'x-limited': '1', 'x-handle': '1' } });
      expect(handled.status).toBe(503);
      expect(handled.body).toEqual({ handled: true });
      const rethrown = await gql(served.endpoint, { query: '{ hello }' }, { headers: { 'x-limited': '1' } });
      expect(rethrown.status).toBe(429);
      expect(rethrown.body.errors[0].message).toBe('Too Many Requests');
      expect(seen).toHaveLength(2);
      expect(seen[0]).toBeInstanceOf(HTTPError);
    } finally {
      await served.close();
    }
  });
});
