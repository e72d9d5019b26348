import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { schema, serve, type Served } from './helpers.js';

// GraphiQL in a real headless Chromium (Debian's package), offline: every request that does not
// go to the test server is aborted, so anything loaded from a CDN would break the page.
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const OUTPUT = join(__dirname, '..', 'test-output');

const QUERY_EDITOR = '.graphiql-query-editor .CodeMirror';
const RESPONSE_EDITOR = '.graphiql-response .CodeMirror';

/** What the in-page functions below use of the page (they run in the browser, self-contained). */
interface EditorPage {
  document: { querySelector(selector: string): { CodeMirror?: { getValue(): string } } | null };
}

let served: Served;
let browser: Browser;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium is missing at ${CHROMIUM}: the playground browser test needs it. Install Debian's chromium ` +
        '(apt-get install -y chromium, or bash tooling/scripts/setup-services.sh) or set CHROMIUM_PATH.',
    );
  }
  served = await serve({
    schema,
    rootValue: { hello: ({ name }: { name?: string }) => `Hello ${name ?? 'world'}` },
  });
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}, 30_000);

afterAll(async () => {
  await browser?.close();
  await served?.close();
});

it('loads GraphiQL offline, runs a query typed into the editor and shows the result', async () => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const blocked: string[] = [];
  const problems: string[] = [];
  await page.route('**/*', (route) => {
    const url = new URL(route.request().url());
    if (url.hostname === '127.0.0.1') return route.continue();
    blocked.push(url.href);
    return route.abort('internetdisconnected');
  });
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page: ${error.message}`));
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
