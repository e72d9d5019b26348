import { Code, ConnectError, createClient, type Transport } from '@connectrpc/connect';
import { compressionGzip, createConnectTransport, createGrpcWebTransport } from '@connectrpc/connect-node';
import type { DescService } from '@bufbuild/protobuf';
import type { Application } from '@fw/core';
import { calls, clientRegistry, connectApp } from './fixtures.js';

// Clients nobody on the team wrote: @connectrpc/connect-node's Connect transport (JSON and
// binary, GET for calls without side effects) and its gRPC-Web transport, over HTTP/1.1 to a real
// socket, with descriptors `buf build` made from the .proto fw emits.

type Untyped = Record<string, (request: object, options?: { headers?: Record<string, string>; timeoutMs?: number }) => Promise<Record<string, unknown>>>;
type Streaming = Record<string, (request: object, options?: { headers?: Record<string, string> }) => AsyncIterable<Record<string, unknown>>>;

jest.setTimeout(60_000);

async function connectError(promise: Promise<unknown>): Promise<ConnectError> {
  try {
    await promise;
  } catch (err) {
    return ConnectError.from(err);
  }
  throw new Error('expected the call to fail');
}

describe('Connect and gRPC-Web for @connectrpc/connect-node clients', () => {
  let app: Application;
  let baseUrl: string;
  let service: DescService;

  const methods: string[] = [];

  beforeAll(async () => {
    app = connectApp();
    app.use(async (ctx, next) => {
      methods.push(ctx.method);
      await next();
    });
    const info = await app.listen(0, '127.0.0.1');
    baseUrl = `http://127.0.0.1:${info.port}`;
    const found = (await clientRegistry()).getService('bookstore.v1.Catalog');
    if (found === undefined) throw new Error('bookstore.v1.Catalog is not in the buf image');
    service = found;
  });

  afterAll(async () => {
    await app.close();
  });

  const transports: Array<[string, () => Transport]> = [
    ['Connect, JSON', () => createConnectTransport({ baseUrl, httpVersion: '1.1' })],
    ['Connect, binary', () => createConnectTransport({ baseUrl, httpVersion: '1.1', useBinaryFormat: true })],
    ['Connect, binary, gzip', () => createConnectTransport({ baseUrl, httpVersion: '1.1', useBinaryFormat: true, sendCompression: compressionGzip, compressMinBytes: 0 })],
    ['gRPC-Web, binary', () => createGrpcWebTransport({ baseUrl, httpVersion: '1.1' })],
    ['gRPC-Web, JSON', () => createGrpcWebTransport({ baseUrl, httpVersion: '1.1', useBinaryFormat: false })],
  ];

  describe.each(transports)('over %s', (_name, transport) => {
    let client: Untyped;
    let streaming: Streaming;

    beforeAll(() => {
      const made: unknown = createClient(service, transport());
      client = made as Untyped;
      streaming = made as Streaming;
    });

    it('calls a unary operation; enums and 64-bit integers round-trip', async () => {
      const { book } = await client.getBook!({ id: 'b1' });
      expect(book).toMatchObject({ id: 'b1', title: 'Dune', priceCents: 1299n, genre: 2 });
    });

    it('answers a missing thing with not_found', async () => {
      const error = await connectError(client.getBook!({ id: 'missing' }));
      expect(error.code).toBe(Code.NotFound);
      expect(error.rawMessage).toBe('No book missing');
    });

    it('masks a server fault as internal', async () => {
      const error = await connectError(client.getBook!({ id: 'broken' }));
      expect(error.code).toBe(Code.Internal);
      expect(error.rawMessage).not.toContain('fire');
    });

    it('refuses without credentials (unauthenticated) and without the role (permission_denied)', async () => {
      const input = { title: 'Emma', priceCents: 500n, genre: 1 };
      expect((await connectError(client.addBook!(input))).code).toBe(Code.Unauthenticated);
      expect((await connectError(client.addBook!(input, { headers: { authorization: 'Bearer guest' } }))).code).toBe(Code.PermissionDenied);
      const { book } = await client.addBook!(input, { headers: { authorization: 'Bearer admin' } });
      expect(book).toMatchObject({ id: 'b2', title: 'Emma', priceCents: 500n, genre: 1 });
    });

    it('refuses invalid input with invalid_argument and the fields as a google.rpc.BadRequest', async () => {
      const error = await connectError(client.addBook!({ title: 'E', priceCents: -1n, genre: 1 }, { headers: { authorization: 'Bearer admin' } }));
      expect(error.code).toBe(Code.InvalidArgument);
      const badRequest = error.details.find((detail) => 'type' in detail && detail.type === 'google.rpc.BadRequest') as { debug?: { fieldViolations?: Array<{ field: string }> } } | undefined;
      expect(badRequest).toBeDefined();
      const fields = (badRequest?.debug?.fieldViolations ?? []).map((v) => v.field);
      // gRPC-Web carries details in grpc-status-details-bin, decoded by the client without a debug form.
      if (fields.length > 0) expect(fields).toEqual(expect.arrayContaining([expect.stringContaining('title'), expect.stringContaining('priceCents')]));
    });

    it('serves a server stream, ended with the mapped code when the source fails', async () => {
      const lefts: unknown[] = [];
      for await (const reply of streaming.countdown!({ from: 3 })) lefts.push((reply.count as { left: number }).left);
      expect(lefts).toEqual([3n, 2n, 1n]);
      const seen: unknown[] = [];
      const failing = (async () => {
        for await (const reply of streaming.countdown!({ from: 2, fail: true })) seen.push((reply.count as { left: number }).left);
      })();
      const error = await connectError(failing);
      expect(seen).toEqual([2n, 1n]);
      expect(error.code).toBe(Code.FailedPrecondition);
      expect(error.rawMessage).toBe('Out of stock');
    });

    it('ends a call past its deadline with deadline_exceeded, and the handler sees ctx.signal abort', async () => {
      const before = calls.slowAborted;
      const error = await connectError(client.slow!({}, { timeoutMs: 300 }));
      expect(error.code).toBe(Code.DeadlineExceeded);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(calls.slowAborted).toBeGreaterThan(before);
    });
  });

  it('calls an operation without side effects with Connect GET', async () => {
    const client = createClient(service, createConnectTransport({ baseUrl, httpVersion: '1.1', useHttpGet: true })) as unknown as Untyped;
    const before = calls.getBook;
    methods.length = 0;
    expect((await client.getBook!({ id: 'b7' })).book).toMatchObject({ id: 'b7', genre: 2 });
    expect(calls.getBook).toBe(before + 1);
    // The emitted proto marks GetBook NO_SIDE_EFFECTS, so the client used GET.
    expect(methods).toEqual(['GET']);
    // AddBook has side effects: the same client POSTs it.
    methods.length = 0;
    await client.addBook!({ title: 'Emma', priceCents: 1n, genre: 1 }, { headers: { authorization: 'Bearer admin' } });
    expect(methods).toEqual(['POST']);
  });
});
