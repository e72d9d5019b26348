import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpsServer, request as httpsRequest, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Application, HTTPError, type ApplicationConfig } from '@fw/core';
import { sendHtmlPage } from '@fw/core/plugin';
import { callContext, runOnCall } from '../test/contexts.js';
import { send, start } from '../test/http.js';
import { DEFAULT_CONTENT_SECURITY_POLICY, DEFAULT_SECURE_HEADERS, DEFAULT_STRICT_TRANSPORT_SECURITY, secureHeaders } from './index.js';
import type { SecureHeadersConfig } from './index.js';

const PAGE_CSP = "default-src 'none'; script-src 'self'; style-src 'self'";

/** The defaults as sent on a plain-http request: everything but HSTS. */
const PLAIN_DEFAULTS = {
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'x-dns-prefetch-control': 'off',
  'x-frame-options': 'DENY',
  'x-permitted-cross-domain-policies': 'none',
};
const SECURITY_HEADERS = [
  ...Object.keys(PLAIN_DEFAULTS),
  'strict-transport-security',
  'cross-origin-embedder-policy',
  'origin-agent-cluster',
  'permissions-policy',
  'x-xss-protection',
];

/** The security headers of an answer, by name (only those present). */
function securityHeadersOf(headers: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(SECURITY_HEADERS.filter((name) => headers[name] !== undefined).map((name) => [name, headers[name]]));
}

function createApp(config?: SecureHeadersConfig, appConfig: ApplicationConfig = {}): Application {
  const app = new Application({ onLog: () => undefined, ...appConfig });
  app.use(secureHeaders(config));
  app.get('/books', (ctx) => ctx.json([]));
  app.get('/page', (ctx) => sendHtmlPage(ctx, '<!doctype html><title>Docs</title>', PAGE_CSP));
  app.get('/powered', (ctx) => ctx.setHeader('x-powered-by', 'Express').json([]));
  app.get('/powered-boom', (ctx) => {
    ctx.setHeader('x-powered-by', 'Express');
    throw new HTTPError(500, 'boom');
  });
  app.get('/boom', () => {
    throw new HTTPError(418, 'teapot');
  });
  app.get('/events', (ctx) => ctx.sse((async function* () {
    yield 1;
  })()));
  return app;
}

describe('secureHeaders() defaults', () => {
  const app = createApp();

  it('sends the API defaults on every answer, and no HSTS over plain http', async () => {
    const res = await app.inject('/books');
    expect(securityHeadersOf(res.headers)).toEqual(PLAIN_DEFAULTS);
    expect(DEFAULT_SECURE_HEADERS).toEqual({ ...PLAIN_DEFAULTS, 'strict-transport-security': 'max-age=15552000; includeSubDomains' });
    expect(DEFAULT_CONTENT_SECURITY_POLICY).toBe(PLAIN_DEFAULTS['content-security-policy']);
    expect(DEFAULT_STRICT_TRANSPORT_SECURITY).toBe('max-age=15552000; includeSubDomains');
  });

  it('puts them on error answers, unmatched paths and server-sent events too', async () => {
    for (const url of ['/boom', '/nowhere', '/events']) {
      const res = await app.inject(url);
      expect([url, securityHeadersOf(res.headers)]).toEqual([url, PLAIN_DEFAULTS]);
    }
  });

  it('lets a route that sets its own Content-Security-Policy keep it (a docs page), the other headers added', async () => {
    const res = await app.inject('/page');
    expect(securityHeadersOf(res.headers)).toEqual({ ...PLAIN_DEFAULTS, 'content-security-policy': PAGE_CSP });
  });

  it('removes X-Powered-By that a handler or earlier middleware set, error answers included', async () => {
    expect((await app.inject('/powered')).headers['x-powered-by']).toBeUndefined();
    expect((await app.inject('/powered-boom')).headers['x-powered-by']).toBeUndefined();
    const early = new Application();
    early.use((ctx, next) => {
      ctx.setHeader('x-powered-by', 'PHP/5.4');
      return next();
    });
    early.use(secureHeaders());
    early.get('/', (ctx) => ctx.text('ok'));
    expect((await early.inject('/')).headers['x-powered-by']).toBeUndefined();
  });

  it('keeps X-Powered-By with removePoweredBy: false', async () => {
    expect((await createApp({ removePoweredBy: false }).inject('/powered')).headers['x-powered-by']).toBe('Express');
  });

  it('lets other protocols\' contexts through untouched (a gRPC call)', async () => {
    const call = callContext();
    let ran = false;
    await runOnCall(secureHeaders({ strictTransportSecurity: true }), call, () => {
      ran = true;
      return Promise.resolve();
    });
    expect([ran, call.sent]).toEqual([true, {}]);
  });
});

