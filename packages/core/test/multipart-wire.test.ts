// Multipart uploads on real sockets: undici's FormData, a flood of tiny fields, and a client that
// leaves halfway through a file.
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Writable } from 'node:stream';
import { FormData, Request, fetch } from 'undici';
import { Application, type Context } from '../src/index.js';

let app: Application;
let base: string;
let port: number;
let dir: string;
const logged: string[] = [];
const statuses: Array<[string, number]> = [];
/** Called when a handler is reading a file (the abort test waits for it). */
let reading: (() => void) | undefined;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fw-multipart-wire-'));
  app = new Application({ closeTimeout: 1000, multipart: { tmpDir: dir, fileSize: 256 * 1024 }, onLog: (message, error) => logged.push(`${message} ${String(error)}`) });
  app.register({ name: 'probe', setup: (host) => host.onResponse((ctx, status) => statuses.push([ctx.path, status])) });
  app.post('/form', async (ctx: Context) => {
    const { fields, files } = await ctx.formData();
    const saved = await Promise.all(files.map(async (f) => ({ fieldname: f.fieldname, filename: f.filename, size: f.size, sha256: createHash('sha256').update(await readFile(f.path)).digest('hex') })));
    ctx.json({ fields: { ...fields }, files: saved });
  });
  app.post('/stream', async (ctx: Context) => {
    let bytes = 0;
    for await (const part of ctx.multipart()) {
      if (part.type !== 'file') continue;
      reading?.();
      await pipeline(part.stream, new Writable({ write: (chunk: Buffer, _e, cb) => ((bytes += chunk.length), cb()) }));
    }
    ctx.json({ bytes });
  });
  app.get('/ping', (ctx) => ctx.text('pong'));
  port = (await app.listen(0, '127.0.0.1')).port;
  base = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  await app?.close();
  await rm(dir, { recursive: true, force: true });
});

/** Waits until `dir` is empty (uploads are removed asynchronously once the response closes). */
async function emptied(): Promise<string[]> {
  for (let i = 0; i < 150; i++) {
    const left = await readdir(dir);
    if (left.length === 0) return left;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return readdir(dir);
}

const sha256 = (data: Buffer): string => createHash('sha256').update(data).digest('hex');

it('takes a FormData upload from undici: fields and several files, saved and then removed', async () => {
  const big = Buffer.alloc(200 * 1024, 7);
  const small = Buffer.from('hello, world');
  const form = new FormData();
  form.append('title', 'Two files');
  form.append('tags', 'a');
  form.append('tags', 'b');
  form.append('big', new Blob([big], { type: 'application/octet-stream' }), 'big.bin');
  form.append('small', new Blob([small], { type: 'text/plain' }), 'dir/small.txt');
  const res = await fetch(`${base}/form`, { method: 'POST', body: form });
  expect(res.status).toBe(200);
  expect(await res.json()).toEqual({
    fields: { title: 'Two files', tags: ['a', 'b'] },
    files: [
      { fieldname: 'big', filename: 'big.bin', size: big.length, sha256: sha256(big) },
      { fieldname: 'small', filename: 'small.txt', size: small.length, sha256: sha256(small) },
    ],
  });
  await expect(emptied()).resolves.toEqual([]);
});

it('answers 413 naming multipart.fileSize for an oversized file, and the connection goes on serving', async () => {
  const form = new FormData();
  form.append('big', new Blob([Buffer.alloc(300 * 1024, 1)]), 'big.bin');
  const res = await fetch(`${base}/form`, { method: 'POST', body: form });
  expect(res.status).toBe(413);
  expect(await res.json()).toEqual({ error: true, code: 413, message: 'File "big.bin" larger than multipart.fileSize (262144 bytes)' });
  expect(await (await fetch(`${base}/ping`)).text()).toBe('pong');
  await expect(emptied()).resolves.toEqual([]);
});

it('answers 413 for 10,000 tiny fields (multipart.fields), before the rest of the body is even sent', async () => {
  const form = new FormData();
  for (let i = 0; i < 10_000; i++) form.append(`f${i}`, 'x');
  // Encoded once (undici takes its time turning 10,000 entries into a stream), then sent as bytes.
  const encoded = new Request('http://localhost/', { method: 'POST', body: form });
  const body = Buffer.from(await encoded.arrayBuffer());
  const type = encoded.headers.get('content-type')!;
  const res = await fetch(`${base}/form`, { method: 'POST', body, headers: { 'content-type': type } });
  expect(res.status).toBe(413);
  expect(((await res.json()) as { message: string }).message).toBe('More fields than multipart.fields (1000)');

  // No stall: with a fifth of the body sent (some 2,000 fields) and the rest held back, the answer comes.
  const socket = connect(port, '127.0.0.1');
  await new Promise<void>((resolve) => socket.once('connect', resolve));
  let answer = '';
  const answered = new Promise<void>((resolve) => {
    socket.on('data', (chunk: Buffer) => {
      answer += chunk.toString();
      if (answer.includes('\r\n\r\n{') && answer.endsWith('}')) resolve();
    });
  });
  socket.write(`POST /form HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: ${type}\r\nContent-Length: ${body.length}\r\n\r\n`);
  socket.write(body.subarray(0, Math.floor(body.length / 5)));
  await answered;
  socket.destroy();
  expect(answer).toMatch(/^HTTP\/1\.1 413 /);
  expect(answer).toContain('More fields than multipart.fields (1000)');
  expect(await (await fetch(`${base}/ping`)).text()).toBe('pong');
});

it('leaves no temporary file and logs nothing when the client leaves halfway through a file; other requests are served', async () => {
  logged.length = 0;
  for (const path of ['/form', '/stream']) {
    const boundary = '----fwtestboundary';
    const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="half.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`;
    const declared = head.length + 100_000 + `\r\n--${boundary}--\r\n`.length;
    const started = new Promise<void>((resolve) => (reading = resolve));
    const socket = connect(port, '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    socket.write(`POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${declared}\r\n\r\n${head}`);
    socket.write(Buffer.alloc(50_000, 2));
    if (path === '/stream') await started;
    else {
      // formData() has created its temporary file once the first bytes of the file arrived.
      for (let i = 0; i < 150 && (await readdir(dir)).length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
      expect((await readdir(dir)).length).toBe(1);
    }
    socket.destroy();
    await expect(emptied()).resolves.toEqual([]);
    for (let i = 0; i < 150 && !statuses.some(([p, s]) => p === path && s === 499); i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(statuses).toContainEqual([path, 499]);
  }
  reading = undefined;
  expect(await (await fetch(`${base}/ping`)).text()).toBe('pong');
  expect(logged).toEqual([]);
});
