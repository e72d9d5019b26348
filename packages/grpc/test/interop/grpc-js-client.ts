// An interop client on @grpc/grpc-js: each standard case's procedure and assertions as gRPC's
// interop-test-descriptions.md gives them, against grpc.testing.TestService at a target. Built from
// the interop .proto files, as a client in another program would be.
import { strict as assert } from 'node:assert';
import * as grpc from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { ECHO_INITIAL, ECHO_TRAILING, PROTO_DIR, TEST_PROTO } from './test-service.js';

/** The standard interop cases this suite runs, in the spec's order. */
export const CASES = [
  'empty_unary',
  'large_unary',
  'client_streaming',
  'server_streaming',
  'ping_pong',
  'empty_stream',
  'cancel_after_begin',
  'cancel_after_first_response',
  'timeout_on_sleeping_server',
  'custom_metadata',
  'status_code_and_message',
  'special_status_message',
  'unimplemented_method',
  'unimplemented_service',
] as const;

/** One interop case's name. */
export type InteropCase = (typeof CASES)[number];

/** The status message special_status_message sends: whitespace, and characters beyond ASCII and the BMP. */
export const SPECIAL_STATUS_MESSAGE = '\t\ntest with whitespace\r\nand Unicode BMP ☺ and non-BMP 😈\t\n';

const INITIAL_VALUE = 'test_initial_metadata_value';
const TRAILING_VALUE = Buffer.from([0xab, 0xab, 0xab]);
/** How long one case's call may take before the case fails (a hung server must not hang the suite). */
const CALL_DEADLINE_MS = 10_000;

interface Payload {
  body: Buffer;
}
interface StreamingOutputCallResponse {
  payload: Payload;
}

type Callback<T> = (error: grpc.ServiceError | null, value?: T) => void;
interface TestServiceClient extends grpc.Client {
  EmptyCall(request: object, metadata: grpc.Metadata, options: grpc.CallOptions, callback: Callback<object>): grpc.ClientUnaryCall;
  UnaryCall(request: object, metadata: grpc.Metadata, options: grpc.CallOptions, callback: Callback<{ payload: Payload | null }>): grpc.ClientUnaryCall;
  UnimplementedCall(request: object, metadata: grpc.Metadata, options: grpc.CallOptions, callback: Callback<object>): grpc.ClientUnaryCall;
  StreamingOutputCall(request: object, metadata: grpc.Metadata, options: grpc.CallOptions): grpc.ClientReadableStream<StreamingOutputCallResponse>;
  StreamingInputCall(metadata: grpc.Metadata, options: grpc.CallOptions, callback: Callback<{ aggregated_payload_size: number }>): grpc.ClientWritableStream<object>;
  FullDuplexCall(metadata: grpc.Metadata, options: grpc.CallOptions): grpc.ClientDuplexStream<object, StreamingOutputCallResponse>;
  HalfDuplexCall(metadata: grpc.Metadata, options: grpc.CallOptions): grpc.ClientDuplexStream<object, StreamingOutputCallResponse>;
}
interface UnimplementedServiceClient extends grpc.Client {
  UnimplementedCall(request: object, metadata: grpc.Metadata, options: grpc.CallOptions, callback: Callback<object>): grpc.ClientUnaryCall;
}

const loaded = grpc.loadPackageDefinition(
  loadSync(TEST_PROTO, { includeDirs: [PROTO_DIR], keepCase: true, longs: String, enums: String, defaults: true, oneofs: true }),
) as unknown as { grpc: { testing: { TestService: grpc.ServiceClientConstructor; UnimplementedService: grpc.ServiceClientConstructor } } };

/** The two stubs the cases use, on one channel each. */
export interface InteropClients {
  test: TestServiceClient;
  unimplemented: UnimplementedServiceClient;
  close(): void;
}

/** Clients of a server's TestService and UnimplementedService at `target`. */
export function interopClients(target: string): InteropClients {
  const credentials = grpc.credentials.createInsecure();
  const test = new loaded.grpc.testing.TestService(target, credentials) as unknown as TestServiceClient;
  const unimplemented = new loaded.grpc.testing.UnimplementedService(target, credentials) as unknown as UnimplementedServiceClient;
  return {
    test,
    unimplemented,
    close() {
      test.close();
      unimplemented.close();
    },
  };
}

function options(): grpc.CallOptions {
  return { deadline: Date.now() + CALL_DEADLINE_MS };
}

function zeros(size: number): Payload {
  return { body: Buffer.alloc(size) };
}

function assertZeros(payload: Payload | null | undefined, size: number): void {
  assert.ok(payload, 'the response has a payload');
  assert.equal(payload.body.length, size, 'payload body size');
  assert.ok(payload.body.every((byte) => byte === 0), 'the payload body is zeros');
}

