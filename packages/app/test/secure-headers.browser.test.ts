import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { buildSchema } from 'graphql';
import { chromium, type Browser, type Page } from 'playwright-core';
import { z } from 'zod';
import { createApp, createHandler, etag, openapiPlugin, secureHeaders, type App } from '@fw/app';
import { keepOffline, launchChromium } from '../../../tooling/testing/browser.js';

// The docs page (Swagger UI) and the playground (GraphiQL) in a real headless Chromium, offline,
// with secureHeaders() and etag() installed globally: each page keeps its own CSP, gets the other
// security headers, and still works (lists and runs operations; runs a query).
const OUTPUT = join(__dirname, '..', 'test-output');
const BOOKS = [{ id: 1, title: 'Dune' }, { id: 2, title: 'Solaris' }];
/** The headers secureHeaders() adds to every answer over plain http (all but its CSP, which pages replace). */
const ADDED = {
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'x-dns-prefetch-control': 'off',
  'x-frame-options': 'DENY',
  'x-permitted-cross-domain-policies': 'none',
};
const API_CSP = "default-src 'none'; frame-ancestors 'none'";

/** What the in-page functions below use of GraphiQL's page (they run in the browser, self-contained). */
interface EditorPage {
  document: { querySelector(selector: string): { CodeMirror?: { getValue(): string } } | null };
}

let app: App;
const answered: Array<{ revalidation: boolean; status: number }> = [];
let base: string;
let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium(chromium, 'the secureHeaders browser test');
  app = createApp({
    onLog: () => undefined,
    middleware: [
      // What the server answered each page request with, as middleware outside the others sees it.
      async (ctx, next) => {
        await next();
        if (ctx.path === '/docs') answered.push({ revalidation: ctx.headers['if-none-match'] !== undefined, status: ctx.statusCode });
      },
      secureHeaders(),
      etag(),
    ],
    protocols: { graphql: { schema: buildSchema('type Query { hello(name: String): String }'), rootValue: { hello: ({ name }: { name?: string }) => `Hello ${name ?? 'world'}` } } },
  });
  app.get('/books', (ctx) => ctx.json(BOOKS));
  app.get(
    '/books/:id',
    ...createHandler({ params: z.object({ id: z.coerce.number().int().positive() }) }, (ctx) => ctx.json(BOOKS.find((b) => b.id === ctx.params.id) ?? null)),
  );
  app.register(openapiPlugin({ info: { title: 'Bookstore', version: '1.0.0' }, onWarning: () => undefined }));
  const info = await app.listen(0, '127.0.0.1');
  base = `http://127.0.0.1:${info.port}`;
}, 30_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

async function offlinePage(): Promise<{ page: Page; blocked: string[]; problems: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
  const { blocked, problems } = await keepOffline(page);
  return { page, blocked, problems };
}

/** The headers of a response whose name secureHeaders() could have set. */
function picked(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.keys(ADDED).map((name) => [name, headers[name]!]));
}

