import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { keepOffline, launchChromium } from '../../../tooling/testing/browser.js';
import { schema, serve, type Served } from './helpers.js';
import { createProbe, subscriptionSchema, type Probe } from './subscription-helpers.js';

// GraphiQL in a real headless Chromium (Debian's package), offline: every request that does not
// go to the test server is aborted, so anything loaded from a CDN would break the page.
const OUTPUT = join(__dirname, '..', 'test-output');

const QUERY_EDITOR = '.graphiql-query-editor .CodeMirror';
const RESPONSE_EDITOR = '.graphiql-response .CodeMirror';

/** What the in-page functions below use of the page (they run in the browser, self-contained). */
interface EditorPage {
  document: { querySelector(selector: string): { CodeMirror?: { getValue(): string } } | null };
}

let served: Served;
let subscriptions: Served;
let probe: Probe;
let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium(chromium, 'the playground browser test');
  served = await serve({
    schema,
    rootValue: { hello: ({ name }: { name?: string }) => `Hello ${name ?? 'world'}` },
  });
  probe = createProbe();
  subscriptions = await serve({ schema: subscriptionSchema(probe) });
}, 30_000);

afterAll(async () => {
  await browser?.close();
  await served?.close();
  await subscriptions?.close();
});

it('loads GraphiQL offline, runs a query typed into the editor and shows the result', async () => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const { blocked, problems } = await keepOffline(page);
  const posts: string[] = [];
  page.on('request', (request) => {
    if (request.method() === 'POST') posts.push(request.url());
  });

  const response = await page.goto(served.endpoint, { waitUntil: 'load' });
  expect(response?.status()).toBe(200);
  expect(response?.headers()['content-security-policy']).toContain("script-src 'self'");

  const editor = page.locator(QUERY_EDITOR);
  await editor.waitFor({ state: 'visible', timeout: 15_000 });
  await page.locator('.graphiql-container').waitFor();

  await editor.click();
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Backspace');
  await page.keyboard.type('query Greeting { hello(name: "browser") ', { delay: 5 });
  // CodeMirror closes the brace it opened; the editor must hold the typed query. (Functions, not
  // strings: the page's CSP forbids eval, and Playwright runs functions outside of it.)
  const typed = 'query Greeting { hello(name: "browser") }';
  await page.waitForFunction(
    ([selector, text]) => (globalThis as unknown as EditorPage).document.querySelector(selector)?.CodeMirror?.getValue().trim() === text,
    [QUERY_EDITOR, typed] as const,
    { timeout: 5_000 },
  );

  await page.locator('.graphiql-execute-button').click();
  const editorText = (selector: string): string => (globalThis as unknown as EditorPage).document.querySelector(selector)?.CodeMirror?.getValue() ?? '';
  await page.waitForFunction(editorText, RESPONSE_EDITOR, { timeout: 10_000 });
  const shown = await page.evaluate(editorText, RESPONSE_EDITOR);
  expect(JSON.parse(shown)).toEqual({ data: { hello: 'Hello browser' } });

  mkdirSync(OUTPUT, { recursive: true });
  await page.screenshot({ path: join(OUTPUT, 'playground.png'), fullPage: false });

  // GraphiQL introspected the schema, then ran the query: both against the endpoint.
  expect(posts.length).toBeGreaterThanOrEqual(2);
  expect(new Set(posts)).toEqual(new Set([served.endpoint]));
  expect(blocked).toEqual([]);
  expect(problems).toEqual([]);

  // The interception itself works: a request off this machine is aborted and recorded.
  await expect(page.goto('http://cdn.offline.invalid/graphiql.js')).rejects.toThrow();
  expect(blocked).toEqual(['http://cdn.offline.invalid/graphiql.js']);
  await page.close();
}, 60_000);

