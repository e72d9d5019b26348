import { Application } from '@fw/core';
import { z } from 'zod';
import { defineOperation } from '../src/index.js';

/** The members protocols read, without the JSON Schema constraints and annotations documents use (tested in operation-shape-docs.test.ts). */
const DOC_KEYS = new Set(['minLength', 'maxLength', 'patterns', 'format', 'contentEncoding', 'mime', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'minItems', 'maxItems', 'title', 'examples', 'annotations', 'strict']);
function bare(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(bare);
  if (value === null || typeof value !== 'object' || !Object.isFrozen(value)) return value;
  return Object.fromEntries(Object.entries(value).filter(([key]) => !DOC_KEYS.has(key)).map(([key, v]) => [key, key === 'source' ? v : bare(v)]));
}


// A file input field (z.file()): its shape, the bindings it allows, and a multipart upload over REST.

const Upload = z.object({ title: z.string(), file: z.file().max(10).mime(['text/plain']), extra: z.array(z.file()).optional() });
const Output = z.object({ title: z.string(), size: z.number(), text: z.string() });

function define(change: Record<string, unknown>): unknown {
  return defineOperation({ name: 'upload', input: Upload, output: Output, handler: () => ({ title: '', size: 0, text: '' }), ...change });
}

async function multipart(app: Application, form: FormData) {
  const request = new Request('http://localhost/', { method: 'POST', body: form });
  return app.inject({ method: 'POST', url: '/upload', headers: { 'content-type': request.headers.get('content-type')! }, body: Buffer.from(await request.arrayBuffer()) });
}

describe('a z.file() input field', () => {
  it('is a file scalar in the input shape, a list of them for z.array(z.file())', () => {
    const op = define({ rest: { method: 'POST', path: '/upload' } }) as { input: { fields: Array<{ name: string; type: unknown }> } };
    expect(bare(op.input.fields.map((f) => [f.name, f.type]))).toEqual([
      ['title', { kind: 'scalar', scalar: 'string' }],
      ['file', { kind: 'scalar', scalar: 'file' }],
      ['extra', { kind: 'list', of: { kind: 'scalar', scalar: 'file' } }],
    ]);
  });

  it('is refused on GraphQL, on a route that reads the query, with accepts that leave out multipart, and in an output', () => {
    expect(() => define({ graphql: { type: 'mutation' } })).toThrow(
      'defineOperation("upload"): input.file: a file (z.file()) cannot be served on GraphQL, which has no upload type: leave graphql out (REST takes it as multipart/form-data, gRPC as bytes)',
    );
    expect(() => define({ rest: { method: 'GET', path: '/upload' } })).toThrow('input.file: a file is uploaded in a body (multipart/form-data): use POST, PUT or PATCH, not GET');
    expect(() => define({ rest: { method: 'POST', path: '/upload', accepts: ['json'] } })).toThrow('input.file: a file is uploaded as multipart/form-data: add "multipart" to rest.accepts');
    expect(() => defineOperation({ name: 'download', input: z.object({}), output: z.object({ file: z.file() }), handler: () => ({ file: new File([], 'x') }) })).toThrow(
      'defineOperation("download"): output.file: z.file() is for inputs only',
    );
  });

  it('takes a multipart upload over REST and checks z.file().max() and .mime() as validation errors', async () => {
    const app = new Application();
    app.operation(
      defineOperation({
        name: 'upload',
        input: Upload,
        output: Output,
        rest: { method: 'POST', path: '/upload' },
        handler: async ({ title, file }) => ({ title, size: file.size, text: await file.text() }),
      }),
    );
    const ok = new FormData();
    ok.append('title', 'Notes');
    ok.append('file', new Blob(['hello'], { type: 'text/plain' }), 'notes.txt');
    const res = await multipart(app, ok);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ title: 'Notes', size: 5, text: 'hello' });

    const wrong = new FormData();
    wrong.append('title', 'Image');
    wrong.append('file', new Blob(['0123456789AB'], { type: 'image/png' }), 'a.png');
    const refused = await multipart(app, wrong);
    expect(refused.statusCode).toBe(400);
    const fields = refused.json<{ details: { errors: Array<{ field: string; code: string }> } }>().details.errors.map((d) => [d.field, d.code]);
    expect(fields).toEqual([
      ['body.file', 'too_big'],
      ['body.file', 'invalid_value'],
    ]);
  });

  it('takes rest.multipart limits for the route', async () => {
    const app = new Application();
    app.operation(
      defineOperation({
        name: 'upload',
        input: z.object({ file: z.file() }),
        output: z.object({ size: z.number() }),
        rest: { method: 'POST', path: '/upload', multipart: { fileSize: 4 } },
        handler: ({ file }) => ({ size: file.size }),
      }),
    );
    const form = new FormData();
    form.append('file', new Blob(['12345']), 'five.bin');
    const res = await multipart(app, form);
    expect([res.statusCode, res.json<{ message: string }>().message]).toEqual([413, 'File "five.bin" larger than multipart.fileSize (4 bytes)']);
  });
});
