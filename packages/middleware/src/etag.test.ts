import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { Application, HTTPError, Router } from '@fw/core';
import { callContext, runOnCall } from '../test/contexts.js';
import { start } from '../test/http.js';
import { etag } from './index.js';
import type { ETagConfig } from './index.js';

const BOOKS = [{ id: 1, title: 'Dune' }, { id: 2, title: 'Solaris' }];
const BOOKS_TEXT = JSON.stringify(BOOKS);
const LAST_MODIFIED = 'Tue, 01 Dec 2026 10:00:00 GMT';

/** The tag `etag()` computes for `bytes`: SHA-1, base64url, quoted, `W/` when weak. */
const tagOf = (bytes: string | Buffer, weak = true): string => `${weak ? 'W/' : ''}"${createHash('sha1').update(bytes).digest('base64url')}"`;
const WEAK = tagOf(BOOKS_TEXT);
const STRONG = tagOf(BOOKS_TEXT, false);

/** An app with `etag(config)` installed globally in front of routes of every kind. */
function createApp(config?: ETagConfig): Application {
  const app = new Application({ onLog: () => undefined });
  app.use(etag(config));
  app.get('/books', (ctx) => {
    ctx.setHeader('cache-control', 'max-age=60').setHeader('vary', 'accept').setHeader('content-location', '/books');
    ctx.setHeader('expires', 'Wed, 02 Dec 2026 10:00:00 GMT').setHeader('date', 'Tue, 01 Dec 2026 12:00:00 GMT');
    ctx.json(BOOKS);
  });
  app.get('/text', (ctx) => ctx.text('grüße'));
  app.get('/bytes', (ctx) => ctx.send(Buffer.from([0, 1, 2, 255]), 200, 'application/octet-stream'));
  app.get('/dated', (ctx) => ctx.setHeader('last-modified', LAST_MODIFIED).json(BOOKS));
  app.get('/own-tag', (ctx) => ctx.setHeader('etag', '"v7"').json(BOOKS));
  app.get('/created', (ctx) => ctx.json(BOOKS, 201));
  app.get('/partial', (ctx) => ctx.status(206).json(BOOKS));
  app.get('/boom', () => {
    throw new HTTPError(500, 'boom');
  });
  app.get('/piped', (ctx) => {
    ctx.res.setHeader('content-type', 'text/plain');
    Readable.from(['streamed ', 'body']).pipe(ctx.res);
  });
  app.get('/events', (ctx) => ctx.sse((async function* () {
    yield { n: 1 };
  })()));
  app.post('/books', (ctx) => ctx.json(BOOKS));
  app.put('/books', (ctx) => ctx.json(BOOKS));
  return app;
}

