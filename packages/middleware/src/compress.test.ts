import { Application, type Context } from '@fw/core';
import { Readable } from 'node:stream';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import { compress, isCompressibleType, type CompressConfig } from './index.js';

const BIG = JSON.stringify({ items: Array.from({ length: 200 }, (_, i) => ({ id: i, name: `item-${i}`, tags: ['a', 'b'] })) });
const SMALL = JSON.stringify({ ok: true });

function appWith(config?: CompressConfig): Application {
  const app = new Application({ onLog: () => undefined });
  app.use(compress(config));
  app.get('/big', (ctx) => ctx.send(BIG, 200, 'application/json; charset=utf-8'));
  app.get('/json', (ctx) => ctx.json(JSON.parse(BIG)));
  app.get('/small', (ctx) => ctx.send(SMALL, 200, 'application/json'));
  app.get('/text', (ctx) => ctx.text(BIG));
  app.get('/typed/:type/:sub', (ctx: Context<unknown, unknown, { type: string; sub: string }>) => ctx.send(BIG, 200, `${ctx.params.type}/${ctx.params.sub}`));
  app.get('/untyped', (ctx) => ctx.send(Buffer.from(BIG)));
  app.get('/encoded', (ctx) => {
    ctx.setHeader('content-encoding', 'gzip');
    ctx.send(BIG, 200, 'application/json');
  });
  app.get('/no-transform', (ctx) => {
    ctx.setHeader('cache-control', 'public, no-transform');
    ctx.send(BIG, 200, 'application/json');
  });
  app.get('/etag', (ctx) => {
    ctx.setHeader('etag', '"v1"');
    ctx.setHeader('vary', 'Origin');
    ctx.send(BIG, 200, 'application/json');
  });
  app.get('/weak-etag', (ctx) => {
    ctx.setHeader('etag', 'W/"v1"');
    ctx.send(BIG, 200, 'application/json');
  });
  app.get('/not-modified', (ctx) => {
    ctx.setHeader('content-type', 'application/json');
    ctx.status(304);
  });
  app.get('/empty', (ctx) => ctx.status(204));
  app.get('/error', () => {
    throw new Error('boom');
  });
  app.get('/raw', (ctx) => {
    ctx.res.writeHead(200, { 'content-type': 'text/plain' });
    ctx.res.write(BIG.slice(0, 1000));
    ctx.res.end(BIG.slice(1000));
  });
  app.get('/raw-end', (ctx) => {
    ctx.res.setHeader('content-type', 'text/plain');
    ctx.res.end(BIG);
  });
  app.get('/raw-small', (ctx) => {
    ctx.res.setHeader('content-type', 'text/plain');
    ctx.res.end(SMALL);
  });
  app.get('/piped', (ctx) => {
    ctx.res.setHeader('content-type', 'application/x-ndjson');
    Readable.from([BIG.slice(0, 3000), BIG.slice(3000)]).pipe(ctx.res);
  });
  app.get('/sse', (ctx) => ctx.sse((async function* () {
    yield { text: BIG };
  })()));
  return app;
}

const decoders = { gzip: gunzipSync, br: brotliDecompressSync, deflate: inflateSync } as const;

