import { get } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { schema, serve, type Served } from './helpers.js';

/** The body of a GraphQL error response. */
interface ErrorsBody {
  errors: Array<{ message: string; extensions?: Record<string, unknown> }>;
}

const HTML = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };

/** A GET through node:http, so the raw (possibly gzipped) bytes are seen. */
function rawGet(url: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    get(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    }).on('error', reject);
  });
}

function assetLinks(html: string): string[] {
  return [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
}

describe('the playground page', () => {
  let served: Served;
  let html: string;

  beforeAll(async () => {
    served = await serve({ schema, rootValue: { hello: () => 'hi' } });
    html = await (await fetch(served.endpoint, { headers: HTML })).text();
  });
  afterAll(() => served.close());

  it('is served for a GET that accepts text/html, with a strict CSP', async () => {
    const res = await fetch(served.endpoint, { headers: HTML });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
  });

  it('is not served to a GET whose Accept prefers JSON, even when it lists text/html', async () => {
    const link = `${served.endpoint}?query=${encodeURIComponent('{ hello }')}`;
    for (const accept of ['application/json, text/html', 'text/html;q=0.5, application/graphql-response+json', 'text/html;q=0, */*']) {
      const res = await fetch(link, { headers: { accept } });
      expect(res.headers.get('content-type')).not.toContain('text/html');
      expect(await res.json()).toEqual({ data: { hello: 'hi' } });
    }
  });

  it('refers to no other origin: no CDN, no absolute URL', () => {
    expect(html).not.toMatch(/https?:|\/\/[a-z]/i);
    const links = assetLinks(html);
    expect(links).toHaveLength(2);
    for (const link of links) expect(link).toMatch(/^\.\/graphql\/__playground\/graphiql-[A-Z0-9]+\.(js|css)$/);
  });

  it('is also served when the browser opens a query link, which still runs over GraphQL clients', async () => {
    const link = `${served.endpoint}?query=${encodeURIComponent('{ hello }')}`;
    expect((await fetch(link, { headers: HTML })).headers.get('content-type')).toBe('text/html; charset=utf-8');
    const api = await fetch(link, { headers: { accept: 'application/json' } });
    expect(await api.json()).toEqual({ data: { hello: 'hi' } });
  });

  it('serves its bundled files from the app, cacheable forever', async () => {
    for (const link of assetLinks(html)) {
      const url = new URL(link, served.endpoint).toString();
      const res = await rawGet(url, {});
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe(link.endsWith('.js') ? 'text/javascript; charset=utf-8' : 'text/css; charset=utf-8');
      expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(res.headers['content-encoding']).toBeUndefined();
      expect(res.body.length).toBeGreaterThan(10_000);
      if (link.endsWith('.js')) expect(res.body.toString('utf8')).toContain('graphiql');
    }
  });

  it('sends the precompressed copy to clients that accept gzip', async () => {
    const js = new URL(assetLinks(html).find((l) => l.endsWith('.js'))!, served.endpoint).toString();
    const plain = await rawGet(js, {});
    const zipped = await rawGet(js, { 'accept-encoding': 'gzip, deflate, br' });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.headers.vary).toBe('accept-encoding');
    expect(zipped.body.length).toBeLessThan(plain.body.length / 2);
    expect(gunzipSync(zipped.body).equals(plain.body)).toBe(true);
  });

  it('answers HEAD without a body and refuses other methods on its files', async () => {
    const js = new URL(assetLinks(html).find((l) => l.endsWith('.js'))!, served.endpoint).toString();
    const head = await fetch(js, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    const post = await fetch(js, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });

  it('does not answer for files that are not part of the bundle', async () => {
    expect((await fetch(`${served.url}/graphql/__playground/manifest.json`)).status).toBe(404);
    expect((await fetch(`${served.url}/graphql/__playground/../../package.json`)).status).toBe(404);
  });
});

describe('the playground under a custom path', () => {
  let served: Served;

  beforeAll(async () => {
    served = await serve({ schema, path: '/api/graphql' });
  });
  afterAll(() => served.close());

  it('links its files relative to the endpoint, so they resolve under the same prefix', async () => {
    const html = await (await fetch(served.endpoint, { headers: HTML })).text();
    for (const link of assetLinks(html)) {
      expect(link).toMatch(/^\.\/graphql\/__playground\//);
      const url = new URL(link, served.endpoint);
      expect(url.pathname).toMatch(/^\/api\/graphql\/__playground\//);
      expect((await fetch(url)).status).toBe(200);
    }
  });
});

describe('playground: { defaultQuery }', () => {
  it('serves the page with the query the editor opens on, escaped into an attribute (the CSP allows no inline script)', async () => {
    const defaultQuery = '# Orders need a token: { "authorization": "Bearer <token>" }\n{ hello }';
    const served = await serve({ schema, playground: { defaultQuery }, rootValue: { hello: () => 'hi' } });
    try {
      const html = await (await fetch(served.endpoint, { headers: HTML })).text();
      expect(html).toContain(
        '<div id="graphiql" data-default-query="# Orders need a token: { &quot;authorization&quot;: &quot;Bearer &lt;token&gt;&quot; }\n{ hello }">',
      );
      expect(html).not.toMatch(/<script>/);
    } finally {
      await served.close();
    }
  });

  it('without defaultQuery serves the plain page', async () => {
    const served = await serve({ schema, playground: {} });
    try {
      const html = await (await fetch(served.endpoint, { headers: HTML })).text();
      expect(html).toContain('<div id="graphiql">');
    } finally {
      await served.close();
    }
  });
});

describe('playground: false', () => {
  let served: Served;

  beforeAll(async () => {
    served = await serve({ schema, playground: false, rootValue: { hello: () => 'hi' } });
  });
  afterAll(() => served.close());

  it('serves no page: a browser GET is treated as a GraphQL request', async () => {
    const res = await fetch(served.endpoint, { headers: HTML });
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.status).toBe(400);
    expect(((await res.json()) as ErrorsBody).errors[0]?.message).toBe('Missing query');
  });

  it('serves no playground files', async () => {
    const enabled = await serve({ schema });
    try {
      const html = await (await fetch(enabled.endpoint, { headers: HTML })).text();
      const [first] = assetLinks(html);
      expect((await fetch(new URL(first!, served.endpoint))).status).toBe(404);
    } finally {
      await enabled.close();
    }
  });
});