describe('etag(): the ETag it sets', () => {
  const app = createApp();

  it('sets a weak ETag, the SHA-1 of the body in base64url, on a GET answered 200 with JSON', async () => {
    const res = await app.inject('/books');
    expect(res.statusCode).toBe(200);
    expect(res.headers.etag).toBe(WEAK);
    expect(res.body).toBe(BOOKS_TEXT);
  });

  it('hashes the bytes that are sent: the UTF-8 of a text body, a Buffer as it is', async () => {
    expect((await app.inject('/text')).headers.etag).toBe(tagOf(Buffer.from('grüße', 'utf8')));
    expect((await app.inject('/bytes')).headers.etag).toBe(tagOf(Buffer.from([0, 1, 2, 255])));
  });

  it('gives the same body the same tag and another body another', async () => {
    const again = await app.inject('/books');
    expect(again.headers.etag).toBe(WEAK);
    expect((await app.inject('/text')).headers.etag).not.toBe(WEAK);
  });

  it('sends strong ETags with weak: false', async () => {
    const res = await createApp({ weak: false }).inject('/books');
    expect(res.headers.etag).toBe(STRONG);
  });

  it('keeps an ETag the handler set, as it is', async () => {
    expect((await app.inject('/own-tag')).headers.etag).toBe('"v7"');
  });

  it('sets none on other statuses: 201, 206, a thrown 500, an unmatched 404', async () => {
    for (const url of ['/created', '/partial', '/boom', '/nowhere']) {
      const res = await app.inject({ url, headers: { 'if-none-match': '*' } });
      expect([url, res.headers.etag, res.statusCode === 304]).toEqual([url, undefined, false]);
    }
  });

  it('sets none on streams: a body piped into ctx.res, server-sent events, even with If-None-Match: *', async () => {
    const piped = await app.inject({ url: '/piped', headers: { 'if-none-match': '*' } });
    expect([piped.statusCode, piped.headers.etag, piped.body]).toEqual([200, undefined, 'streamed body']);
    const events = await app.inject({ url: '/events', headers: { 'if-none-match': '*' } });
    expect([events.statusCode, events.headers.etag]).toEqual([200, undefined]);
    expect(events.body).toContain('data: {"n":1}');
  });

  it('leaves other methods alone: no ETag, and If-None-Match is not looked at', async () => {
    for (const method of ['POST', 'PUT']) {
      const res = await app.inject({ method, url: '/books', headers: { 'if-none-match': '*' } });
      expect([method, res.statusCode, res.headers.etag, res.body]).toEqual([method, 200, undefined, BOOKS_TEXT]);
    }
  });

  it('lets other protocols\' contexts through untouched (a gRPC call)', async () => {
    const call = callContext({ headers: { 'if-none-match': '*' } });
    let ran = false;
    await runOnCall(etag(), call, () => {
      ran = true;
      return Promise.resolve();
    });
    expect([ran, call.sent]).toEqual([true, {}]);
  });
});

describe('etag(): If-None-Match', () => {
  const app = createApp();
  const get = (ifNoneMatch: string, url = '/books', method = 'GET') => app.inject({ method, url, headers: { 'if-none-match': ifNoneMatch } });

  it('answers 304 with no body, no Content-Type or Content-Length, and the headers a 304 keeps', async () => {
    const res = await get(WEAK);
    expect(res.statusCode).toBe(304);
    expect(res.body).toBe('');
    expect(res.headers['content-type']).toBeUndefined();
    expect(res.headers['content-length']).toBeUndefined();
    expect(res.headers).toMatchObject({
      etag: WEAK,
      'cache-control': 'max-age=60',
      vary: 'accept',
      'content-location': '/books',
      expires: 'Wed, 02 Dec 2026 10:00:00 GMT',
      date: 'Tue, 01 Dec 2026 12:00:00 GMT',
    });
  });

  it.each([
    ['the tag itself', 304, WEAK],
    ['the strong form of a weak tag (weak comparison)', 304, STRONG],
    ['a list holding it', 304, `"other", ${WEAK}, "third"`],
    ['a list without spaces', 304, `"other",${WEAK}`],
    ['*', 304, '*'],
    [' * with spaces', 304, '  *  '],
    ['another tag', 200, '"other"'],
    ['a list without it', 200, '"a", W/"b"'],
    ['* inside a list (no wildcard there)', 200, '"a", *'],
    ['an unterminated tag', 200, `"${WEAK.slice(3, -1)}`],
    ['an empty value', 200, ''],
  ])('If-None-Match with %s → %i', async (_name, status, header) => {
    const res = await get(header);
    expect(res.statusCode).toBe(status);
    expect(res.body).toBe(status === 304 ? '' : BOOKS_TEXT);
  });

  it('matches a strong ETag by the weak comparison too (weak: false)', async () => {
    const strong = createApp({ weak: false });
    expect((await strong.inject({ url: '/books', headers: { 'if-none-match': STRONG } })).statusCode).toBe(304);
    expect((await strong.inject({ url: '/books', headers: { 'if-none-match': WEAK } })).statusCode).toBe(304);
  });

  it('reads an entity-tag that holds a comma as one tag', async () => {
    const commas = new Application();
    commas.use(etag());
    commas.get('/c', (ctx) => ctx.setHeader('etag', '"a,b"').text('c'));
    expect((await commas.inject({ url: '/c', headers: { 'if-none-match': '"x", "a,b"' } })).statusCode).toBe(304);
    expect((await commas.inject({ url: '/c', headers: { 'if-none-match': '"a", "b"' } })).statusCode).toBe(200);
  });

  it('answers HEAD like GET: the same ETag, and 304 when it matches', async () => {
    const head = await app.inject({ method: 'HEAD', url: '/books' });
    expect([head.statusCode, head.headers.etag, head.body]).toEqual([200, WEAK, '']);
    expect(head.headers['content-length']).toBe(String(Buffer.byteLength(BOOKS_TEXT)));
    const cached = await get(WEAK, '/books', 'HEAD');
    expect([cached.statusCode, cached.headers.etag, cached.headers['content-length']]).toEqual([304, WEAK, undefined]);
  });

  it('honours an ETag the handler set: 304 for it, 200 for the hash etag() would have made', async () => {
    expect((await get('"v7"', '/own-tag')).statusCode).toBe(304);
    expect((await get('W/"v7"', '/own-tag')).statusCode).toBe(304);
    expect((await get(WEAK, '/own-tag')).statusCode).toBe(200);
  });
});

