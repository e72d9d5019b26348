import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { createClient as createSseClient } from 'graphql-sse';
import { createClient as createWsClient } from 'graphql-ws';
import WebSocket from 'ws';
import { z } from 'zod';
import { createApp, type App } from '@fw/app';
import { compress } from '@fw/app/middleware';
import { defineOperation } from '@fw/app/validate';

// compress() installed globally on an app that serves every protocol: REST answers and GraphQL
// results are compressed; server-sent events (REST and GraphQL), GraphQL over WebSocket, gRPC and
// Connect (which compress their own messages) go on working as without it.

const Item = z.object({ id: z.string(), name: z.string() }).meta({ id: 'CatalogItem' });
const ITEMS = Array.from({ length: 200 }, (_, i) => ({ id: `i${i}`, name: `item number ${i}` }));

const listItems = defineOperation({
  name: 'listItems',
  input: z.object({}),
  output: z.object({ items: z.array(Item) }),
  handler: () => ({ items: ITEMS }),
  rest: { method: 'GET', path: '/items' },
  graphql: { type: 'query' },
  grpc: { service: 'shop.v1.Catalog' },
});

const ticks = defineOperation({
  name: 'ticks',
  input: z.object({}),
  output: z.object({ n: z.number().int(), pad: z.string() }),
  stream: true,
  handler: async function* () {
    for (let n = 0; n < 3; n++) yield { n, pad: 'x'.repeat(2000) };
  },
  rest: { method: 'GET', path: '/ticks' },
  graphql: { type: 'subscription' },
  grpc: { service: 'shop.v1.Catalog' },
});

/** A raw GET or POST: the status, headers and the body bytes as they came off the wire. */
function raw(url: string, headers: Record<string, string>, body?: string): Promise<{ status: number; headers: Record<string, unknown>; bytes: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: body === undefined ? 'GET' : 'POST', headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, bytes: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('compress() on an app serving REST, GraphQL, gRPC and Connect', () => {
  let app: App;
  let base: string;
  let protoDir: string;
  let grpcClient: grpc.Client;

  beforeAll(async () => {
    app = createApp({ onLog: () => undefined, shutdown: false, protocols: { graphql: {}, grpc: { port: 0, host: '127.0.0.1' }, connect: true } });
    app.use(compress());
    app.operation(listItems).operation(ticks);
    protoDir = await mkdtemp(join(tmpdir(), 'fw-compress-'));
    const files = app.getProtocolManager()!.grpc!.generateProtos();
    for (const { file, text } of files) await writeFile(join(protoDir, file.replace(/\//g, '_')), text);
    base = (await app.listen(0, '127.0.0.1')).url;
    const file = files.find((f) => f.text.includes('service Catalog'))!;
    const definition = protoLoader.loadSync(join(protoDir, file.file.replace(/\//g, '_')), { keepCase: false, longs: Number, enums: String, defaults: true });
    const shop = grpc.loadPackageDefinition(definition)['shop'] as unknown as { v1: { Catalog: grpc.ServiceClientConstructor } };
    grpcClient = new shop.v1.Catalog(app.getProtocolManager()!.getGrpcAddress()!.target, grpc.credentials.createInsecure());
  });

  afterAll(async () => {
    grpcClient?.close();
    await app?.close();
    if (protoDir) await rm(protoDir, { recursive: true, force: true });
  });

  it('compresses a REST answer', async () => {
    const res = await fetch(`${base}/items`, { headers: { 'accept-encoding': 'br' } });
    expect(res.headers.get('content-encoding')).toBe('br');
    expect(await res.json()).toEqual({ items: ITEMS });
  });

  it('compresses a GraphQL result', async () => {
    const body = JSON.stringify({ query: '{ listItems { items { id name } } }' });
    const res = await raw(`${base}/graphql`, { 'content-type': 'application/json', 'accept-encoding': 'gzip' }, body);
    expect(res.status).toBe(200);
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(gunzipSync(res.bytes).toString())).toEqual({ data: { listItems: { items: ITEMS } } });
  });

  it('leaves REST server-sent events alone', async () => {
    const res = await raw(`${base}/ticks`, { accept: 'text/event-stream', 'accept-encoding': 'gzip, br' });
    expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.bytes.toString().match(/^data: /gm)).toHaveLength(3);
  });

  it('leaves GraphQL over SSE alone, and graphql-sse reads it', async () => {
    const body = JSON.stringify({ query: 'subscription { ticks { n } }' });
    const res = await raw(`${base}/graphql`, { 'content-type': 'application/json', accept: 'text/event-stream', 'accept-encoding': 'gzip, br' }, body);
    expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(res.headers['content-encoding']).not.toMatch(/gzip|br/);
    const client = createSseClient({ url: `${base}/graphql`, retryAttempts: 0 });
    const seen: unknown[] = [];
    for await (const result of client.iterate({ query: 'subscription { ticks { n } }' })) seen.push(result.data);
    client.dispose();
    expect(seen).toEqual([0, 1, 2].map((n) => ({ ticks: { n } })));
  });

  it('leaves GraphQL over WebSocket alone, and graphql-ws reads it', async () => {
    const client = createWsClient({ url: `${base.replace(/^http/, 'ws')}/graphql`, webSocketImpl: WebSocket, retryAttempts: 0 });
    const seen: unknown[] = [];
    for await (const result of client.iterate({ query: 'subscription { ticks { n } }' })) seen.push(result.data);
    await client.dispose();
    expect(seen).toEqual([0, 1, 2].map((n) => ({ ticks: { n } })));
  });

  it('leaves Connect answers to Connect: its own coding once, never a second one', async () => {
    const url = `${base}/shop.v1.Catalog/ListItems`;
    const json = { 'content-type': 'application/json' };
    // Connect compresses itself (gzip, else br): a client that accepts only br gets Connect's br, once.
    const br = await raw(url, { ...json, 'accept-encoding': 'br' }, '{}');
    expect(br.status).toBe(200);
    expect(br.headers['content-encoding']).toBe('br');
    expect(JSON.parse(brotliDecompressSync(br.bytes).toString())).toEqual({ items: ITEMS });
    const gzip = await raw(url, { ...json, 'accept-encoding': 'gzip, br' }, '{}');
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(gunzipSync(gzip.bytes).toString())).toEqual({ items: ITEMS });
    // A Connect server stream: enveloped messages, never compressed around.
    const stream = await raw(`${base}/shop.v1.Catalog/Ticks`, { 'content-type': 'application/connect+json', 'accept-encoding': 'gzip, br' }, Buffer.concat([Buffer.from([0, 0, 0, 0, 2]), Buffer.from('{}')]).toString('latin1'));
    expect(stream.status).toBe(200);
    expect(stream.headers['content-encoding']).toBeUndefined();
    expect(stream.bytes.toString().includes('"n":"2"')).toBe(true);
  });

  it('leaves gRPC alone', async () => {
    const reply = await new Promise<{ items: unknown[] }>((resolve, reject) =>
      (grpcClient as unknown as Record<string, (r: object, cb: (err: Error | null, res: { items: unknown[] }) => void) => void>)['ListItems']!.call(grpcClient, {}, (err, res) => (err ? reject(err) : resolve(res))),
    );
    expect(reply.items).toEqual(ITEMS);
  });
});
