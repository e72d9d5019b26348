import { brotliCompressSync, brotliDecompressSync, gunzipSync } from 'node:zlib';
import { createClient } from '@connectrpc/connect';
import { compressionBrotli, compressionGzip, createConnectTransport, createGrpcWebTransport } from '@connectrpc/connect-node';
import type { DescService } from '@bufbuild/protobuf';
import type { Application } from '@fw/core';
import { clientRegistry, connectApp, enveloped, frames } from './fixtures.js';

// Compression both ways, as the Connect and gRPC-Web specs negotiate it: gzip and br on unary
// calls (Content-Encoding / Accept-Encoding), and stream messages compressed one by one when the
// client sends Connect-Accept-Encoding or grpc-accept-encoding. In-process for the bytes, and
// through @connectrpc/connect-node's transports on a real socket for a client that decodes them.

const GET_BOOK = '/bookstore.v1.Catalog/GetBook';
const COUNTDOWN = '/bookstore.v1.Catalog/Countdown';

describe('Connect and gRPC-Web compression, in-process', () => {
  let app: Application;

  beforeAll(() => {
    // Every message compressed when the client accepts it: the threshold at 0.
    app = connectApp({ compressMinBytes: 0 });
  });

  afterAll(() => app.close());

  const post = (url: string, payload: string | Buffer, headers: Record<string, string> = {}) =>
    app.inject({ method: 'POST', url, body: payload, headers: { 'content-type': 'application/json', ...headers } });

  it('reads a br request and answers br to a client that accepts only br', async () => {
    const res = await post(GET_BOOK, brotliCompressSync('{"id":"b1"}'), { 'content-encoding': 'br', 'accept-encoding': 'br' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-encoding']).toBe('br');
    expect(JSON.parse(brotliDecompressSync(res.rawBody).toString())).toMatchObject({ book: { id: 'b1', title: 'Dune' } });
  });

  it('prefers gzip when both are accepted, and honours q=0', async () => {
    expect((await post(GET_BOOK, '{"id":"b1"}', { 'accept-encoding': 'br, gzip' })).headers['content-encoding']).toBe('gzip');
    expect((await post(GET_BOOK, '{"id":"b1"}', { 'accept-encoding': 'gzip;q=0, br' })).headers['content-encoding']).toBe('br');
    expect((await post(GET_BOOK, '{"id":"b1"}', { 'accept-encoding': 'gzip;q=0' })).headers['content-encoding']).toBeUndefined();
  });

  it('refuses a br bomb with resource_exhausted and corrupt br with invalid_argument', async () => {
    const bomb = brotliCompressSync(Buffer.concat([Buffer.from('{"id":"'), Buffer.alloc(20 * 1024 * 1024, 0x61), Buffer.from('"}')]));
    expect(bomb.length).toBeLessThan(64 * 1024);
    const res = await post(GET_BOOK, bomb, { 'content-encoding': 'br' });
    expect(res.json()).toMatchObject({ code: 'resource_exhausted' });
    const corrupt = await post(GET_BOOK, Buffer.from('not brotli'), { 'content-encoding': 'br' });
    expect(corrupt.json()).toMatchObject({ code: 'invalid_argument' });
  });

  it('compresses each Connect stream message for Connect-Accept-Encoding, never the end of the stream', async () => {
    const res = await post(COUNTDOWN, enveloped(Buffer.from('{"from":2}')), { 'content-type': 'application/connect+json', 'connect-accept-encoding': 'gzip' });
    expect(res.headers['connect-content-encoding']).toBe('gzip');
    const sent = frames(res.rawBody);
    expect(sent.map((f) => f.flags)).toEqual([1, 1, 2]);
    expect(sent.slice(0, 2).map((f) => JSON.parse(gunzipSync(f.payload).toString()) as unknown)).toEqual([{ count: { left: '2' } }, { count: { left: '1' } }]);
    expect(JSON.parse(sent[2]!.payload.toString())).toEqual({});
  });

  it('compresses gRPC-Web messages for grpc-accept-encoding, unary and streamed, never the trailers', async () => {
    const unary = await post(GET_BOOK, enveloped(Buffer.from([0x0a, 0x02, 0x62, 0x31])), { 'content-type': 'application/grpc-web+proto', 'grpc-accept-encoding': 'br' });
    expect(unary.headers['grpc-encoding']).toBe('br');
    const [data, trailers] = frames(unary.rawBody);
    expect(data!.flags).toBe(1);
    expect(brotliDecompressSync(data!.payload).includes(Buffer.from('Dune'))).toBe(true);
    expect(trailers!.flags).toBe(0x80);
    const stream = await post(COUNTDOWN, enveloped(Buffer.from([0x08, 0x02])), { 'content-type': 'application/grpc-web+proto', 'grpc-accept-encoding': 'gzip' });
    expect(stream.headers['grpc-encoding']).toBe('gzip');
    expect(frames(stream.rawBody).map((f) => f.flags)).toEqual([1, 1, 0x80]);
  });

  it('answers identity to a client that names no compression', async () => {
    const res = await post(COUNTDOWN, enveloped(Buffer.from('{"from":1}')), { 'content-type': 'application/connect+json' });
    expect(res.headers['connect-content-encoding']).toBeUndefined();
    expect(frames(res.rawBody).map((f) => f.flags)).toEqual([0, 2]);
  });
});

describe('compressed streams and br for @connectrpc/connect-node clients (real socket)', () => {
  let app: Application;
  let baseUrl: string;
  let service: DescService;

  beforeAll(async () => {
    app = connectApp({ compressMinBytes: 0 });
    baseUrl = `http://127.0.0.1:${(await app.listen(0, '127.0.0.1')).port}`;
    service = (await clientRegistry()).getService('bookstore.v1.Catalog')!;
  });

  afterAll(() => app.close());

  type Untyped = Record<string, (request: object) => Promise<Record<string, unknown>> & AsyncIterable<Record<string, unknown>>>;

  it.each([
    ['Connect, JSON, br both ways', () => createConnectTransport({ baseUrl, httpVersion: '1.1', sendCompression: compressionBrotli, acceptCompression: [compressionBrotli], compressMinBytes: 0 })],
    ['Connect, binary, gzip both ways', () => createConnectTransport({ baseUrl, httpVersion: '1.1', useBinaryFormat: true, sendCompression: compressionGzip, acceptCompression: [compressionGzip], compressMinBytes: 0 })],
    ['gRPC-Web, gzip both ways', () => createGrpcWebTransport({ baseUrl, httpVersion: '1.1', sendCompression: compressionGzip, acceptCompression: [compressionGzip], compressMinBytes: 0 })],
  ])('%s: a unary call and a server stream decode', async (_name, transport) => {
    const client = createClient(service, transport()) as unknown as Untyped;
    const book = await client.getBook!({ id: 'b1' });
    expect(book).toMatchObject({ book: { id: 'b1', title: 'Dune' } });
    const left: unknown[] = [];
    for await (const message of client.countdown!({ from: 3 })) left.push((message as { count: { left: bigint } }).count.left);
    expect(left).toEqual([3n, 2n, 1n]);
  });
});
