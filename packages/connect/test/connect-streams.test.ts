import { Code, ConnectError, createClient, type Transport } from '@connectrpc/connect';
import { createConnectTransport, createGrpcWebTransport } from '@connectrpc/connect-node';
import type { DescService } from '@bufbuild/protobuf';
import type { Application } from '@fw/core';
import { calls, clientRegistry, connectApp, OPERATIONS } from './fixtures.js';

// Connect and gRPC-Web server streams are sinks of core's one stream pump: the app's limits, a
// client that leaves and the app closing behave as on every other transport, seen by
// @connectrpc/connect-node clients over real sockets.

type Streaming = Record<string, (request: object, options?: { signal?: AbortSignal }) => AsyncIterable<Record<string, unknown>>>;

jest.setTimeout(60_000);

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 600 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 50));
  expect(check()).toBe(true);
}

describe.each([
  ['Connect', (baseUrl: string): Transport => createConnectTransport({ baseUrl, httpVersion: '1.1' })],
  ['gRPC-Web', (baseUrl: string): Transport => createGrpcWebTransport({ baseUrl, httpVersion: '1.1' })],
])('%s server streams and the stream pump', (_name, transport) => {
  let app: Application;
  let client: Streaming;
  let service: DescService;
  let baseUrl: string;

  beforeAll(async () => {
    service = (await clientRegistry()).getService('bookstore.v1.Catalog')!;
  });

  beforeEach(async () => {
    app = connectApp({}, OPERATIONS, { streams: { maxPerClient: 1 }, closeTimeout: 5000 });
    const info = await app.listen(0, '127.0.0.1');
    baseUrl = `http://127.0.0.1:${info.port}`;
    const made: unknown = createClient(service, transport(baseUrl));
    client = made as Streaming;
  });

  afterEach(async () => {
    await app.close();
  });

  /** Opens a ticker and waits for its first event; the rest of the stream is returned. */
  async function openTicker(signal?: AbortSignal): Promise<AsyncIterator<Record<string, unknown>>> {
    const iterator = client.ticker!({}, signal === undefined ? {} : { signal })[Symbol.asyncIterator]();
    const first = await iterator.next();
    expect(first.done).toBe(false);
    return iterator;
  }

  it('runs the handler’s finally when the client cancels, and gives its slot back', async () => {
    const before = calls.tickersFinished;
    const controller = new AbortController();
    const iterator = await openTicker(controller.signal);
    controller.abort();
    await iterator.next().catch(() => undefined);
    await until(() => calls.tickersFinished === before + 1);
    // The slot is free again: another stream of the same client opens.
    const again = new AbortController();
    await openTicker(again.signal);
    again.abort();
    await until(() => calls.tickersFinished === before + 2);
  });

  it('refuses a stream past streams.maxPerClient with resource_exhausted, before any event', async () => {
    const controller = new AbortController();
    await openTicker(controller.signal);
    let error: ConnectError | undefined;
    try {
      for await (const event of client.ticker!({})) throw new Error(`unexpected event ${JSON.stringify(event)}`);
    } catch (err) {
      error = ConnectError.from(err);
    }
    expect(error?.code).toBe(Code.ResourceExhausted);
    controller.abort();
  });

  it('ends an open stream with unavailable when the app closes', async () => {
    const iterator = await openTicker();
    const closing = app.close();
    let error: ConnectError | undefined;
    try {
      await iterator.next();
    } catch (err) {
      error = ConnectError.from(err);
    }
    await closing;
    expect(error?.code).toBe(Code.Unavailable);
  });
});
