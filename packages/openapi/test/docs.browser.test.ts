import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Application } from '@fw/core';
import { chromium, type Browser, type Page } from 'playwright-core';
import { keepOffline, launchChromium } from '../../../tooling/testing/browser.js';
import { openapiPlugin, type OpenAPIDocument } from '../src/index.js';
import { buildTestApp, type TestBook } from './helpers.js';

// The docs page in a real headless Chromium (Debian's package), offline: every request that does
// not go to the test server is aborted, so anything loaded from a CDN would break the page.
const OUTPUT = join(__dirname, '..', 'test-output');

let app: Application;
let books: TestBook[];
let base: string;
let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium(chromium, 'the docs page browser test');
  ({ app, books } = buildTestApp());
  app.register(openapiPlugin({ info: { title: 'Bookstore', version: '1.0.0' }, onWarning: () => undefined }));
  const info = await app.listen(0, '127.0.0.1');
  base = `http://127.0.0.1:${info.port}`;
}, 30_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

/** A page that may reach 127.0.0.1 only; what it tried elsewhere and what went wrong in it are recorded. */
async function offlinePage(): Promise<{ page: Page; blocked: string[]; problems: string[]; requests: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
  const { blocked, problems } = await keepOffline(page);
  const requests: string[] = [];
  page.on('request', (request) => requests.push(`${request.method()} ${request.url().replace(base, '')}`));
  return { page, blocked, problems, requests };
}

it('loads /docs offline, lists every operation, and "Try it out" → "Execute" on a GET shows the real JSON', async () => {
  const { page, blocked, problems, requests } = await offlinePage();
  const response = await page.goto(`${base}/docs`, { waitUntil: 'load' });
  expect(response?.status()).toBe(200);
  expect(response?.headers()['content-security-policy']).toContain("script-src 'self'");

  const document = (await app.inject('/openapi.json')).json<OpenAPIDocument>();
  const documented = Object.entries(document.paths).flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`));
  await page.locator('.opblock').nth(documented.length - 1).waitFor({ timeout: 15_000 });
  const listed = await page.locator('.opblock .opblock-summary').evaluateAll((summaries) =>
    summaries.map((s) => `${s.querySelector('.opblock-summary-method')?.textContent?.trim()} ${s.querySelector('[data-path]')?.getAttribute('data-path')}`),
  );
  expect(listed.sort()).toEqual(documented.sort());
  await expect(page.locator('.info .title').textContent()).resolves.toContain('Bookstore');

  // Open GET /books/{id}, try it out with id 2, execute.
  const operation = page.locator('#operations-books-getBooksById');
  await operation.locator('.opblock-summary').first().click();
  await operation.locator('button.try-out__btn').click();
  const idInput = operation.locator('tr[data-param-name="id"] input');
  await idInput.fill('2');
  await operation.locator('button.execute').click();
  const status = operation.locator('.live-responses-table .response .response-col_status');
  await status.waitFor({ timeout: 10_000 });
  expect((await status.textContent())?.trim()).toBe('200');
  const shown = await operation.locator('.live-responses-table .response-col_description pre.microlight, .live-responses-table .response-col_description .highlight-code pre').first().textContent();
  expect(JSON.parse(shown ?? '')).toEqual(books.find((b) => b.id === 2));

  mkdirSync(OUTPUT, { recursive: true });
  // The request URL and the response shown, in the picture.
  await operation.locator('.request-url').scrollIntoViewIfNeeded();
  await page.evaluate(() => (globalThis as unknown as { scrollBy(x: number, y: number): void }).scrollBy(0, 330));
  await page.screenshot({ path: join(OUTPUT, 'docs.png'), fullPage: false });

  // The page fetched its files and the document from the app, and "Execute" called the app itself.
  expect(requests).toEqual(
    expect.arrayContaining(['GET /docs', expect.stringMatching(/^GET \/docs\/swagger-ui-bundle\.js\?v=/), expect.stringMatching(/^GET \/docs\/docs-init\.js\?v=/), 'GET /openapi.json', 'GET /books/2']),
  );
  expect(blocked).toEqual([]);
  expect(problems).toEqual([]);

  // The interception itself works: a request off this machine is aborted and recorded.
  await expect(page.goto('http://cdn.offline.invalid/swagger-ui-bundle.js')).rejects.toThrow();
  expect(blocked).toEqual(['http://cdn.offline.invalid/swagger-ui-bundle.js']);
  await page.close();
}, 60_000);

it('shows the validation error the app really answers when "Execute" sends a bad value', async () => {
  const { page, blocked, problems } = await offlinePage();
  await page.goto(`${base}/docs#/books/getBooksById`, { waitUntil: 'load' });
  const operation = page.locator('#operations-books-getBooksById');
  // Deep linking opened the operation.
  await operation.locator('button.try-out__btn').click({ timeout: 15_000 });
  await operation.locator('tr[data-param-name="id"] input').fill('0');
  await operation.locator('button.execute').click();
  const status = operation.locator('.live-responses-table .response .response-col_status');
  await status.waitFor({ timeout: 10_000 });
  expect((await status.textContent())?.trim()).toBe('400');
  const shown = await operation.locator('.live-responses-table .response-col_description pre.microlight, .live-responses-table .response-col_description .highlight-code pre').first().textContent();
  expect(JSON.parse(shown ?? '')).toMatchObject({ error: true, message: 'Validation failed', code: 400, details: { errors: [{ field: 'params.id', code: 'too_small' }] } });
  expect(blocked).toEqual([]);
  // The 400 itself is reported by Chromium as a failed resource load; nothing else may go wrong.
  expect(problems.filter((p) => !p.includes('400 (Bad Request)'))).toEqual([]);
  await page.close();
}, 60_000);

