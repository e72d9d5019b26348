import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { build } from 'esbuild';
import { chromium, type Browser } from 'playwright-core';
import { z } from 'zod';
import { createApp, HTTPError, type App, type Middleware, type RequestContext } from '@fw/app';
import { generateProtos } from '@fw/app/grpc';
import { defineOperation } from '@fw/app/validate';
import { launchChromium } from '../../../tooling/testing/browser.js';
import { bufImage } from '../../../tooling/testing/buf.js';

// A web page in headless Chromium calls the app's operations with @connectrpc/connect-web's
// Connect and gRPC-Web transports and with the grpc-web npm client, from another origin: what a browser app does without an
// Envoy in front. The page's descriptors come from `buf build` over the .proto fw emits.

jest.setTimeout(120_000);

const requireAdmin: Middleware<RequestContext> = async (ctx, next) => {
  if (ctx.headers.authorization !== 'Bearer admin') throw new HTTPError(401, 'Authentication required');
  await next();
};

const Gadget = z.object({ id: z.string(), name: z.string(), weightGrams: z.number().int() }).meta({ id: 'Gadget' });
let slowAborted = 0;

const operations = [
  defineOperation({
    name: 'getGadget',
    input: z.object({ id: z.string().min(1) }),
    output: Gadget,
    rest: { method: 'GET', path: '/gadgets/:id' },
    grpc: { service: 'gadgets.v1.Gadgets' },
    handler: ({ id }) => {
      if (id === 'none') throw new HTTPError(404, `No gadget ${id}`);
      return { id, name: 'kettle', weightGrams: 900 };
    },
  }),
  defineOperation({
    name: 'addGadget',
    input: z.object({ name: z.string().min(2), weightGrams: z.number().int().min(0) }),
    output: Gadget,
    middleware: [requireAdmin],
    rest: { method: 'POST', path: '/gadgets' },
    grpc: { service: 'gadgets.v1.Gadgets' },
    handler: (input) => ({ id: 'g2', ...input }),
  }),
  defineOperation({
    name: 'countdown',
    input: z.object({ from: z.number().int().min(0).max(100) }),
    output: z.object({ left: z.number().int() }).meta({ id: 'Count' }),
    stream: true,
    grpc: { service: 'gadgets.v1.Gadgets' },
    handler: async function* ({ from }) {
      for (let left = from; left > 0; left--) yield { left };
    },
  }),
  defineOperation({
    name: 'slowGadget',
    input: z.object({}),
    output: z.object({ ok: z.boolean() }),
    rest: { method: 'POST', path: '/slow' },
    grpc: { service: 'gadgets.v1.Gadgets' },
    handler: async (_input, ctx) => {
      await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }));
      slowAborted++;
      return { ok: false };
    },
  }),
];

/** `buf build` over the emitted .proto files: the descriptor set, base64. */
async function descriptors(): Promise<string> {
  return (await bufImage(generateProtos(operations))).toString('base64');
}

let app: App;
let api: string;
let page: Server;
let pageOrigin: string;
let browser: Browser;
let image: string;
const seen: string[] = [];
const preflights: string[] = [];

beforeAll(async () => {
  const bundle = await build({
    entryPoints: [path.join(__dirname, 'fixtures', 'connect-browser', 'entry.ts')],
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
  });
  const script = bundle.outputFiles[0]!.text;
  // The page's own origin: a server that knows nothing of the API.
  page = createServer((req, res) => {
    if (req.url === '/client.js') {
      res.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>gadgets</title><script src="/client.js"></script>');
  });
  await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
  pageOrigin = `http://127.0.0.1:${(page.address() as AddressInfo).port}`;

  app = createApp({ protocols: { connect: true }, cors: { origin: pageOrigin }, shutdown: false });
  app.use(async (ctx, next) => {
    seen.push(`${ctx.method} ${ctx.path}`);
    await next();
  });
  for (const op of operations) app.operation(op);
  const info = await app.listen(0, '127.0.0.1');
  api = `http://127.0.0.1:${info.port}`;
  // Preflights are answered by cors() before any middleware: record them where they arrive.
  app.server!.prependListener('request', (req: { method?: string; url?: string; headers: Record<string, unknown> }) => {
    if (req.method === 'OPTIONS') preflights.push(`${String(req.headers['access-control-request-method'])} ${req.url}`);
  });
  image = await descriptors();
  browser = await launchChromium(chromium, 'the Connect browser test');
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
  await new Promise((resolve) => page?.close(resolve));
});

type Outcome = { ok?: Record<string, unknown>; code?: number; message?: string };

it('answers connect-web and grpc-web clients in Chromium from another origin, through cors()', async () => {
  const tab = await browser.newPage();
  // No request interception here (keepOffline's): with it on, playwright answers CORS preflights
  // itself, and the app's cors() would go untested. The page loads nothing but its own script.
  const problems: string[] = [];
  const elsewhere: string[] = [];
  tab.on('request', (request) => {
    const host = new URL(request.url()).hostname;
    if (host !== '127.0.0.1') elsewhere.push(request.url());
  });
  tab.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  tab.on('pageerror', (error) => problems.push(`page: ${error.message}`));
  await tab.goto(`${pageOrigin}/`, { waitUntil: 'load' });
  const results = (await tab.evaluate(
    ([base, set]) => (globalThis as unknown as { fwConnectCalls(baseUrl: string, descriptors: string): Promise<unknown> }).fwConnectCalls(base!, set!),
    [api, image],
  )) as Record<string, Record<string, Outcome>>;

  expect(Object.keys(results)).toEqual(['connectJson', 'connectBinary', 'connectGet', 'grpcWeb', 'grpcWebJson', 'grpcWebNpmText', 'grpcWebNpmBinary']);
  for (const [transport, calls] of Object.entries(results)) {
    const context = `over ${transport}`;
    expect([context, calls.get]).toEqual([context, { ok: { gadget: { id: 'g1', name: 'kettle', weightGrams: '900' } } }]);
    // Connect codes (connect-es's Code): 5 not_found, 3 invalid_argument, 16 unauthenticated, 4 deadline_exceeded.
    expect([context, calls.missing]).toEqual([context, { code: 5, message: 'No gadget none' }]);
    expect([context, calls.invalid?.code]).toEqual([context, 3]);
    expect([context, calls.anonymous]).toEqual([context, { code: 16, message: 'Authentication required' }]);
    expect([context, calls.added]).toEqual([context, { ok: { gadget: { id: 'g2', name: 'lamp', weightGrams: '1500' } } }]);
    expect([context, calls.stream]).toEqual([context, { ok: [{ count: { left: '3' } }, { count: { left: '2' } }, { count: { left: '1' } }] }]);
    expect([context, calls.deadline?.code]).toEqual([context, 4]);
  }
  // Cross-origin calls with custom headers went through the app's cors() preflight.
  expect(preflights).toContain('POST /gadgets.v1.Gadgets/AddGadget');
  // The GET transport used Connect GET for the call without side effects, POST for the others.
  expect(seen).toContain('GET /gadgets.v1.Gadgets/GetGadget');
  expect(seen.filter((line) => line.startsWith('GET ')).length).toBe(3);
  expect(seen.filter((line) => line === 'POST /gadgets.v1.Gadgets/GetGadget').length).toBe(6 * 3);
  expect(slowAborted).toBeGreaterThanOrEqual(7);
  expect(elsewhere).toEqual([]);
  // A refused call logs a failed fetch in the console; nothing else may go wrong in the page.
  expect(problems.filter((problem) => !/Failed to load resource/.test(problem))).toEqual([]);
  await tab.close();
});
