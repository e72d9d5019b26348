// A browser's own multipart encoding: headless Chromium (Debian's package), offline, fills a file
// input and posts the form with FormData and fetch, as a page does.
import { chromium, type Browser } from 'playwright-core';
import { keepOffline, launchChromium } from '../../../tooling/testing/browser.js';
import { Application, type Context } from '../src/index.js';

const PAGE = `<!doctype html>
<html><body>
<form id="upload"><input name="title" value="From the browser"><input type="file" name="docs" multiple></form>
<output id="result"></output>
<script src="/upload.js"></script>
</body></html>`;

const SCRIPT = `
window.send = async () => {
  const res = await fetch('/upload', { method: 'POST', body: new FormData(document.getElementById('upload')) });
  document.getElementById('result').textContent = res.status + ' ' + (await res.text());
};`;

let app: Application;
let base: string;
let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium(chromium, 'the multipart browser test');
  app = new Application({ closeTimeout: 1000 });
  app.get('/', (ctx) => ctx.send(PAGE, 200, 'text/html; charset=utf-8'));
  app.get('/upload.js', (ctx) => ctx.send(SCRIPT, 200, 'text/javascript; charset=utf-8'));
  app.post('/upload', async (ctx: Context) => {
    const parts: unknown[] = [];
    for await (const part of ctx.multipart()) {
      if (part.type === 'field') parts.push({ field: part.fieldname, value: part.value });
      else {
        const chunks: Buffer[] = [];
        for await (const chunk of part.stream) chunks.push(chunk as Buffer);
        parts.push({ file: part.fieldname, filename: part.filename, mimeType: part.mimeType, content: Buffer.concat(chunks).toString() });
      }
    }
    ctx.json(parts);
  });
  base = `http://127.0.0.1:${(await app.listen(0, '127.0.0.1')).port}`;
}, 30_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

it('reads what Chromium sends for a form with a text field and two files chosen in a file input', async () => {
  const page = await browser.newPage();
  const { blocked, problems } = await keepOffline(page);
  await page.goto(`${base}/`, { waitUntil: 'load' });
  await page.locator('input[type=file]').setInputFiles([
    { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('first file') },
    { name: 'data é.json', mimeType: 'application/json', buffer: Buffer.from('{"ok":true}') },
  ]);
  await page.evaluate('window.send()');
  const result = page.locator('#result');
  await result.filter({ hasText: /^\d{3} / }).waitFor({ timeout: 10_000 });
  const text = (await result.textContent()) ?? '';
  expect(text.slice(0, 4)).toBe('200 ');
  expect(JSON.parse(text.slice(4))).toEqual([
    { field: 'title', value: 'From the browser' },
    { file: 'docs', filename: 'notes.txt', mimeType: 'text/plain', content: 'first file' },
    { file: 'docs', filename: 'data é.json', mimeType: 'application/json', content: '{"ok":true}' },
  ]);
  expect(blocked).toEqual([]);
  expect(problems).toEqual([]);
  await page.close();
}, 30_000);