it('serves /docs with its own CSP and the other headers; Swagger UI lists and runs the operations offline', async () => {
  const { page, blocked, problems } = await offlinePage();
  const api: Array<{ url: string; status: number; headers: Record<string, string> }> = [];
  page.on('response', (response) => {
    const url = response.url().replace(base, '');
    if (url === '/openapi.json' || url.startsWith('/books')) api.push({ url, status: response.status(), headers: response.headers() });
  });
  const response = await page.goto(`${base}/docs`, { waitUntil: 'load' });
  expect(response?.status()).toBe(200);
  const headers = response!.headers();
  expect(headers['content-security-policy']).toContain("script-src 'self'");
  expect(headers['content-security-policy']).not.toBe(API_CSP);
  expect(picked(headers)).toEqual(ADDED);
  expect(headers['strict-transport-security']).toBeUndefined();
  expect(headers.etag).toMatch(/^W\//);

  await page.locator('.opblock').nth(1).waitFor({ timeout: 15_000 });
  const listed = await page.locator('.opblock .opblock-summary [data-path]').evaluateAll((nodes) => nodes.map((n) => n.getAttribute('data-path')));
  expect(listed.sort()).toEqual(['/books', '/books/{id}']);

  const operation = page.locator('.opblock').filter({ has: page.locator('[data-path="/books/{id}"]') });
  await operation.locator('.opblock-summary').first().click();
  await operation.locator('button.try-out__btn').click();
  await operation.locator('tr[data-param-name="id"] input').fill('2');
  await operation.locator('button.execute').click();
  const status = operation.locator('.live-responses-table .response .response-col_status');
  await status.waitFor({ timeout: 10_000 });
  // "200 Undocumented": the route documents no response schema; the status is what matters.
  expect((await status.textContent())?.trim()).toMatch(/^200\b/);
  const shown = await operation.locator('.live-responses-table .response-col_description pre.microlight, .live-responses-table .response-col_description .highlight-code pre').first().textContent();
  expect(JSON.parse(shown ?? '')).toEqual(BOOKS[1]);
  mkdirSync(OUTPUT, { recursive: true });
  await page.screenshot({ path: join(OUTPUT, 'docs-secure-headers.png'), fullPage: false });

  // The document and the API answers carry the API policy and an ETag.
  const document = api.find((r) => r.url === '/openapi.json');
  const book = api.find((r) => r.url === '/books/2');
  expect(document?.headers['content-security-policy']).toBe(API_CSP);
  expect(book?.headers['content-security-policy']).toBe(API_CSP);
  expect(picked(book!.headers)).toEqual(ADDED);
  expect(book?.headers.etag).toMatch(/^W\/"[\w-]{27}"$/);

  expect(blocked).toEqual([]);
  expect(problems).toEqual([]);
  await page.close();
}, 90_000);

it('renders /docs from the browser cache after etag()\'s 304 when Chromium revalidates it on reload', async () => {
  // Request interception turns Chromium's HTTP cache off, so this page is not routed; the requests
  // it makes are recorded instead, and none may leave this machine.
  const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
  const elsewhere: string[] = [];
  page.on('request', (request) => {
    if (new URL(request.url()).hostname !== '127.0.0.1') elsewhere.push(request.url());
  });
  await page.goto(`${base}/docs`, { waitUntil: 'load' });
  await page.locator('.opblock').nth(1).waitFor({ timeout: 15_000 });
  answered.length = 0;
  // `Cache-Control: no-cache` on the page: a reload asks the server with If-None-Match.
  await page.reload({ waitUntil: 'load' });
  await page.locator('.opblock').nth(1).waitFor({ timeout: 15_000 });
  expect(answered).toEqual([{ revalidation: true, status: 304 }]);
  await expect(page.locator('.info .title').textContent()).resolves.toContain('Bookstore');
  expect(elsewhere).toEqual([]);
  await page.close();
}, 90_000);

it('answers a revalidation of /docs with 304 from etag(), with the page\'s own CSP kept', async () => {
  const first = await fetch(`${base}/docs`, { headers: { accept: 'text/html' } });
  const tag = first.headers.get('etag');
  expect(tag).toMatch(/^W\//);
  await first.text();
  const again = await fetch(`${base}/docs`, { headers: { accept: 'text/html', 'if-none-match': tag! } });
  expect(again.status).toBe(304);
  expect(await again.text()).toBe('');
  expect(again.headers.get('content-security-policy')).toContain("script-src 'self'");
  expect(again.headers.get('x-frame-options')).toBe('DENY');
});

it('serves GraphiQL with its own CSP and the other headers; it runs a query typed into the editor offline', async () => {
  const { page, blocked, problems } = await offlinePage();
  const response = await page.goto(`${base}/graphql`, { waitUntil: 'load' });
  expect(response?.status()).toBe(200);
  const headers = response!.headers();
  expect(headers['content-security-policy']).toContain("script-src 'self'");
  expect(picked(headers)).toEqual(ADDED);

  const QUERY_EDITOR = '.graphiql-query-editor .CodeMirror';
  const RESPONSE_EDITOR = '.graphiql-response .CodeMirror';
  const editor = page.locator(QUERY_EDITOR);
  await editor.waitFor({ state: 'visible', timeout: 15_000 });
  await editor.click();
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Backspace');
  await page.keyboard.type('query Greeting { hello(name: "headers") ', { delay: 5 });
  const typed = 'query Greeting { hello(name: "headers") }';
  await page.waitForFunction(
    ([selector, text]) => (globalThis as unknown as EditorPage).document.querySelector(selector)?.CodeMirror?.getValue().trim() === text,
    [QUERY_EDITOR, typed] as const,
    { timeout: 5_000 },
  );
  await page.locator('.graphiql-execute-button').click();
  const editorText = (selector: string): string => (globalThis as unknown as EditorPage).document.querySelector(selector)?.CodeMirror?.getValue() ?? '';
  await page.waitForFunction(editorText, RESPONSE_EDITOR, { timeout: 10_000 });
  expect(JSON.parse(await page.evaluate(editorText, RESPONSE_EDITOR))).toEqual({ data: { hello: 'Hello headers' } });
  mkdirSync(OUTPUT, { recursive: true });
  await page.screenshot({ path: join(OUTPUT, 'playground-secure-headers.png'), fullPage: false });
  expect(blocked).toEqual([]);
  expect(problems).toEqual([]);
  await page.close();
}, 90_000);
