import type { Application } from '../../src/index.js';
import { errorOf, exchange, fetchRaw, naiveMerge, prototypePolluted, RawSocket, start, type Started } from '../hostile/support.js';

// Hostile HTTP input, each case through a real socket: a clear 4xx, and the process then serves
// the next request. Node's own HTTP parser answers some cases (bad framing, bad header bytes);
// those answers are part of the contract too, since users see them.

const BODY_LIMIT = 64 * 1024;

function routes(app: Application): void {
  app.get('/ok', (ctx) => ctx.text('ok'));
  app.post('/echo', (ctx) => ctx.json({ body: ctx.body ?? null, type: ctx.body === undefined ? 'unread' : typeof ctx.body }));
  // Runs every body and query through a naive deep merge, as plenty of real handlers do.
  app.post('/merge', (ctx) => ctx.json({ merged: naiveMerge({}, ctx.body) }));
  app.get('/query', (ctx) => {
    const query = ctx.query as Record<string, unknown>;
    naiveMerge({}, query);
    ctx.json({ keys: Object.keys(query).length, nullPrototype: Object.getPrototypeOf(query) === null, query });
  });
  app.post('/accept', (ctx) => ctx.json({ type: typeof ctx.body }));
  app.get('/users/:id', (ctx) => ctx.json({ length: ctx.params.id.length, id: ctx.params.id }));
}

