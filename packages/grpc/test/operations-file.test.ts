// An operation with a file input, on real sockets: uploaded as multipart/form-data over REST and
// sent as bytes over gRPC (grpc-js client of the generated proto); the handler sees the same File.
import { createHash } from 'node:crypto';
import type * as grpc from '@grpc/grpc-js';
import { defineOperation } from '@fw/validate';
import { z } from 'zod';
import type { GeneratedProto } from '../src/index.js';
import { generatedClient, startOperations, type StartedOperations } from './operations-helpers.js';

const seen: Array<{ title: string; file: [boolean, number, string]; pages: number }> = [];

const uploadDocument = defineOperation({
  name: 'uploadDocument',
  input: z.object({
    title: z.string(),
    file: z.file().max(64 * 1024),
    pages: z.array(z.file()).optional(),
  }),
  output: z.object({ title: z.string(), size: z.number().int(), sha256: z.string() }),
  rest: { method: 'POST', path: '/documents' },
  grpc: { service: 'docs.Documents' },
  handler: async ({ title, file, pages }) => {
    const bytes = Buffer.from(await file.arrayBuffer());
    seen.push({ title, file: [file instanceof File, file.size, createHash('sha256').update(bytes).digest('hex')], pages: pages?.length ?? 0 });
    return { title, size: file.size, sha256: createHash('sha256').update(bytes).digest('hex') };
  },
});

let server: StartedOperations;
let files: GeneratedProto[];
let client: grpc.Client;

beforeAll(async () => {
  server = await startOperations([uploadDocument]);
  files = server.grpc.generateProtos();
  client = generatedClient(files, 'docs.Documents', server.target);
});

afterAll(async () => {
  client?.close();
  await server?.app.close();
});

const content = Buffer.from(Array.from({ length: 5000 }, (_, i) => i % 251));
const digest = createHash('sha256').update(content).digest('hex');

function callGrpc(request: Record<string, unknown>): Promise<{ err: grpc.ServiceError | null; res: unknown }> {
  return new Promise((resolve) => {
    (client as unknown as Record<string, (req: unknown, cb: (err: grpc.ServiceError | null, res: unknown) => void) => void>).UploadDocument!(request, (err, res) =>
      resolve({ err, res }),
    );
  });
}

it('generates the file field as bytes (a list of files as repeated bytes)', () => {
  const proto = files.find((f) => f.file.startsWith('docs/'))!.text;
  expect(proto).toMatch(/bytes file = \d+;/);
  expect(proto).toMatch(/repeated bytes pages = \d+;/);
});

it('gives the handler the same File from a multipart upload over REST and from bytes over gRPC', async () => {
  seen.length = 0;
  const form = new FormData();
  form.append('title', 'Report');
  form.append('file', new Blob([content], { type: 'application/pdf' }), 'report.pdf');
  form.append('pages', new Blob([Buffer.from('p1')]), 'p1.png');
  const res = await fetch(`${server.url}/documents`, { method: 'POST', body: form });
  expect(res.status).toBe(200);
  expect(await res.json()).toEqual({ title: 'Report', size: content.length, sha256: digest });

  const { err, res: reply } = await callGrpc({ title: 'Report', file: content, pages: [Buffer.from('p1')] });
  expect(err).toBeNull();
  expect(reply).toEqual({ title: 'Report', size: content.length, sha256: digest });

  expect(seen).toEqual([
    { title: 'Report', file: [true, content.length, digest], pages: 1 },
    { title: 'Report', file: [true, content.length, digest], pages: 1 },
  ]);
});

it("checks the schema's z.file().max() on both protocols: a 400 naming the field on REST, INVALID_ARGUMENT on gRPC", async () => {
  const big = Buffer.alloc(65 * 1024, 1);
  const form = new FormData();
  form.append('title', 'Big');
  form.append('file', new Blob([big]), 'big.bin');
  const res = await fetch(`${server.url}/documents`, { method: 'POST', body: form });
  expect(res.status).toBe(400);
  expect(JSON.stringify(await res.json())).toContain('body.file');
  const { err } = await callGrpc({ title: 'Big', file: big });
  expect(err?.code).toBe(3);
});

it('answers 415 on REST to a JSON body: a file input takes multipart/form-data only', async () => {
  const res = await fetch(`${server.url}/documents`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ title: 'x' }) });
  expect(res.status).toBe(415);
  expect(((await res.json()) as { message: string }).message).toBe('POST /documents takes a multipart form body (Content-Type: multipart/form-data), not application/json');
});
