import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { Application } from './application.js';
import { createAssetHandler, sendHtmlPage } from './static-assets.js';

const JS = 'text/javascript; charset=utf-8';
const CSS = 'text/css; charset=utf-8';
const SCRIPT = 'console.log("bundled script");\n'.repeat(50);
const STYLE = 'body { margin: 0; }\n';

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'fw-static-assets-'));
  writeFileSync(join(dir, 'app-1a2b.js'), SCRIPT);
  writeFileSync(join(dir, 'app-1a2b.js.gz'), gzipSync(SCRIPT));
  // No .gz copy of the stylesheet: it is always sent as it is.
  writeFileSync(join(dir, 'app-1a2b.css'), STYLE);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** An app that answers every method under /assets with the handler, so unknown paths reach it too. */
function assetApp(): Application {
  const app = new Application({ onLog: () => undefined });
  const serveAsset = createAssetHandler({
    '/assets/app.js': { file: join(dir, 'app-1a2b.js'), type: JS },
    '/assets/app.css': { file: join(dir, 'app-1a2b.css'), type: CSS },
    '/assets/late.js': { file: join(dir, 'late.js'), type: JS },
  });
  app.all('/assets/:name', serveAsset);
  return app;
}

describe('createAssetHandler', () => {
  it('serves a file as it is, immutable, with nosniff and Vary, to a client that does not accept gzip', async () => {
    const res = await assetApp().inject('/assets/app.js');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe(JS);
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers.vary).toBe('accept-encoding');
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.body).toBe(SCRIPT);
  });

  it('sends the gzipped copy to a client whose Accept-Encoding names gzip', async () => {
    const app = assetApp();
    const res = await app.inject({ url: '/assets/app.js', headers: { 'accept-encoding': 'br, GZIP;q=0.8' } });
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(res.headers.vary).toBe('accept-encoding');
    expect(gunzipSync(res.rawBody).toString('utf8')).toBe(SCRIPT);
    const other = await app.inject({ url: '/assets/app.js', headers: { 'accept-encoding': 'br, deflate' } });
    expect(other.headers['content-encoding']).toBeUndefined();
    expect(other.body).toBe(SCRIPT);
  });

  it('sends the file as it is when there is no gzipped copy, even to a client that accepts gzip', async () => {
    const res = await assetApp().inject({ url: '/assets/app.css', headers: { 'accept-encoding': 'gzip' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe(CSS);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.body).toBe(STYLE);
  });

  it('answers HEAD with the headers of GET and no body', async () => {
    const res = await assetApp().inject({ method: 'HEAD', url: '/assets/app.js' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe(JS);
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(res.body).toBe('');
  });

  it('answers other methods with 405 and Allow: GET, HEAD', async () => {
    const app = assetApp();
    for (const method of ['POST', 'PUT', 'DELETE'] as const) {
      const res = await app.inject({ method, url: '/assets/app.js' });
      expect(res.statusCode).toBe(405);
      expect(res.headers.allow).toBe('GET, HEAD');
      expect(res.json()).toEqual({ error: true, message: 'Method Not Allowed', code: 405 });
    }
  });

  it('answers 404 for a path it was not given, whatever the method', async () => {
    const app = assetApp();
    const res = await app.inject('/assets/other.js');
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: true, message: 'Not Found', code: 404 });
    expect((await app.inject({ method: 'POST', url: '/assets/other.js' })).statusCode).toBe(404);
  });

  it('reads a file once and keeps it', async () => {
    const file = join(dir, 'kept.js');
    writeFileSync(file, 'first');
    const app = new Application();
    app.get('/kept.js', createAssetHandler({ '/kept.js': { file, type: JS } }));
    expect((await app.inject('/kept.js')).body).toBe('first');
    writeFileSync(file, 'second');
    expect((await app.inject('/kept.js')).body).toBe('first');
  });

  it('answers 500 while a file cannot be read, and serves it once it can', async () => {
    const app = assetApp();
    const late = join(dir, 'late.js');
    expect((await app.inject('/assets/late.js')).statusCode).toBe(500);
    writeFileSync(late, 'late');
    try {
      const res = await app.inject('/assets/late.js');
      expect(res.statusCode).toBe(200);
      expect(res.body).toBe('late');
    } finally {
      unlinkSync(late);
    }
  });
});

describe('sendHtmlPage', () => {
  it('sends the page with 200, no-cache, the given CSP, nosniff and no-referrer', async () => {
    const app = new Application();
    const csp = "default-src 'none'; script-src 'self'";
    app.get('/page', (ctx) => sendHtmlPage(ctx, '<!doctype html><title>Page</title>', csp));
    const res = await app.inject('/page');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.headers['content-security-policy']).toBe(csp);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.body).toBe('<!doctype html><title>Page</title>');
  });
});