describe('compress() over app.inject', () => {
  const app = appWith();
  const get = (url: string, acceptEncoding?: string, method = 'GET') =>
    app.inject({ method, url, headers: acceptEncoding === undefined ? {} : { 'accept-encoding': acceptEncoding } });

  it.each([
    ['gzip', 'gzip'],
    ['br', 'br'],
    ['gzip, deflate, br', 'br'],
    ['br;q=0.5, gzip', 'gzip'],
    ['*', 'br'],
    ['identity;q=0', 'br'],
  ] as const)('answers Accept-Encoding %j with %s, decoding to the same bytes', async (accept, coding) => {
    const res = await get('/big', accept);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-encoding']).toBe(coding);
    expect(res.headers['content-length']).toBeUndefined();
    expect(res.headers['vary']).toBe('Accept-Encoding');
    expect(res.rawBody.length).toBeLessThan(BIG.length / 3);
    expect(decoders[coding](res.rawBody).toString()).toBe(BIG);
  });

  it.each([[undefined], [''], ['identity'], ['deflate'], ['*;q=0'], ['gzip;q=0, br;q=0'], ['gzip;q=0.5, identity']])(
    'sends identity for Accept-Encoding %j, still with Vary',
    async (accept) => {
      const res = await get('/big', accept);
      expect(res.headers['content-encoding']).toBeUndefined();
      expect(res.headers['content-length']).toBe(String(BIG.length));
      expect(res.headers['vary']).toBe('Accept-Encoding');
      expect(res.body).toBe(BIG);
    },
  );

  it('compresses a body past the one-shot limit (32 KiB) through a stream, whole', async () => {
    const huge = BIG.repeat(12);
    const big = new Application({ onLog: () => undefined });
    big.use(compress());
    big.get('/huge', (ctx) => ctx.text(huge));
    for (const coding of ['gzip', 'br'] as const) {
      const res = await big.inject({ url: '/huge', headers: { 'accept-encoding': coding } });
      expect(res.headers['content-encoding']).toBe(coding);
      expect(decoders[coding](res.rawBody).toString() === huge).toBe(true);
    }
  });

  it('compresses ctx.json() and ctx.text() answers', async () => {
    for (const url of ['/json', '/text']) {
      const res = await get(url, 'gzip');
      expect(res.headers['content-encoding']).toBe('gzip');
      expect(gunzipSync(res.rawBody).toString()).toBe(BIG);
    }
  });

  it('leaves a body under the threshold alone, with Vary', async () => {
    const res = await get('/small', 'gzip');
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.headers['vary']).toBe('Accept-Encoding');
    expect(res.body).toBe(SMALL);
  });

  it.each([
    ['text', 'html', true],
    ['text', 'csv', true],
    ['application', 'javascript', true],
    ['application', 'xml', true],
    ['application', 'problem+json', true],
    ['application', 'atom+xml', true],
    ['image', 'svg+xml', true],
    ['image', 'png', false],
    ['image', 'jpeg', false],
    ['video', 'mp4', false],
    ['audio', 'mpeg', false],
    ['application', 'zip', false],
    ['application', 'gzip', false],
    ['application', 'octet-stream', false],
    ['font', 'woff2', false],
  ])('compresses %s/%s: %s', async (type, sub, compressed) => {
    const res = await get(`/typed/${type}/${sub}`, 'gzip');
    expect(res.headers['content-encoding']).toBe(compressed ? 'gzip' : undefined);
    // Vary goes only on what could have been compressed.
    expect(res.headers['vary']).toBe(compressed ? 'Accept-Encoding' : undefined);
    expect(compressed ? gunzipSync(res.rawBody).toString() : res.body).toBe(BIG);
  });

  it('leaves an answer without Content-Type alone', async () => {
    const res = await get('/untyped', 'gzip');
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.body).toBe(BIG);
  });

  it('leaves an answer that has a Content-Encoding already alone', async () => {
    const res = await get('/encoded', 'br');
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(res.body).toBe(BIG);
  });

  it('leaves Cache-Control: no-transform answers alone', async () => {
    const res = await get('/no-transform', 'gzip');
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.headers['vary']).toBeUndefined();
    expect(res.body).toBe(BIG);
  });

  it('weakens a strong ETag and merges Vary with the one set', async () => {
    const res = await get('/etag', 'gzip');
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(res.headers['etag']).toBe('W/"v1"');
    expect(res.headers['vary']).toBe('Origin, Accept-Encoding');
    const plain = await get('/etag');
    expect(plain.headers['etag']).toBe('"v1"');
    const weak = await get('/weak-etag', 'gzip');
    expect(weak.headers['etag']).toBe('W/"v1"');
  });

  it('does nothing on HEAD, 204 and 304', async () => {
    const head = await get('/big', 'gzip', 'HEAD');
    expect(head.headers['content-encoding']).toBeUndefined();
    expect(head.headers['content-length']).toBe(String(BIG.length));
    const notModified = await get('/not-modified', 'gzip');
    expect(notModified.statusCode).toBe(304);
    expect(notModified.headers['content-encoding']).toBeUndefined();
    expect(notModified.headers['vary']).toBeUndefined();
    const empty = await get('/empty', 'gzip');
    expect(empty.statusCode).toBe(204);
    expect(empty.headers['content-encoding']).toBeUndefined();
  });

  it('leaves server-sent events alone', async () => {
    const res = await get('/sse', 'gzip, br');
    expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.body).toContain(JSON.stringify({ text: BIG }));
  });

  it('answers errors as usual', async () => {
    const res = await get('/error', 'gzip');
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({ error: true, message: 'Internal Server Error', code: 500 });
  });

  it('compresses what a handler writes into ctx.res, a stream piped into it included', async () => {
    for (const url of ['/raw', '/raw-end', '/piped']) {
      const res = await get(url, 'gzip');
      expect(res.headers['content-encoding']).toBe('gzip');
      expect(res.headers['vary']).toBe('Accept-Encoding');
      expect(gunzipSync(res.rawBody).toString()).toBe(BIG);
    }
    const small = await get('/raw-small', 'gzip');
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(small.body).toBe(SMALL);
  });
});