describe('hostile HTTP input on a real socket', () => {
  let server: Started;
  let port: number;

  beforeAll(async () => {
    server = await start({ bodyLimit: BODY_LIMIT }, routes);
    port = server.port;
  });

  afterAll(async () => {
    await server.app.close();
  });

  afterEach(async () => {
    // Whatever the case did, nothing leaked into Object.prototype and the next request is served.
    expect(prototypePolluted()).toBe(false);
    const next = await fetchRaw(port, '/ok');
    expect(next).toMatchObject({ status: 200, text: 'ok' });
  });

  const post = (path: string, type: string, body: string | Buffer, extra = ''): string | Buffer => {
    const head = `POST ${path} HTTP/1.1\r\nHost: t\r\nContent-Type: ${type}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${extra}\r\n`;
    return typeof body === 'string' ? head + body : Buffer.concat([Buffer.from(head), body]);
  };

  describe('JSON bodies', () => {
    it('the merge these handlers use really does pollute Object.prototype with a plain JSON.parse result (the danger is real)', () => {
      naiveMerge({}, JSON.parse('{"__proto__":{"polluted":true}}'));
      expect(prototypePolluted()).toBe(true);
      delete (Object.prototype as Record<string, unknown>)['polluted'];
      expect(prototypePolluted()).toBe(false);
    });

    it('answers 400 to malformed JSON and keeps the connection for the next request', async () => {
      const socket = await RawSocket.open(port);
      await socket.write(post('/echo', 'application/json', '{"a":'));
      await socket.write('GET /ok HTTP/1.1\r\nHost: t\r\n\r\n');
      await socket.until((s) => s.statuses.length === 2);
      expect(socket.statuses).toEqual([400, 200]);
      expect(socket.text).toContain('"message":"Malformed JSON in request body"');
      socket.destroy();
    });

    it.each([
      ['__proto__', '{"__proto__":{"polluted":true}}'],
      ['nested __proto__', '{"a":{"b":[{"__proto__":{"polluted":true}}]}}'],
      ['constructor.prototype', '{"constructor":{"prototype":{"polluted":true}}}'],
      ['nested constructor.prototype', '{"user":{"constructor":{"prototype":{"polluted":true}}}}'],
      ['__proto__ spelled with a \\u escape', '{"\\u005f_proto__":{"polluted":true}}'],
      ['constructor spelled with \\u escapes', '{"\\u0063onstructor":{"\\u0070rototype":{"polluted":true}}}'],
    ])('refuses a JSON body with a %s key with 400, so a later merge cannot pollute', async (_name, body) => {
      const res = await exchange(port, post('/merge', 'application/json', body));
      expect(res.status).toBe(400);
      expect(errorOf(res.body)).toEqual({ error: true, code: 400, message: 'Request body contains a forbidden key (__proto__ or constructor.prototype)' });
    });

    it('accepts "constructor" and "prototype" as ordinary keys', async () => {
      const res = await exchange(port, post('/merge', 'application/json', '{"constructor":"Ada","prototype":1,"proto":{"x":1}}'));
      expect(res.status).toBe(200);
      expect(JSON.parse(res.body)).toEqual({ merged: { constructor: 'Ada', prototype: 1, proto: { x: 1 } } });
    });

    it('refuses a JSON body nested deeper than the call stack with 400, not a 500 from a stack overflow', async () => {
      const depth = 20_000;
      const deep = `{"constructor":1,"a":${'['.repeat(depth)}${']'.repeat(depth)}}`;
      const refusedDeep = await exchange(port, post('/accept', 'application/json', deep));
      expect(refusedDeep.status).toBe(400);
      expect(errorOf(refusedDeep.body)).toEqual({ error: true, code: 400, message: 'JSON nested deeper than 64 levels' });
      const hidden = `{"x":${'['.repeat(depth)}{"\\u005f_proto__":{"polluted":true}}${']'.repeat(depth)}}`;
      const refused = await exchange(port, post('/merge', 'application/json', hidden));
      expect(refused.status).toBe(400);
      expect(server.logged).toEqual([]);
    });
  });

  describe('query strings and URL-encoded bodies', () => {
    it('keeps __proto__, constructor and bracket keys as plain keys of a null-prototype object', async () => {
      const res = await exchange(port, 'GET /query?__proto__[polluted]=1&__proto__=x&constructor[prototype][polluted]=1&a[b][c]=d HTTP/1.1\r\nHost: t\r\n\r\n');
      expect(res.status).toBe(200);
      expect(JSON.parse(res.body)).toEqual({
        keys: 4,
        nullPrototype: true,
        query: { '__proto__[polluted]': '1', ['__proto__']: 'x', 'constructor[prototype][polluted]': '1', 'a[b][c]': 'd' },
      });
    });

    it('keeps the same keys plain in a URL-encoded body', async () => {
      const res = await exchange(port, post('/merge', 'application/x-www-form-urlencoded', '__proto__[polluted]=1&__proto__=x&constructor[prototype][polluted]=1'));
      expect(res.status).toBe(200);
      expect(JSON.parse(res.body).merged).toEqual({ '__proto__[polluted]': '1', 'constructor[prototype][polluted]': '1' });
    });

    it('collects repeated keys into an array, in order', async () => {
      const res = await exchange(port, `GET /query?a=1&a=2&b=x&a=3 HTTP/1.1\r\nHost: t\r\n\r\n`);
      expect(JSON.parse(res.body).query).toEqual({ a: ['1', '2', '3'], b: 'x' });
    });

    it('serves 1000 keys and refuses 1001 with 400 (the maxQueryKeys limit)', async () => {
      const keys = (n: number): string => Array.from({ length: n }, (_, i) => `k${i}=1`).join('&');
      const ok = await exchange(port, `GET /query?${keys(1000)} HTTP/1.1\r\nHost: t\r\n\r\n`);
      expect(ok.status).toBe(200);
      expect(JSON.parse(ok.body).keys).toBe(1000);
      const refused = await exchange(port, `GET /query?${keys(1001)} HTTP/1.1\r\nHost: t\r\n\r\n`);
      expect(refused.status).toBe(400);
      expect(errorOf(refused.body).message).toBe('Too many parameters in query string (limit 1000)');
    });

    it('refuses thousands of repeated keys with 400, in a query and in a form body', async () => {
      const query = await exchange(port, `GET /query?${'a&'.repeat(3000)} HTTP/1.1\r\nHost: t\r\n\r\n`);
      expect(query.status).toBe(400);
      const form = await exchange(port, post('/echo', 'application/x-www-form-urlencoded', 'a=1&'.repeat(5000)));
      expect(form.status).toBe(400);
      expect(errorOf(form.body).message).toBe('Too many parameters in request body (limit 1000)');
    });

    it('treats deep brackets as one literal key, with no nesting to exhaust', async () => {
      const key = `a${'[b]'.repeat(1000)}`;
      const res = await exchange(port, `GET /query?${key}=1 HTTP/1.1\r\nHost: t\r\n\r\n`);
      expect(res.status).toBe(200);
      expect(JSON.parse(res.body).query).toEqual({ [key]: '1' });
    });

    it.each(['%zz', '%E0%A4%A', '%ED%A0%80', '%'])('answers 400 to invalid percent-encoding %s in a query value', async (bad) => {
      const res = await exchange(port, `GET /query?a=${bad} HTTP/1.1\r\nHost: t\r\n\r\n`);
      expect(res.status).toBe(400);
      expect(errorOf(res.body).message).toBe('Invalid percent-encoding in query string');
    });

    it('answers 400 to invalid percent-encoding in a form body', async () => {
      const res = await exchange(port, post('/echo', 'application/x-www-form-urlencoded', 'a=%zz'));
      expect(res.status).toBe(400);
      expect(errorOf(res.body).message).toBe('Invalid percent-encoding in request body');
    });
  });

  describe('paths and URLs', () => {
    it.each(['/users/%zz', '/users/%E0%A4%A', '/users/%ED%A0%80', '/nowhere/%'])('answers 400 to invalid percent-encoding in the path %s', async (path) => {
      const res = await exchange(port, `GET ${path} HTTP/1.1\r\nHost: t\r\n\r\n`);
      expect(res.status).toBe(400);
      expect(errorOf(res.body).message).toBe('Invalid percent-encoding in path');
    });

    it('serves a param value of 8000 characters in full (the URL limit is the only bound)', async () => {
      const value = 'x'.repeat(8000);
      const res = await exchange(port, `GET /users/${value} HTTP/1.1\r\nHost: t\r\n\r\n`);
      expect(res.status).toBe(200);
      expect(JSON.parse(res.body)).toEqual({ length: 8000, id: value });
    });

    it('answers 414 to a URL longer than maxUrlLength (8192)', async () => {
      const res = await exchange(port, `GET /users/${'x'.repeat(9000)} HTTP/1.1\r\nHost: t\r\n\r\n`);
      expect(res.status).toBe(414);
      expect(errorOf(res.body)).toEqual({ error: true, code: 414, message: 'Request URL is longer than 8192 characters' });
    });

    it("answers 431 (node's header size limit) to a request line past 16 KiB, and closes", async () => {
      const res = await exchange(port, `GET /query?a=${'x'.repeat(20_000)} HTTP/1.1\r\nHost: t\r\n\r\n`);
      expect(res.status).toBe(431);
      expect(res.closed).toBe(true);
    });

    it('routes an absolute-form URL by its path, and answers 405 to a method nobody registered', async () => {
      const absolute = await exchange(port, 'GET http://elsewhere.example/ok HTTP/1.1\r\nHost: t\r\n\r\n');
      expect([absolute.status, absolute.body]).toEqual([200, 'ok']);
      const propfind = await exchange(port, 'PROPFIND /ok HTTP/1.1\r\nHost: t\r\n\r\n');
      expect(propfind.status).toBe(405);
      expect(propfind.head).toMatch(/\r\nallow: GET, HEAD/i);
      expect((await exchange(port, 'PROPFIND /nowhere HTTP/1.1\r\nHost: t\r\n\r\n')).status).toBe(404);
    });
  });

  describe('framing and headers (answered by node before the application)', () => {
    it.each([
      ['a NUL byte in a header value', 'GET /ok HTTP/1.1\r\nHost: t\r\nX-Bad: a\u0000b\r\n\r\n'],
      ['a space in a header name', 'GET /ok HTTP/1.1\r\nHost: t\r\nX Bad: a\r\n\r\n'],
      ['a bare CR inside a header value', 'GET /ok HTTP/1.1\r\nHost: t\r\nX-Bad: a\rb\r\n\r\n'],
      ['bytes above 0x7f in the request line', 'GET /ok\u00ff HTTP/1.1\r\nHost: t\r\n\r\n'],
      ['an unknown method', 'BREW /ok HTTP/1.1\r\nHost: t\r\n\r\n'],
      ['no Host header', 'GET /ok HTTP/1.1\r\n\r\n'],
      ['both Content-Length and Transfer-Encoding (request smuggling)', 'POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n'],
      ['two different Content-Lengths', 'POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab'],
      ['a negative Content-Length', 'POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: -1\r\n\r\nab'],
      ['a malformed chunk size', 'POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\nContent-Type: text/plain\r\n\r\nzz\r\nab\r\n0\r\n\r\n'],
    ])('answers 400 and closes the connection for %s', async (_name, data) => {
      const res = await exchange(port, Buffer.from(data, 'latin1'));
      expect(res.status).toBe(400);
      expect(res.closed).toBe(true);
    });

    it('answers 431 to headers past 16 KiB', async () => {
      const res = await exchange(port, `GET /ok HTTP/1.1\r\nHost: t\r\nX-Big: ${'x'.repeat(17 * 1024)}\r\n\r\n`);
      expect(res.status).toBe(431);
    });

    it('answers a Content-Length shorter than the body: the extra bytes are read as a next request, garbage is a 400', async () => {
      const res = await exchange(port, post('/echo', 'text/plain', 'hello world').toString().replace('Content-Length: 11', 'Content-Length: 2'));
      // "he" is the body; "llo world" is not a request line, so node answers 400 and closes.
      expect(res.status).toBe(400);
      expect(res.closed).toBe(true);
    });

    it('serves the extra bytes after a short Content-Length as a second request when they form one (HTTP/1.1 framing)', async () => {
      const socket = await RawSocket.open(port);
      await socket.write(`POST /echo HTTP/1.1\r\nHost: t\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nhiGET /ok HTTP/1.1\r\nHost: t\r\n\r\n`);
      await socket.until((s) => s.statuses.length === 2);
      expect(socket.statuses).toEqual([200, 200]);
      expect(socket.text).toContain('{"body":"hi","type":"string"}');
      socket.destroy();
    });
  });

  describe('bodies over the limit', () => {
    it('answers 413 as soon as Content-Length announces too much, before any body byte is sent, and closes', async () => {
      const socket = await RawSocket.open(port);
      await socket.write(`POST /echo HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: ${BODY_LIMIT + 1}\r\n\r\n`);
      await socket.untilClosed();
      expect(socket.statuses).toEqual([413]);
      expect(socket.text).toMatch(/\r\nconnection: close\r\n/i);
    });

    it.each(['application/json', 'application/x-www-form-urlencoded', 'text/plain'])('answers 413 to a %s body one byte over the limit with Content-Length', async (type) => {
      const res = await exchange(port, post('/echo', type, Buffer.alloc(BODY_LIMIT + 1, 0x61)));
      expect(res.status).toBe(413);
      expect(errorOf(res.body).message).toBe(`Request body is larger than ${BODY_LIMIT} bytes`);
    });

    it('accepts a body of exactly the limit', async () => {
      const res = await exchange(port, post('/echo', 'text/plain', Buffer.alloc(BODY_LIMIT, 0x61)));
      expect(res.status).toBe(200);
    });

    it('answers 413 to a chunked body without Content-Length once it passes the limit, without waiting for the rest', async () => {
      const socket = await RawSocket.open(port);
      await socket.write('POST /echo HTTP/1.1\r\nHost: t\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n');
      const chunk = Buffer.alloc(16 * 1024, 0x61);
      // Five chunks of 16 KiB pass the 64 KiB limit; the terminating chunk is never sent.
      for (let i = 0; i < 5; i++) await socket.write(Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]));
      await socket.untilClosed();
      expect(socket.statuses).toEqual([413]);
    });

    it('leaves a body of an unsupported Content-Type unread (body undefined) and the route still answers', async () => {
      for (const type of ['application/xml', 'multipart/form-data; boundary=x', 'application/octet-stream']) {
        const res = await exchange(port, post('/echo', type, '<a>1</a>'));
        expect(res.status).toBe(200);
        expect(JSON.parse(res.body)).toEqual({ body: null, type: 'unread' });
      }
    });

    it('answers 400 to a body that is not what its Content-Encoding says, and 415 to a coding it does not read', async () => {
      const res = await exchange(port, post('/echo', 'application/json', '{}', 'Content-Encoding: gzip\r\n'));
      expect(res.status).toBe(400);
      const unknown = await exchange(port, post('/echo', 'application/json', '{}', 'Content-Encoding: compress\r\n'));
      expect(unknown.status).toBe(415);
    });
  });
});