it('lists one document per version prefix in the selector, and switching shows that version\'s operations', async () => {
  const versioned = buildTestApp().app;
  versioned.register(
    openapiPlugin({
      path: false,
      documents: [
        { name: 'v1', path: '/api/v1/openapi.json', prefix: '/api/v1', info: { title: 'Bookstore v1', version: '1.0.0' } },
        { name: 'v2', path: '/api/v2/openapi.json', prefix: '/api/v2', info: { title: 'Bookstore v2', version: '2.0.0' } },
      ],
      onWarning: () => undefined,
    }),
  );
  const info = await versioned.listen(0, '127.0.0.1');
  try {
    const { page, blocked, problems } = await offlinePage();
    await page.goto(`http://127.0.0.1:${info.port}/docs`, { waitUntil: 'load' });
    await page.locator('.info .title', { hasText: 'Bookstore v1' }).waitFor({ timeout: 15_000 });
    const paths = () => page.locator('.opblock [data-path]').evaluateAll((nodes) => nodes.map((n) => n.getAttribute('data-path')));
    expect(await paths()).toEqual(['/books']);
    await page.locator('.topbar select').selectOption({ label: 'v2' });
    await page.locator('.info .title', { hasText: 'Bookstore v2' }).waitFor({ timeout: 10_000 });
    await page.locator('.opblock').first().waitFor();
    expect(await paths()).toEqual(['/books/{id}']);
    // The v2 document's server is /api/v2: "Execute" goes there.
    const operation = page.locator('#operations-default-getBooksById');
    await operation.locator('.opblock-summary').first().click();
    await operation.locator('button.try-out__btn').click();
    await operation.locator('tr[data-param-name="id"] input').fill('1');
    await operation.locator('button.execute').click();
    await operation.locator('.live-responses-table .response .response-col_status').waitFor({ timeout: 10_000 });
    expect(await operation.locator('.request-url pre').textContent()).toBe(`http://127.0.0.1:${info.port}/api/v2/books/1`);
    expect(blocked).toEqual([]);
    expect(problems).toEqual([]);
    await page.close();
  } finally {
    await versioned.close();
  }
}, 60_000);
