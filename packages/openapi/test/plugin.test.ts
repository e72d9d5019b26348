import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { Application, withMeta } from '@fw/core';
import { cors } from '@fw/middleware';
import { DEFAULT_SWAGGER_UI_OPTIONS, openapiPlugin, type OpenAPIDocument, type OpenAPIPlugin } from '../src/index.js';
import { buildTestApp, collect } from './helpers.js';

const DIST_DOCS = join(__dirname, '..', 'dist', 'docs');

/** The data-config the page hands to its starter script. */
function pageConfig(html: string): { url?: string; urls?: Array<{ name: string; url: string }>; options: Record<string, unknown> } {
  const match = /data-config="([^"]*)"/.exec(html);
  if (match === null) throw new Error('no data-config in the page');
  const json = match[1]!.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
  return JSON.parse(json) as ReturnType<typeof pageConfig>;
}

describe('openapiPlugin', () => {
  it('serves the document of the app at /openapi.json', async () => {
    const { app } = buildTestApp();
    app.register(openapiPlugin({ info: { title: 'Bookstore', version: '1.0.0' }, onWarning: () => undefined }));
    const res = await app.inject('/openapi.json');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-cache');
    const doc = res.json<OpenAPIDocument>();
    expect(doc.info.title).toBe('Bookstore');
    expect(doc.paths['/books/{id}']!.get!.operationId).toBe('getBooksById');
    // The plugin's own paths are not routes: they are not documented.
    expect(Object.keys(doc.paths)).not.toContain('/openapi.json');
    expect(Object.keys(doc.paths)).not.toContain('/docs');
  });

  it('answers a matching If-None-Match with 304, HEAD without a body, other methods with 405', async () => {
    const app = new Application();
    app.get('/a', (ctx) => ctx.json(1));
    app.register(openapiPlugin());
    const first = await app.inject('/openapi.json');
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^"[\w-]{27}"$/);
    const again = await app.inject({ url: '/openapi.json', headers: { 'if-none-match': `W/"x", ${etag}` } });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    const head = await app.inject({ method: 'HEAD', url: '/openapi.json' });
    expect(head.statusCode).toBe(200);
    expect(head.body).toBe('');
    const post = await app.inject({ method: 'POST', url: '/openapi.json' });
    expect(post.statusCode).toBe(405);
    expect(post.headers.allow).toBe('GET, HEAD');
    expect(post.json()).toEqual({ error: true, message: 'Method Not Allowed', code: 405 });
  });

  it('builds the document once, and again when the routes change', async () => {
    const app = new Application();
    app.get('/a', (ctx) => ctx.json(1));
    const plugin = openapiPlugin();
    app.register(plugin);
    const first = await app.inject('/openapi.json');
    const second = await app.inject('/openapi.json');
    expect(second.headers.etag).toBe(first.headers.etag);
    expect(Object.keys(plugin.document().paths)).toEqual(['/a']);
    app.get('/b', (ctx) => ctx.json(2));
    const third = await app.inject('/openapi.json');
    expect(third.headers.etag).not.toBe(first.headers.etag);
    expect(Object.keys(third.json<OpenAPIDocument>().paths)).toEqual(['/a', '/b']);
    // Middleware added later changes what routes report (here: auth), so the document follows.
    app.use(withMeta((_ctx: unknown, next: () => Promise<void>) => next(), { auth: true }));
    expect((await app.inject('/openapi.json')).json<OpenAPIDocument>().paths['/a']!.get!.security).toEqual([{ bearerAuth: [] }]);
  });

  it('warns once per problem, not on every rebuild', async () => {
    const app = new Application();
    app.route({ method: 'POST', path: '/a', handler: (ctx) => ctx.json(1), schema: { body: () => 'no schema' } });
    const { warnings, onWarning } = collect();
    app.register(openapiPlugin({ onWarning }));
    await app.inject('/openapi.json');
    app.get('/b', (ctx) => ctx.json(1));
    await app.inject('/openapi.json');
    expect(warnings).toHaveLength(1);
  });

  it("reports its warnings once each through the app's log, not the console, when no onWarning is given", async () => {
    const logged: string[] = [];
    const app = new Application({ onLog: (message) => logged.push(message) });
    app.route({ method: 'POST', path: '/a', handler: (ctx) => ctx.json(1), schema: { body: () => 'no schema' } });
    const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      app.register(openapiPlugin());
      await app.inject('/openapi.json');
      app.get('/b', (ctx) => ctx.json(1));
      await app.inject('/openapi.json');
      expect(warn).not.toHaveBeenCalled();
    } finally {
      warn.mockRestore();
    }
    expect(logged).toEqual([expect.stringMatching(/^\[@fw\/openapi\] .*POST \/a/)]);
  });

  it('serves one document per version prefix besides the full one, each listed on the docs page', async () => {
    const { app } = buildTestApp();
    const plugin: OpenAPIPlugin = openapiPlugin({
      info: { title: 'All', version: '1.0.0' },
      documents: [
        { name: 'v1', path: '/api/v1/openapi.json', prefix: '/api/v1', info: { title: 'Bookstore v1', version: '1.0.0' } },
        { name: 'v2', path: '/api/v2/openapi.json', prefix: '/api/v2', info: { title: 'Bookstore v2', version: '2.0.0' } },
      ],
      onWarning: () => undefined,
    });
    app.register(plugin);
    const v1 = (await app.inject('/api/v1/openapi.json')).json<OpenAPIDocument>();
    expect(v1.info.title).toBe('Bookstore v1');
    expect(v1.servers).toEqual([{ url: '/api/v1' }]);
    expect(Object.keys(v1.paths)).toEqual(['/books']);
    expect(Object.keys(plugin.document('v2').paths)).toEqual(['/books/{id}']);
    expect(plugin.document('/api/v2/openapi.json').info.version).toBe('2.0.0');
    expect(Object.keys(plugin.document().paths).length).toBeGreaterThan(5);
    const page = await app.inject('/docs');
    expect(pageConfig(page.body).urls).toEqual([
      { name: 'All', url: './openapi.json' },
      { name: 'v1', url: './api/v1/openapi.json' },
      { name: 'v2', url: './api/v2/openapi.json' },
    ]);
    // The selector needs Swagger UI's standalone preset.
    expect(page.body).toContain('swagger-ui-standalone-preset.js?v=');
  });

  it('can serve only the per-version documents (path: false), and refuses a configuration that serves nothing', () => {
    const app = new Application();
    app.register(openapiPlugin({ path: false, documents: [{ name: 'v1', path: '/v1.json', prefix: '/v1' }] }));
    expect(() => openapiPlugin({ path: false })).toThrow('nothing to serve');
    expect(() => openapiPlugin({ path: 'openapi.json' })).toThrow('must be a path starting with "/"');
    expect(() => openapiPlugin({ documents: [{ name: 'x', path: '/openapi.json' }] })).toThrow('same path');
    expect(() => openapiPlugin().document()).toThrow('not registered');
  });

  it('runs after global middleware, like every claimed path (CORS headers on the document)', async () => {
    const app = new Application();
    app.use(cors());
    app.register(openapiPlugin());
    const res = await app.inject({ url: '/openapi.json', headers: { origin: 'https://editor.example' } });
    expect(res.headers['access-control-allow-origin']).toBe('*');
  });
});

