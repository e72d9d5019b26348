import { createFileRegistry, fromBinary, type FileRegistry } from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema, type FileDescriptorProto } from '@bufbuild/protobuf/wkt';
import { Code, ConnectError, createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { fromJSON } from '@grpc/proto-loader';
import protobuf from 'protobufjs';
import { HTTPError, type Middleware, type RequestContext } from '@fw/core';
import type { GeneratedProto } from '../src/index.js';
import { fixFileDescriptors } from '../src/internal/descriptors.js';
import { t } from './fixtures/operation.js';
import { streamOperation } from './fixtures/stream-operation.js';
import { startOperations, type StartedOperations } from './operations-helpers.js';

/** Descriptors of generated files for a client that is not grpc-js. */
function registryOf(files: readonly GeneratedProto[]): FileRegistry {
  const raw: Uint8Array[] = [];
  for (const file of files) {
    const definition = fromJSON(protobuf.parse(file.text, new protobuf.Root(), { keepCase: true }).root.toJSON(), { keepCase: true });
    const message = Object.values(definition).find((entry) => 'fileDescriptorProtos' in entry) as { fileDescriptorProtos: Uint8Array[] };
    raw.push(...message.fileDescriptorProtos);
  }
  const parsed = fixFileDescriptors(raw).map((bytes) => fromBinary(FileDescriptorProtoSchema, bytes));
  const byName = new Map<string, FileDescriptorProto>(parsed.map((file) => [file.name, file]));
  return createFileRegistry(...parsed.map((file) => createFileRegistry(file, (name) => byName.get(name))));
}

const requireToken: Middleware<RequestContext> = async (ctx, next) => {
  if (ctx.headers.authorization !== 'Bearer admin') throw new HTTPError(401, 'Authentication required');
  await next();
};

let finallyRan = 0;

const countdown = streamOperation<{ from: number }>({
  name: 'countdown',
  input: t.object({ from: t.int32() }),
  output: t.object({ left: t.int32() }, 'Count'),
  middleware: [requireToken],
  grpc: { service: 'clock.Countdown' },
  async *handler(input, ctx) {
    try {
      for (let left = input.from; left > 0; left--) yield { left };
      await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
    } finally {
      finallyRan++;
    }
  },
});

type StreamClient = Record<string, (request: object, options?: { headers?: Record<string, string>; signal?: AbortSignal }) => AsyncIterable<Record<string, unknown>>>;

describe('streaming operations for a Connect (@connectrpc/connect-node gRPC transport) client', () => {
  let server: StartedOperations;
  let client: StreamClient;

  beforeAll(async () => {
    server = await startOperations([countdown]);
    const service = registryOf(server.grpc.generateProtos()).getService('clock.Countdown');
    if (service === undefined) throw new Error('clock.Countdown is not in the generated descriptors');
    client = createClient(service, createGrpcTransport({ baseUrl: `http://${server.target}` }));
  });

  afterAll(async () => {
    await server.app.close();
  });

  it("reads the events, and its abort runs the handler's finally", async () => {
    const controller = new AbortController();
    const seen: number[] = [];
    const reading = (async () => {
      for await (const message of client.countdown!({ from: 3 }, { headers: { authorization: 'Bearer admin' }, signal: controller.signal })) {
        seen.push((message.count as { left: number }).left);
        if (seen.length === 3) controller.abort();
      }
    })();
    const error = await reading.then(
      () => undefined,
      (err: unknown) => ConnectError.from(err),
    );
    expect(seen).toEqual([3, 2, 1]);
    expect(error?.code).toBe(Code.Canceled);
    const deadline = Date.now() + 2000;
    while (finallyRan === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(finallyRan).toBe(1);
  });

  it('gets the refusal of the middleware as a status before any message', async () => {
    const seen: unknown[] = [];
    const error = await (async () => {
      for await (const message of client.countdown!({ from: 3 })) seen.push(message);
    })().then(
      () => undefined,
      (err: unknown) => ConnectError.from(err),
    );
    expect(seen).toEqual([]);
    expect(error?.code).toBe(Code.Unauthenticated);
    expect(error?.rawMessage).toBe('Authentication required');
  });
});
