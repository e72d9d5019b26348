import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Application, type ApplicationConfig } from './application.js';
import type { Context } from './context.js';
import { sanitizeFilename } from './internal/multipart.js';
import { MULTIPART_DEFAULTS, resolveMultipart, type MultipartConfig, type SavedFile } from './multipart.js';

/** An application whose logged errors are collected instead of printed. */
function createApp(config: ApplicationConfig = {}): { app: Application; logged: unknown[] } {
  const logged: unknown[] = [];
  const app = new Application({ onLog: (message, error) => logged.push(error ?? message), ...config });
  return { app, logged };
}

/** A form as a browser sends it: the multipart bytes and their Content-Type (with the boundary), made by the web `Request`. */
async function encode(form: FormData): Promise<{ body: Buffer; type: string }> {
  const request = new Request('http://localhost/', { method: 'POST', body: form });
  return { body: Buffer.from(await request.arrayBuffer()), type: request.headers.get('content-type')! };
}

async function post(app: Application, form: FormData, url = '/upload') {
  const { body, type } = await encode(form);
  return app.inject({ method: 'POST', url, headers: { 'content-type': type }, body });
}

/** A form of the fields given, then the files given (name → content). */
function formOf(fields: Record<string, string>, files: Record<string, { name: string; content: string | Buffer; type?: string }> = {}): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  for (const [name, file] of Object.entries(files)) form.append(name, new Blob([file.content], { type: file.type ?? 'text/plain' }), file.name);
  return form;
}

/** A route that lists every part, reading each file's content. */
function listParts(app: Application, options?: MultipartConfig): void {
  app.post('/upload', async (ctx: Context) => {
    const parts: unknown[] = [];
    for await (const part of ctx.multipart(options)) {
      if (part.type === 'field') parts.push({ field: part.fieldname, value: part.value });
      else {
        const chunks: Buffer[] = [];
        for await (const chunk of part.stream) chunks.push(chunk as Buffer);
        parts.push({ file: part.fieldname, filename: part.filename, mimeType: part.mimeType, content: Buffer.concat(chunks).toString() });
      }
    }
    ctx.json(parts);
  });
}