describe('the docs page', () => {
  const app = new Application();
  app.get('/hello', (ctx) => ctx.json({ hello: 'world' }));
  app.register(openapiPlugin({ info: { title: 'Hello <API>', version: '1.0.0' }, servers: [{ url: 'https://api.example.com/v1' }], swaggerUI: { docExpansion: 'none' } }));

  it('is a Swagger UI page with a strict CSP that loads only its own files and the document by relative URLs', async () => {
    const res = await app.inject('/docs');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['content-security-policy']).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self' https://api.example.com; base-uri 'none'; form-action 'none'; frame-ancestors 'self'",
    );
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.body).toContain('<title>Hello &lt;API&gt;</title>');
    // No CDN: nothing absolute at all, no inline script.
    expect(res.body).not.toMatch(/(?:src|href)="(?:https?:)?\/\//);
    expect(res.body).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/);
    const scripts = [...res.body.matchAll(/<script src="([^"]+)"/g)].map((m) => m[1]);
    expect(scripts).toEqual([expect.stringMatching(/^\.\/docs\/swagger-ui-bundle\.js\?v=[0-9a-f]{12}$/), expect.stringMatching(/^\.\/docs\/docs-init\.js\?v=[0-9a-f]{12}$/)]);
    expect(pageConfig(res.body)).toEqual({ url: './openapi.json', options: { ...DEFAULT_SWAGGER_UI_OPTIONS, docExpansion: 'none' } });
  });

  it('works at /docs/ too, with URLs relative to it', async () => {
    const res = await app.inject('/docs/');
    expect(res.statusCode).toBe(200);
    expect(pageConfig(res.body).url).toBe('../openapi.json');
    expect(res.body).toContain('src="./swagger-ui-bundle.js?v=');
  });

  it('serves the bundled Swagger UI files from the package, gzipped when accepted, cached for good', async () => {
    const manifest = JSON.parse(readFileSync(join(DIST_DOCS, 'manifest.json'), 'utf8')) as { swaggerUI: string; files: Record<string, unknown> };
    expect(manifest.swaggerUI).toBe('5.35.0');
    expect(Object.keys(manifest.files).sort()).toEqual(['docs-init.js', 'favicon-32x32.png', 'swagger-ui-LICENSE.txt', 'swagger-ui-NOTICE.txt', 'swagger-ui-bundle.js', 'swagger-ui-standalone-preset.js', 'swagger-ui.css']);
    const plain = await app.inject('/docs/swagger-ui-bundle.js');
    expect(plain.statusCode).toBe(200);
    expect(plain.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(plain.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body).toContain('SwaggerUIBundle');
    const gzipped = await app.inject({ url: '/docs/swagger-ui.css?v=abc', headers: { 'accept-encoding': 'br, gzip' } });
    expect(gzipped.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gzipped.rawBody).toString('utf8')).toBe(readFileSync(join(DIST_DOCS, 'swagger-ui.css'), 'utf8'));
    expect(readFileSync(join(DIST_DOCS, 'swagger-ui.css'), 'utf8')).not.toContain('sourceMappingURL');
    const init = await app.inject('/docs/docs-init.js');
    expect(init.body).toContain('validatorUrl: null');
    expect((await app.inject('/docs/nope.js')).statusCode).toBe(404);
    expect((await app.inject({ method: 'DELETE', url: '/docs' })).statusCode).toBe(405);
  });

  it('can be mounted elsewhere or left out', async () => {
    const other = new Application();
    other.register(openapiPlugin({ docsPath: '/reference/', path: '/spec/openapi.json' }));
    const res = await other.inject('/reference');
    expect(pageConfig(res.body).url).toBe('./spec/openapi.json');
    expect((await other.inject('/reference/swagger-ui.css')).statusCode).toBe(200);
    const root = new Application();
    root.register(openapiPlugin({ docsPath: '/' }));
    const rootPage = await root.inject('/');
    expect(pageConfig(rootPage.body).url).toBe('./openapi.json');
    expect(rootPage.body).toContain('src="./swagger-ui-bundle.js?v=');
    expect((await root.inject('/swagger-ui-bundle.js')).statusCode).toBe(200);
    const none = new Application();
    none.register(openapiPlugin({ docsPath: false }));
    expect((await none.inject('/docs')).statusCode).toBe(404);
    expect((await none.inject('/openapi.json')).statusCode).toBe(200);
  });
});