it('runs a subscription from the playground over server-sent events, offline, and stops it', async () => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const { blocked, problems } = await keepOffline(page);
  const streams: string[] = [];
  page.on('request', (request) => {
    if (request.headers().accept === 'text/event-stream') streams.push(request.url());
  });
  await page.goto(subscriptions.endpoint, { waitUntil: 'load' });
  const editor = page.locator(QUERY_EDITOR);
  await editor.waitFor({ state: 'visible', timeout: 15_000 });

  const editorText = (selector: string): string => (globalThis as unknown as EditorPage).document.querySelector(selector)?.CodeMirror?.getValue() ?? '';
  const typeQuery = async (text: string): Promise<void> => {
    await editor.click();
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Backspace');
    await page.keyboard.type(text, { delay: 5 });
    await page.waitForFunction(([selector, typed]) => (globalThis as unknown as EditorPage).document.querySelector(selector)?.CodeMirror?.getValue().trim() === typed, [QUERY_EDITOR, `${text}}`] as const, {
      timeout: 5_000,
    });
  };

  // A subscription that ends by itself: the response shows its events as they come, the last one stays.
  await typeQuery('subscription Count { count(to: 3) ');
  await page.locator('.graphiql-execute-button').click();
  const responseMatches = ([selector, pattern]: readonly [string, string]): boolean =>
    new RegExp(pattern).test((globalThis as unknown as EditorPage).document.querySelector(selector)?.CodeMirror?.getValue() ?? '');
  await page.waitForFunction(responseMatches, [RESPONSE_EDITOR, '"count": 3'] as const, { timeout: 10_000 }).catch(async (err: unknown) => {
    throw new Error(`the response stayed ${await page.evaluate(editorText, RESPONSE_EDITOR)} (${String(err)}; ${problems.join(', ')})`);
  });
  expect(JSON.parse(await page.evaluate(editorText, RESPONSE_EDITOR))).toEqual({ data: { count: 3 } });

  // One that runs until stopped: the stop button ends it and the resolver runs its finally.
  await typeQuery('subscription Ticks { ticks ');
  const ran = probe.nextFinally();
  await page.locator('.graphiql-execute-button').click();
  await page.waitForFunction(responseMatches, [RESPONSE_EDITOR, '"ticks": ([2-9]|\\d{2,})'] as const, { timeout: 10_000 }).catch(async (err: unknown) => {
    throw new Error(`the response stayed ${await page.evaluate(editorText, RESPONSE_EDITOR)} (${String(err)})`);
  });
  await page.locator('.graphiql-execute-button').click();
  await ran;

  expect(streams).toEqual([subscriptions.endpoint, subscriptions.endpoint]);
  expect(blocked).toEqual([]);
  expect(problems).toEqual([]);
  await page.close();
}, 60_000);

it('opens the editor on playground.defaultQuery, comment lines included, and runs it as it is', async () => {
  const defaultQuery = '# Put a token in Headers: { "authorization": "Bearer <token>" }\nquery Greeting { hello(name: "default") }';
  const withDefault = await serve({ schema, playground: { defaultQuery }, rootValue: { hello: ({ name }: { name?: string }) => `Hello ${name ?? 'world'}` } });
  // A fresh context: no editor saved by an earlier page in this browser.
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    const page = await context.newPage();
    const { blocked, problems } = await keepOffline(page);
    await page.goto(withDefault.endpoint, { waitUntil: 'load' });
    const editor = page.locator(QUERY_EDITOR);
    await editor.waitFor({ state: 'visible', timeout: 15_000 });
    const editorText = (selector: string): string => (globalThis as unknown as EditorPage).document.querySelector(selector)?.CodeMirror?.getValue() ?? '';
    expect(await page.evaluate(editorText, QUERY_EDITOR)).toBe(defaultQuery);
    await page.locator('.graphiql-execute-button').click();
    await page.waitForFunction(editorText, RESPONSE_EDITOR, { timeout: 10_000 });
    expect(JSON.parse(await page.evaluate(editorText, RESPONSE_EDITOR))).toEqual({ data: { hello: 'Hello default' } });
    expect(blocked).toEqual([]);
    expect(problems).toEqual([]);
  } finally {
    await context.close();
    await withDefault.close();
  }
}, 60_000);