interface UnaryOutcome<T> {
  error: grpc.ServiceError | null;
  response: T | undefined;
  headers: grpc.Metadata;
  trailers: grpc.Metadata;
}

/** A unary call, with the metadata and status it ended with. */
function unary<T>(start: (metadata: grpc.Metadata, callback: Callback<T>) => grpc.ClientUnaryCall, metadata = new grpc.Metadata()): Promise<UnaryOutcome<T>> {
  return new Promise((resolve) => {
    let headers = new grpc.Metadata();
    let error: grpc.ServiceError | null = null;
    let response: T | undefined;
    const call = start(metadata, (err, value) => {
      error = err;
      response = value;
    });
    call.on('metadata', (md: grpc.Metadata) => (headers = md));
    // The callback runs before 'status'; by then both are known.
    call.on('status', (status: grpc.StatusObject) => setImmediate(() => resolve({ error, response, headers, trailers: status.metadata })));
  });
}

interface StreamOutcome<T> {
  messages: T[];
  status: grpc.StatusObject;
  headers: grpc.Metadata;
}

/** Reads a response stream to its status. */
function readAll<T>(stream: grpc.ClientReadableStream<T> | grpc.ClientDuplexStream<object, T>): Promise<StreamOutcome<T>> {
  return new Promise((resolve) => {
    const messages: T[] = [];
    let headers = new grpc.Metadata();
    stream.on('metadata', (md: grpc.Metadata) => (headers = md));
    stream.on('data', (message: T) => messages.push(message));
    stream.on('error', () => undefined);
    stream.on('status', (status: grpc.StatusObject) => resolve({ messages, status, headers }));
  });
}

/** The next message of a stream (rejects when it ends first). */
function nextMessage<T>(stream: grpc.ClientDuplexStream<object, T>): Promise<T> {
  return new Promise((resolve, reject) => {
    const cleanup = (): void => {
      stream.removeListener('data', onData);
      stream.removeListener('status', onStatus);
    };
    const onData = (message: T): void => {
      cleanup();
      resolve(message);
    };
    const onStatus = (status: grpc.StatusObject): void => {
      cleanup();
      reject(new Error(`the stream ended (status ${status.code}: ${status.details}) before a response`));
    };
    stream.on('data', onData);
    stream.on('status', onStatus);
  });
}

function assertStatus(status: { code: number; details: string }, code: grpc.status, details?: string): void {
  assert.equal(status.code, code, `status code (details: ${JSON.stringify(status.details)})`);
  if (details !== undefined) assert.equal(status.details, details, 'status message');
}

function echoMetadata(): grpc.Metadata {
  const metadata = new grpc.Metadata();
  metadata.set(ECHO_INITIAL, INITIAL_VALUE);
  metadata.set(ECHO_TRAILING, TRAILING_VALUE);
  return metadata;
}

function assertEchoed(headers: grpc.Metadata, trailers: grpc.Metadata): void {
  assert.deepEqual(headers.get(ECHO_INITIAL), [INITIAL_VALUE], 'initial metadata echoed');
  assert.deepEqual(trailers.get(ECHO_TRAILING), [TRAILING_VALUE], 'trailing metadata echoed');
}

const PING_PONG = [
  [31415, 27182],
  [9, 8],
  [2653, 1828],
  [58979, 45904],
] as const;