describe('secureHeaders(): Strict-Transport-Security', () => {
  const https = { 'x-forwarded-proto': 'https' };
  const hstsOf = async (config: SecureHeadersConfig | undefined, appConfig: ApplicationConfig, headers: Record<string, string> = {}): Promise<unknown> =>
    (await createApp(config, appConfig).inject({ url: '/books', headers })).headers['strict-transport-security'];

  it('is sent by default when a trusted proxy says https, and not when the proxy is not trusted', async () => {
    expect(await hstsOf(undefined, { trustProxy: 1 }, https)).toBe(DEFAULT_STRICT_TRANSPORT_SECURITY);
    expect(await hstsOf(undefined, { trustProxy: ['127.0.0.1'] }, https)).toBe(DEFAULT_STRICT_TRANSPORT_SECURITY);
    expect(await hstsOf(undefined, {}, https)).toBeUndefined();
    expect(await hstsOf(undefined, { trustProxy: ['10.0.0.1'] }, https)).toBeUndefined();
    expect(await hstsOf(undefined, { trustProxy: 1 }, { 'x-forwarded-proto': 'http' })).toBeUndefined();
    expect(await hstsOf(undefined, { trustProxy: 1 })).toBeUndefined();
  });

  it('is sent on every answer when configured: true, a string, or its parts', async () => {
    expect(await hstsOf({ strictTransportSecurity: true }, {})).toBe(DEFAULT_STRICT_TRANSPORT_SECURITY);
    expect(await hstsOf({ strictTransportSecurity: 'max-age=60' }, {})).toBe('max-age=60');
    expect(await hstsOf({ strictTransportSecurity: { maxAge: 63072000, preload: true } }, {})).toBe('max-age=63072000; includeSubDomains; preload');
    expect(await hstsOf({ strictTransportSecurity: { includeSubDomains: false } }, {})).toBe('max-age=15552000');
  });

  it('is never sent with false, even over https', async () => {
    expect(await hstsOf({ strictTransportSecurity: false }, { trustProxy: 1 }, https)).toBeUndefined();
  });
});

describe('secureHeaders(): overrides', () => {
  const headersOf = async (config: SecureHeadersConfig): Promise<Record<string, unknown>> => securityHeadersOf((await createApp(config).inject('/books')).headers);

  it.each([
    ['contentSecurityPolicy', "default-src 'self'", 'content-security-policy'],
    ['crossOriginOpenerPolicy', 'same-origin-allow-popups', 'cross-origin-opener-policy'],
    ['crossOriginResourcePolicy', 'cross-origin', 'cross-origin-resource-policy'],
    ['referrerPolicy', 'strict-origin-when-cross-origin', 'referrer-policy'],
    ['xContentTypeOptions', 'nosniff', 'x-content-type-options'],
    ['xDnsPrefetchControl', 'on', 'x-dns-prefetch-control'],
    ['xFrameOptions', 'SAMEORIGIN', 'x-frame-options'],
    ['xPermittedCrossDomainPolicies', 'master-only', 'x-permitted-cross-domain-policies'],
  ] as const)('%s: a string replaces the value, false leaves the header out', async (option, value, header) => {
    expect(await headersOf({ [option]: value })).toEqual({ ...PLAIN_DEFAULTS, [header]: value });
    const { [header]: _left, ...others } = PLAIN_DEFAULTS;
    expect(await headersOf({ [option]: false })).toEqual(others);
    expect(await headersOf({ [option]: true })).toEqual(PLAIN_DEFAULTS);
  });

  it.each([
    ['crossOriginEmbedderPolicy', 'cross-origin-embedder-policy', 'require-corp', 'credentialless'],
    ['originAgentCluster', 'origin-agent-cluster', '?1', '?0'],
    ['xXssProtection', 'x-xss-protection', '0', '1; mode=block'],
  ] as const)('%s is off by default; true sends its default, a string its value', async (option, header, fallback, value) => {
    expect(await headersOf({})).not.toHaveProperty(header);
    expect(await headersOf({ [option]: true })).toEqual({ ...PLAIN_DEFAULTS, [header]: fallback });
    expect(await headersOf({ [option]: value })).toEqual({ ...PLAIN_DEFAULTS, [header]: value });
  });

  it('sends Permissions-Policy only as given (it has no default value)', async () => {
    expect(await headersOf({ permissionsPolicy: 'camera=(), microphone=()' })).toEqual({ ...PLAIN_DEFAULTS, 'permissions-policy': 'camera=(), microphone=()' });
    expect(() => secureHeaders({ permissionsPolicy: true })).toThrow('secureHeaders: permissionsPolicy has no default value');
  });

  it('writes Content-Security-Policy directives given by their camelCase names', async () => {
    const headers = await headersOf({
      contentSecurityPolicy: { defaultSrc: "'self'", imgSrc: ["'self'", 'data:'], frameAncestors: ["'none'"], upgradeInsecureRequests: true, scriptSrc: false },
    });
    expect(headers['content-security-policy']).toBe("default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; upgrade-insecure-requests");
  });

  it('turns everything off at once', async () => {
    const off: SecureHeadersConfig = {
      contentSecurityPolicy: false,
      crossOriginOpenerPolicy: false,
      crossOriginResourcePolicy: false,
      referrerPolicy: false,
      strictTransportSecurity: false,
      xContentTypeOptions: false,
      xDnsPrefetchControl: false,
      xFrameOptions: false,
      xPermittedCrossDomainPolicies: false,
    };
    expect(await headersOf(off)).toEqual({});
  });
});