/** Waits until `dir` is empty (files are removed asynchronously once the response closes). */
async function emptied(path: string): Promise<string[]> {
  for (let i = 0; i < 100; i++) {
    const left = await readdir(path);
    if (left.length === 0) return left;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return readdir(path);
}

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fw-multipart-test-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('ctx.multipart()', () => {
  it('yields the fields and files in order, each file with its name, type and content', async () => {
    const { app } = createApp();
    listParts(app);
    const form = formOf({ title: 'Holiday', tag: 'sea' }, { photo: { name: 'beach.txt', content: 'sand and sun' } });
    form.append('tag', 'sun');
    const res = await post(app, form);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([
      { field: 'title', value: 'Holiday' },
      { field: 'tag', value: 'sea' },
      { file: 'photo', filename: 'beach.txt', mimeType: 'text/plain', content: 'sand and sun' },
      { field: 'tag', value: 'sun' },
    ]);
  });

  it('skips a file the handler did not read and goes on with the next part', async () => {
    const { app } = createApp();
    app.post('/upload', async (ctx: Context) => {
      const names: string[] = [];
      for await (const part of ctx.multipart()) names.push(part.fieldname);
      ctx.json(names);
    });
    const res = await post(app, formOf({ a: '1' }, { f1: { name: 'one', content: 'x'.repeat(100_000) }, f2: { name: 'two', content: 'y' } }));
    expect(res.json()).toEqual(['a', 'f1', 'f2']);
  });

  it('reports only the last path segment of a file name, without control characters', async () => {
    expect(sanitizeFilename('../../etc/passwd')).toBe('passwd');
    expect(sanitizeFilename('C:\\Users\\me\\report.pdf')).toBe('report.pdf');
    expect(sanitizeFilename('a\u0000b.txt')).toBe('ab.txt');
    expect(sanitizeFilename('..')).toBe('');
    expect(sanitizeFilename(undefined)).toBe('');
    const { app } = createApp();
    listParts(app);
    const { body, type } = await encode(formOf({}, { doc: { name: 'PLACEHOLDER', content: 'secret' } }));
    // A file name the browser would not send: a path, with a NUL in it (percent-encoded, RFC 5987).
    const raw = Buffer.from(body.toString('latin1').replace('filename="PLACEHOLDER"', "filename*=UTF-8''..%2F..%2Fx%00y.txt"), 'latin1');
    const res = await app.inject({ method: 'POST', url: '/upload', headers: { 'content-type': type }, body: raw });
    expect(res.json()).toEqual([{ file: 'doc', filename: 'xy.txt', mimeType: 'text/plain', content: 'secret' }]);
  });

  it('keeps UTF-8 file names', async () => {
    const { app } = createApp();
    listParts(app);
    const res = await post(app, formOf({}, { doc: { name: 'résumé – ünïcode.txt', content: 'ok' } }));
    expect(res.json<Array<{ filename: string }>>()[0]!.filename).toBe('résumé – ünïcode.txt');
  });

  it('answers 415 for a body that is not multipart, and 400 for a multipart type without a boundary', async () => {
    const { app } = createApp();
    listParts(app);
    const json = await app.inject({ method: 'POST', url: '/upload', body: { a: 1 } });
    expect(json.statusCode).toBe(415);
    const noBoundary = await app.inject({ method: 'POST', url: '/upload', headers: { 'content-type': 'multipart/form-data' }, body: 'x' });
    expect(noBoundary.statusCode).toBe(400);
    expect(noBoundary.json<{ message: string }>().message).toMatch(/^Malformed multipart\/form-data body/);
  });

  it('answers 400 for a body cut before its closing boundary', async () => {
    const { app, logged } = createApp();
    listParts(app);
    const { body, type } = await encode(formOf({ a: '1' }, { f: { name: 'f.txt', content: 'hello world' } }));
    const res = await app.inject({ method: 'POST', url: '/upload', headers: { 'content-type': type }, body: body.subarray(0, body.length - 30) });
    expect(res.statusCode).toBe(400);
    expect(res.json<{ message: string }>().message).toMatch(/Malformed multipart\/form-data body: Unexpected end of (form|file)/);
    expect(logged).toEqual([]);
  });

  it('leaves a multipart body unread on a route that does not ask for it: ctx.body stays undefined', async () => {
    const { app } = createApp();
    app.post('/plain', (ctx) => ctx.json({ body: ctx.body === undefined ? '<undefined>' : ctx.body }));
    const res = await post(app, formOf({ a: '1' }), '/plain');
    expect(res.json()).toEqual({ body: '<undefined>' });
  });
});

describe('multipart limits', () => {
  const message = (res: { json<T>(): T }): string => res.json<{ message: string }>().message;

  it('answers 413 naming multipart.fileSize for a file one byte over, and takes one of exactly the limit', async () => {
    const { app } = createApp({ multipart: { fileSize: 1000 } });
    listParts(app);
    const exact = await post(app, formOf({}, { f: { name: 'a.bin', content: Buffer.alloc(1000, 1), type: 'application/octet-stream' } }));
    expect(exact.statusCode).toBe(200);
    const over = await post(app, formOf({}, { f: { name: 'a.bin', content: Buffer.alloc(1001, 1), type: 'application/octet-stream' } }));
    expect(over.statusCode).toBe(413);
    expect(message(over)).toBe('File "a.bin" larger than multipart.fileSize (1000 bytes)');
  });

  it('answers 413 naming multipart.files, multipart.fields, multipart.fieldSize and multipart.parts', async () => {
    const { app } = createApp({ multipart: { files: 1, fields: 2, fieldSize: 5 } });
    listParts(app);
    const files = await post(app, formOf({}, { a: { name: 'a', content: '1' }, b: { name: 'b', content: '2' } }));
    expect([files.statusCode, message(files)]).toEqual([413, 'More files than multipart.files (1)']);
    const fields = await post(app, formOf({ a: '1', b: '2', c: '3' }));
    expect([fields.statusCode, message(fields)]).toEqual([413, 'More fields than multipart.fields (2)']);
    const fieldSize = await post(app, formOf({ a: '123456' }));
    expect([fieldSize.statusCode, message(fieldSize)]).toEqual([413, 'Field "a" larger than multipart.fieldSize (5 bytes)']);
    expect((await post(app, formOf({ a: '12345' }))).statusCode).toBe(200);
    const { app: tight } = createApp({ multipart: { parts: 2 } });
    listParts(tight);
    const parts = await post(tight, formOf({ a: '1', b: '2', c: '3' }));
    expect([parts.statusCode, message(parts)]).toEqual([413, 'More parts than multipart.parts (2)']);
  });

  it('answers 413 naming multipart.totalSize, at once when Content-Length says so, with Connection: close', async () => {
    const { app } = createApp({ multipart: { totalSize: 500 } });
    listParts(app);
    const res = await post(app, formOf({ a: 'x'.repeat(600) }));
    expect([res.statusCode, message(res)]).toEqual([413, 'Multipart body larger than multipart.totalSize (500 bytes)']);
    expect(res.headers.connection).toBe('close');
    const { body, type } = await encode(formOf({ a: 'x'.repeat(600) }));
    const chunked = await app.inject({ method: 'POST', url: '/upload', headers: { 'content-type': type, 'transfer-encoding': 'chunked' }, body });
    expect([chunked.statusCode, message(chunked)]).toEqual([413, 'Multipart body larger than multipart.totalSize (500 bytes)']);
  });

  it('takes per-call limits over the app limits', async () => {
    const { app } = createApp({ multipart: { fileSize: 10 } });
    listParts(app, { fileSize: 100 });
    expect((await post(app, formOf({}, { f: { name: 'f', content: 'x'.repeat(50) } }))).statusCode).toBe(200);
    expect((await post(app, formOf({}, { f: { name: 'f', content: 'x'.repeat(150) } }))).statusCode).toBe(413);
  });

  it('has documented defaults, and refuses an unknown option or a limit that is not a positive integer', () => {
    expect(MULTIPART_DEFAULTS).toEqual({ fileSize: 1_048_576, files: 10, fields: 1000, fieldSize: 1_048_576, parts: 1010, totalSize: 10_485_760, tmpDir: undefined });
    expect(resolveMultipart({ fields: 5, files: 2 }).parts).toBe(7);
    expect(() => new Application({ multipart: { fileSze: 1 } as MultipartConfig })).toThrow('multipart: unknown option "fileSze"; did you mean "fileSize"?');
    expect(() => new Application({ multipart: { files: 0 } })).toThrow('multipart.files must be a positive integer, got 0');
    expect(() => new Application({ multipart: { tmpDir: '' } })).toThrow('multipart.tmpDir must be a non-empty string');
  });
});

describe('ctx.formData()', () => {
  it('saves each file under a random name in tmpDir, gives the fields, and removes the files after the response', async () => {
    const { app } = createApp({ multipart: { tmpDir: dir } });
    let seen: { files: readonly SavedFile[]; contents: string[]; existed: boolean[] } | undefined;
    app.post('/upload', async (ctx: Context) => {
      const { fields, files } = await ctx.formData();
      seen = { files, contents: files.map((f) => readFileSync(f.path, 'utf8')), existed: files.map((f) => existsSync(f.path)) };
      ctx.json({ fields: { ...fields }, files: files.map(({ fieldname, filename, mimeType, size }) => ({ fieldname, filename, mimeType, size })) });
    });
    const form = formOf({ title: 't', tag: 'a' }, { doc: { name: '../evil.txt', content: 'hello' }, img: { name: 'p.png', content: Buffer.from([1, 2, 3]), type: 'image/png' } });
    form.append('tag', 'b');
    const res = await post(app, form);
    expect(res.json()).toEqual({
      fields: { title: 't', tag: ['a', 'b'] },
      files: [
        { fieldname: 'doc', filename: 'evil.txt', mimeType: 'text/plain', size: 5 },
        { fieldname: 'img', filename: 'p.png', mimeType: 'image/png', size: 3 },
      ],
    });
    expect(seen!.contents[0]).toBe('hello');
    expect(seen!.existed).toEqual([true, true]);
    for (const file of seen!.files) {
      expect(file.path.startsWith(join(dir, 'fw-upload-'))).toBe(true);
      expect(file.path).not.toContain('evil');
    }
    // Removed once the response closed.
    await expect(emptied(dir)).resolves.toEqual([]);
  });

  it('removes what it saved when a later part goes past a limit, and answers 413', async () => {
    const { app } = createApp({ multipart: { tmpDir: dir, fileSize: 10 } });
    app.post('/upload', async (ctx: Context) => ctx.json(await ctx.formData()));
    const res = await post(app, formOf({}, { a: { name: 'a', content: 'small' }, b: { name: 'b', content: 'x'.repeat(11) } }));
    expect(res.statusCode).toBe(413);
    expect(res.json<{ message: string }>().message).toBe('File "b" larger than multipart.fileSize (10 bytes)');
    await expect(emptied(dir)).resolves.toEqual([]);
  });
});