describe('compress() options', () => {
  it('takes the server order of encodings, and threshold', async () => {
    const app = appWith({ encodings: ['gzip', 'br'], threshold: 0 });
    const res = await app.inject({ url: '/small', headers: { 'accept-encoding': 'br, gzip' } });
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(res.rawBody).toString()).toBe(SMALL);
  });

  it('offers deflate when listed', async () => {
    const app = appWith({ encodings: ['deflate'] });
    const res = await app.inject({ url: '/big', headers: { 'accept-encoding': 'gzip, deflate' } });
    expect(res.headers['content-encoding']).toBe('deflate');
    expect(inflateSync(res.rawBody).toString()).toBe(BIG);
  });

  it('lists zstd without failing where Node has none, and offers it only where it does', async () => {
    const app = appWith({ encodings: ['zstd', 'gzip'] });
    const res = await app.inject({ url: '/big', headers: { 'accept-encoding': 'zstd, gzip' } });
    const hasZstd = typeof (process.getBuiltinModule('node:zlib') as { createZstdCompress?: unknown }).createZstdCompress === 'function';
    expect(res.headers['content-encoding']).toBe(hasZstd ? 'zstd' : 'gzip');
  });

  it('takes types as a RegExp or a predicate', async () => {
    const regexp = appWith({ types: /^application\/octet-stream$/ });
    const bin = await regexp.inject({ url: '/typed/application/octet-stream', headers: { 'accept-encoding': 'gzip' } });
    expect(bin.headers['content-encoding']).toBe('gzip');
    const json = await regexp.inject({ url: '/big', headers: { 'accept-encoding': 'gzip' } });
    expect(json.headers['content-encoding']).toBeUndefined();
    const predicate = appWith({ types: (type) => isCompressibleType(type) || type === 'image/png' });
    const png = await predicate.inject({ url: '/typed/image/png', headers: { 'accept-encoding': 'gzip' } });
    expect(png.headers['content-encoding']).toBe('gzip');
    // Never an event stream, whatever types says.
    const all = appWith({ types: () => true });
    const sse = await all.inject({ url: '/sse', headers: { 'accept-encoding': 'gzip' } });
    expect(sse.headers['content-encoding']).toBeUndefined();
  });

  it('refuses bad options when created', () => {
    expect(() => compress({ encodings: ['lzma' as 'gzip'] })).toThrow('compress: unknown encoding "lzma" in encodings');
    expect(() => compress({ threshold: -1 })).toThrow('compress: threshold must be a number of bytes >= 0, got -1');
    expect(() => compress({ types: 'text/*' as unknown as RegExp })).toThrow('compress: types must be a RegExp or a function');
  });

  it('uses the brotli quality given', async () => {
    const fast = await appWith({ brotliOptions: { params: { [1]: 1 } } }).inject({ url: '/big', headers: { 'accept-encoding': 'br' } });
    const best = await appWith({ brotliOptions: { params: { [1]: 11 } } }).inject({ url: '/big', headers: { 'accept-encoding': 'br' } });
    expect(brotliDecompressSync(fast.rawBody).toString()).toBe(BIG);
    expect(best.rawBody.length).toBeLessThan(fast.rawBody.length);
  });
});