describe('etag(): If-Modified-Since', () => {
  const app = createApp();
  const get = (headers: Record<string, string>, url = '/dated') => app.inject({ url, headers });

  it.each([
    ['the same date', 304, LAST_MODIFIED],
    ['a later date', 304, 'Wed, 02 Dec 2026 00:00:00 GMT'],
    ['an earlier date', 200, 'Tue, 01 Dec 2026 09:59:59 GMT'],
    ['the same date in the RFC 850 form', 304, 'Tuesday, 01-Dec-26 10:00:00 GMT'],
    ['the same date in the asctime form', 304, 'Tue Dec  1 10:00:00 2026'],
    ['a date that is not an HTTP-date', 200, '2026-12-02T00:00:00Z'],
    ['garbage', 200, 'yesterday'],
  ])('If-Modified-Since with %s → %i', async (_name, status, since) => {
    const res = await get({ 'if-modified-since': since });
    expect(res.statusCode).toBe(status);
    expect(res.body).toBe(status === 304 ? '' : BOOKS_TEXT);
    if (status === 304) expect(res.headers['last-modified']).toBe(LAST_MODIFIED);
  });

  it('is not looked at when the handler set no Last-Modified', async () => {
    expect((await get({ 'if-modified-since': 'Wed, 02 Dec 2026 00:00:00 GMT' }, '/books')).statusCode).toBe(200);
  });

  it('gives way to If-None-Match when both are sent (RFC 9110 §13.2.2)', async () => {
    const dated = await app.inject('/dated');
    const tag = String(dated.headers.etag);
    // The tag does not match: 200, though the date alone would say "not modified".
    expect((await get({ 'if-none-match': '"stale"', 'if-modified-since': LAST_MODIFIED })).statusCode).toBe(200);
    // The tag matches: 304, though the date alone would say "modified".
    expect((await get({ 'if-none-match': tag, 'if-modified-since': 'Mon, 30 Nov 2026 00:00:00 GMT' })).statusCode).toBe(304);
  });
});