/** Each case: its procedure and the client's assertions, from the interop spec. */
export const grpcJsCases: Record<InteropCase, (clients: InteropClients) => Promise<void>> = {
  async empty_unary({ test }) {
    const { error, response } = await unary<object>((md, cb) => test.EmptyCall({}, md, options(), cb));
    assert.equal(error, null);
    assert.deepEqual(response, {});
  },

  async large_unary({ test }) {
    const { error, response } = await unary<{ payload: Payload | null }>((md, cb) =>
      test.UnaryCall({ response_size: 314159, payload: zeros(271828) }, md, options(), cb),
    );
    assert.equal(error, null);
    assertZeros(response?.payload, 314159);
  },

  async client_streaming({ test }) {
    const response = await new Promise<{ aggregated_payload_size: number }>((resolve, reject) => {
      const call = test.StreamingInputCall(new grpc.Metadata(), options(), (err, value) => (err ? reject(err) : resolve(value!)));
      for (const size of [27182, 8, 1828, 45904]) call.write({ payload: zeros(size) });
      call.end();
    });
    assert.equal(response.aggregated_payload_size, 74922);
  },

  async server_streaming({ test }) {
    const sizes = [31415, 9, 2653, 58979];
    const { messages, status } = await readAll(test.StreamingOutputCall({ response_parameters: sizes.map((size) => ({ size })) }, new grpc.Metadata(), options()));
    assertStatus(status, grpc.status.OK);
    assert.equal(messages.length, 4);
    messages.forEach((message, i) => assertZeros(message.payload, sizes[i]!));
  },

  async ping_pong({ test }) {
    const call = test.FullDuplexCall(new grpc.Metadata(), options());
    const ended = readAll(call);
    for (const [size, body] of PING_PONG) {
      const reply = nextMessage(call);
      call.write({ response_parameters: [{ size }], payload: zeros(body) });
      assertZeros((await reply).payload, size);
    }
    call.end();
    const { messages, status } = await ended;
    assertStatus(status, grpc.status.OK);
    assert.equal(messages.length, 4);
  },

  async empty_stream({ test }) {
    const call = test.FullDuplexCall(new grpc.Metadata(), options());
    const ended = readAll(call);
    call.end();
    const { messages, status } = await ended;
    assertStatus(status, grpc.status.OK);
    assert.equal(messages.length, 0);
  },

  async cancel_after_begin({ test }) {
    const error = await new Promise<grpc.ServiceError | null>((resolve) => {
      const call = test.StreamingInputCall(new grpc.Metadata(), options(), (err) => resolve(err));
      call.cancel();
    });
    assert.ok(error, 'the call failed');
    assertStatus(error, grpc.status.CANCELLED);
  },

  async cancel_after_first_response({ test }) {
    const call = test.FullDuplexCall(new grpc.Metadata(), options());
    const ended = readAll(call);
    const reply = nextMessage(call);
    call.write({ response_parameters: [{ size: 31415 }], payload: zeros(27182) });
    assertZeros((await reply).payload, 31415);
    call.cancel();
    assertStatus((await ended).status, grpc.status.CANCELLED);
  },

  async timeout_on_sleeping_server({ test }) {
    const call = test.FullDuplexCall(new grpc.Metadata(), { deadline: Date.now() + 1 });
    const ended = readAll(call);
    call.write({ payload: zeros(27182) });
    assertStatus((await ended).status, grpc.status.DEADLINE_EXCEEDED);
  },

  async custom_metadata({ test }) {
    const single = await unary<{ payload: Payload | null }>(
      (md, cb) => test.UnaryCall({ response_size: 314159, payload: zeros(271828) }, md, options(), cb),
      echoMetadata(),
    );
    assert.equal(single.error, null);
    assertZeros(single.response?.payload, 314159);
    assertEchoed(single.headers, single.trailers);

    const call = test.FullDuplexCall(echoMetadata(), options());
    const ended = readAll(call);
    call.write({ response_parameters: [{ size: 314159 }], payload: zeros(271828) });
    call.end();
    const { messages, status, headers } = await ended;
    assertStatus(status, grpc.status.OK);
    assert.equal(messages.length, 1);
    assertEchoed(headers, status.metadata);
  },

  async status_code_and_message({ test }) {
    const responseStatus = { code: 2, message: 'test status message' };
    const single = await unary<object>((md, cb) => test.UnaryCall({ response_status: responseStatus }, md, options(), cb));
    assert.ok(single.error, 'the unary call failed');
    assertStatus(single.error, responseStatus.code, responseStatus.message);

    const call = test.FullDuplexCall(new grpc.Metadata(), options());
    const ended = readAll(call);
    call.write({ response_status: responseStatus });
    call.end();
    assertStatus((await ended).status, responseStatus.code, responseStatus.message);
  },

  async special_status_message({ test }) {
    const { error } = await unary<object>((md, cb) => test.UnaryCall({ response_status: { code: 2, message: SPECIAL_STATUS_MESSAGE } }, md, options(), cb));
    assert.ok(error, 'the call failed');
    assertStatus(error, grpc.status.UNKNOWN, SPECIAL_STATUS_MESSAGE);
  },

  async unimplemented_method({ test }) {
    const { error } = await unary<object>((md, cb) => test.UnimplementedCall({}, md, options(), cb));
    assert.ok(error, 'the call failed');
    assertStatus(error, grpc.status.UNIMPLEMENTED);
  },

  async unimplemented_service({ unimplemented }) {
    const { error } = await unary<object>((md, cb) => unimplemented.UnimplementedCall({}, md, options(), cb));
    assert.ok(error, 'the call failed');
    assertStatus(error, grpc.status.UNIMPLEMENTED);
  },
};

/**
 * HalfDuplexCall, which no standard case calls: nothing comes back before the client half-closes,
 * then one response per ResponseParameters of every request, in order.
 */
export async function halfDuplex({ test }: InteropClients): Promise<void> {
  const call = test.HalfDuplexCall(new grpc.Metadata(), options());
  let early = 0;
  call.on('data', () => early++);
  const ended = readAll(call);
  call.write({ response_parameters: [{ size: 3 }, { size: 5 }] });
  call.write({ response_parameters: [{ size: 7 }] });
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(early, 0, 'no response before the half-close');
  call.end();
  const { messages, status } = await ended;
  assertStatus(status, grpc.status.OK);
  assert.deepEqual(messages.map((message) => message.payload.body.length), [3, 5, 7]);
}