describe('secureHeaders() configuration', () => {
  it('refuses unknown options, naming the one meant, and helmet\'s names with the one to use', () => {
    expect(() => secureHeaders({ xFrameOption: 'DENY' } as SecureHeadersConfig)).toThrow('secureHeaders: unknown option "xFrameOption"; did you mean "xFrameOptions"?');
    expect(() => secureHeaders({ hsts: true } as SecureHeadersConfig)).toThrow('secureHeaders: unknown option "hsts": use strictTransportSecurity');
    expect(() => secureHeaders({ frameguard: false } as SecureHeadersConfig)).toThrow('use xFrameOptions');
    expect(() => secureHeaders({ strictTransportSecurity: { maxage: 1 } as never })).toThrow('unknown option "strictTransportSecurity.maxage"; did you mean "maxAge"?');
  });

  it('refuses values that are not header values', () => {
    expect(() => secureHeaders({ xFrameOptions: 'DENY\r\nSet-Cookie: a=b' })).toThrow('secureHeaders: xFrameOptions must be a non-empty header value');
    expect(() => secureHeaders({ referrerPolicy: '' })).toThrow('referrerPolicy must be a non-empty header value');
    expect(() => secureHeaders({ referrerPolicy: 1 as unknown as string })).toThrow('referrerPolicy must be a string, true or false');
    expect(() => secureHeaders({ removePoweredBy: 'yes' as unknown as boolean })).toThrow('removePoweredBy must be a boolean');
    expect(() => secureHeaders({ strictTransportSecurity: { maxAge: -1 } })).toThrow('strictTransportSecurity.maxAge must be a whole number');
    expect(() => secureHeaders({ strictTransportSecurity: 3 as unknown as boolean })).toThrow('strictTransportSecurity must be a string');
  });

  it('refuses Content-Security-Policy directives that would break the policy', () => {
    expect(() => secureHeaders({ contentSecurityPolicy: { defaultSrc: "'self'; script-src *" } })).toThrow('contentSecurityPolicy.defaultSrc has an invalid source');
    expect(() => secureHeaders({ contentSecurityPolicy: { 'default src': "'self'" } })).toThrow('invalid directive name');
    expect(() => secureHeaders({ contentSecurityPolicy: {} })).toThrow('contentSecurityPolicy has no directives');
    expect(() => secureHeaders({ contentSecurityPolicy: { imgSrc: 3 as unknown as string } })).toThrow('contentSecurityPolicy.imgSrc must be a string');
    expect(() => secureHeaders({ contentSecurityPolicy: ['x'] as unknown as string })).toThrow('contentSecurityPolicy must be a string, an object of directives');
  });
});

describe('secureHeaders() on real sockets', () => {
  let dir: string;
  let tls: { key: Buffer; cert: Buffer };

  beforeAll(() => {
    // A throw-away self-signed certificate for 127.0.0.1, made with the system openssl.
    dir = mkdtempSync(path.join(tmpdir(), 'fw-secure-headers-'));
    const keyFile = path.join(dir, 'key.pem');
    const certFile = path.join(dir, 'cert.pem');
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', keyFile, '-out', certFile, '-days', '1', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1'],
      { stdio: 'ignore' },
    );
    tls = { key: readFileSync(keyFile), cert: readFileSync(certFile) };
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('sends HSTS over TLS (an https server on app.handler) and not over plain http', async () => {
    const app = createApp();
    const server: Server = createHttpsServer(tls, app.handler);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const plainUrl = await start(app);
    try {
      const { port } = server.address() as AddressInfo;
      const headers = await new Promise<Record<string, unknown>>((resolve, reject) => {
        const req = httpsRequest({ host: '127.0.0.1', port, path: '/books', ca: tls.cert, agent: false }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.headers));
        });
        req.on('error', reject);
        req.end();
      });
      expect(securityHeadersOf(headers)).toEqual({ ...PLAIN_DEFAULTS, 'strict-transport-security': DEFAULT_STRICT_TRANSPORT_SECURITY });
      const plain = await send(`${plainUrl}/books`);
      expect(securityHeadersOf(plain.headers)).toEqual(PLAIN_DEFAULTS);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await app.close();
    }
  });

  it('sends HSTS behind a trusted proxy that says https, on a real socket', async () => {
    const app = createApp(undefined, { trustProxy: 1 });
    const url = await start(app);
    try {
      const res = await send(`${url}/books`, { headers: { 'x-forwarded-proto': 'https', 'x-forwarded-for': '203.0.113.9' } });
      expect(res.headers['strict-transport-security']).toBe(DEFAULT_STRICT_TRANSPORT_SECURITY);
      expect(res.headers['x-frame-options']).toBe('DENY');
    } finally {
      await app.close();
    }
  });
});