describe('etag() per route and per router', () => {
  it('works as route middleware and as router middleware, leaving other routes without ETags', async () => {
    const app = new Application();
    const api = new Router();
    api.use(etag());
    api.get('/books', (ctx) => ctx.json(BOOKS));
    app.use('/api', api);
    app.get('/one', etag({ weak: false }), (ctx) => ctx.json(BOOKS));
    app.get('/plain', (ctx) => ctx.json(BOOKS));
    expect((await app.inject('/api/books')).headers.etag).toBe(WEAK);
    expect((await app.inject({ url: '/api/books', headers: { 'if-none-match': WEAK } })).statusCode).toBe(304);
    expect((await app.inject('/one')).headers.etag).toBe(STRONG);
    expect((await app.inject({ url: '/one', headers: { 'if-none-match': STRONG } })).statusCode).toBe(304);
    const plain = await app.inject({ url: '/plain', headers: { 'if-none-match': '*' } });
    expect([plain.statusCode, plain.headers.etag]).toEqual([200, undefined]);
  });

  it('hashes the body middleware inside it left after the handler', async () => {
    const app = new Application();
    app.use(etag());
    app.use(async (ctx, next) => {
      await next();
      ctx.json({ wrapped: true });
    });
    app.get('/w', (ctx) => ctx.json(BOOKS));
    expect((await app.inject('/w')).headers.etag).toBe(tagOf('{"wrapped":true}'));
  });

  it('tells middleware outside it the 304 after await next()', async () => {
    const app = new Application();
    const seen: number[] = [];
    app.use(async (ctx, next) => {
      await next();
      seen.push(ctx.statusCode);
    });
    app.use(etag());
    app.get('/books', (ctx) => ctx.json(BOOKS));
    await app.inject('/books');
    await app.inject({ url: '/books', headers: { 'if-none-match': WEAK } });
    expect(seen).toEqual([200, 304]);
  });
});

describe('etag() configuration', () => {
  it('refuses a weak that is not a boolean and options it does not have', () => {
    expect(() => etag({ weak: 'yes' as unknown as boolean })).toThrow('etag: weak must be a boolean');
    expect(() => etag({ weakk: true } as ETagConfig)).toThrow('etag: unknown option "weakk"; did you mean "weak"?');
    expect(() => etag(null as unknown as ETagConfig)).toThrow('etag: config must be an object');
  });
});

describe('etag() on a real socket', () => {
  const run = promisify(execFile);
  let app: Application;
  let url: string;

  beforeAll(async () => {
    app = createApp();
    url = await start(app);
  });
  afterAll(() => app.close());

  /** One curl request: the status line, the headers (lower-case names) and the body's size, as curl saw them. */
  async function curl(path: string, ...args: string[]): Promise<{ status: number; headers: Record<string, string>; size: number }> {
    const { stdout } = await run('curl', ['-sS', '-D', '-', '-o', '/dev/null', '-w', '\nsize=%{size_download}', ...args, `${url}${path}`]);
    const lines = stdout.split('\r\n');
    const status = Number(lines[0]!.split(' ')[1]);
    const headers: Record<string, string> = {};
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
    }
    return { status, headers, size: Number(/size=(\d+)$/.exec(stdout)![1]) };
  }

  it('curl with If-None-Match gets a 304 with an empty body; without it the 200 and its ETag', async () => {
    const fresh = await curl('/books');
    expect([fresh.status, fresh.headers.etag, fresh.size]).toEqual([200, WEAK, Buffer.byteLength(BOOKS_TEXT)]);
    const cached = await curl('/books', '-H', `If-None-Match: ${fresh.headers.etag}`);
    expect([cached.status, cached.headers.etag, cached.size]).toEqual([304, WEAK, 0]);
    expect(cached.headers['content-type']).toBeUndefined();
    expect(cached.headers['content-length']).toBeUndefined();
    expect(cached.headers['cache-control']).toBe('max-age=60');
    const stale = await curl('/books', '-H', 'If-None-Match: "stale"');
    expect([stale.status, stale.size]).toEqual([200, Buffer.byteLength(BOOKS_TEXT)]);
  });

  it('curl with If-Modified-Since gets a 304 for an unchanged Last-Modified', async () => {
    const cached = await curl('/dated', '-H', `If-Modified-Since: ${LAST_MODIFIED}`);
    expect([cached.status, cached.size, cached.headers['last-modified']]).toEqual([304, 0, LAST_MODIFIED]);
  });
});
