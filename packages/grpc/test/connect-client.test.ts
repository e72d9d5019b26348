import { createFileRegistry, fromBinary, type DescService, type FileRegistry } from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema, type FileDescriptorProto } from '@bufbuild/protobuf/wkt';
import { Code, ConnectError, createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { loadSync } from '@grpc/proto-loader';
import { protoPath as healthProto } from 'grpc-health-check';
import { HTTPError } from '@fw/core';
import { ERROR_DETAILS_KEY, GrpcError, type GrpcServerStreamHandler, type GrpcUnaryHandler } from '../src/index.js';
import { fixFileDescriptors } from '../src/internal/descriptors.js';
import { PROTO, sleep, start, type EchoReply, type EchoRequest, type Started } from './helpers.js';

/**
 * Descriptors for a client that is not grpc-js: the .proto loaded with proto-loader, its
 * FileDescriptorProtos made valid (as reflection serves them) and read into @bufbuild/protobuf.
 */
function registryOf(protoPath: string): FileRegistry {
  const definition = loadSync(protoPath, { keepCase: true });
  const raw = new Map<string, Uint8Array>();
  for (const entry of Object.values(definition)) {
    for (const bytes of (entry as { fileDescriptorProtos?: Uint8Array[] }).fileDescriptorProtos ?? []) raw.set(Buffer.from(bytes).toString('base64'), bytes);
  }
  const files = new Map<string, FileDescriptorProto>();
  for (const bytes of fixFileDescriptors([...raw.values()])) {
    const file = fromBinary(FileDescriptorProtoSchema, bytes);
    files.set(file.name, file);
  }
  return createFileRegistry(...[...files.values()].map((file) => createFileRegistry(file, (name) => files.get(name))));
}

const echoService = registryOf(PROTO).getService('fwtest.Echo') as DescService;
const healthService = registryOf(healthProto).getService('grpc.health.v1.Health') as DescService;

/** The generic Connect client: methods by their localName, messages as init objects. */
type AnyClient = Record<string, (request: object, options?: { timeoutMs?: number; headers?: Record<string, string> }) => unknown>;

describe('a Connect (@connectrpc/connect-node) gRPC client', () => {
  let server: Started;
  let echo: AnyClient;
  let health: AnyClient;

  const Unary: GrpcUnaryHandler<EchoRequest, Partial<EchoReply>> = (call) => ({ message: `echo: ${call.request.message}`, user: call.ctx.headers['x-user'] ?? '' });
  const ServerStream: GrpcServerStreamHandler<EchoRequest, Partial<EchoReply>> = async function* (call) {
    for (let index = 0; index < (call.request.count ?? 0); index++) yield { message: call.request.message, index };
  };
  const Fail: GrpcUnaryHandler<{ mode: string; message: string }, EchoReply> = (call) => {
    const { mode, message } = call.request;
    if (mode === 'details') throw new HTTPError(422, message, { errors: [{ path: ['title'], code: 'too_small' }] });
    if (mode === 'grpc') throw new GrpcError(9, message);
    throw new Error('postgres://admin:secret@db is down');
  };
  const Slow: GrpcUnaryHandler<EchoRequest, Partial<EchoReply>> = async (call) => {
    await sleep(call.request.delay_ms ?? 0, call.ctx.signal);
    return { message: 'slow done' };
  };

  beforeAll(async () => {
    server = await start({ services: { 'fwtest.Echo': { Unary, ServerStream, Fail, Slow } } });
    const transport = createGrpcTransport({ baseUrl: `http://${server.target}` });
    echo = createClient(echoService, transport);
    health = createClient(healthService, transport);
  });

  afterAll(async () => {
    await server.app.close();
  });

  async function connectError(promise: unknown): Promise<ConnectError> {
    try {
      await promise;
    } catch (err) {
      return ConnectError.from(err);
    }
    throw new Error('expected the call to fail');
  }

  it('makes a unary call, with request metadata', async () => {
    const reply = (await echo.unary!({ message: 'hi' }, { headers: { 'x-user': 'ada' } })) as { message: string; user: string };
    expect(reply.message).toBe('echo: hi');
    expect(reply.user).toBe('ada');
  });

  it('reads a server stream to its end', async () => {
    const received: Array<{ message: string; index: number }> = [];
    for await (const item of echo.serverStream!({ message: 'tick', count: 3 }) as AsyncIterable<{ message: string; index: number }>) received.push(item);
    expect(received.map((r) => [r.message, r.index])).toEqual([
      ['tick', 0],
      ['tick', 1],
      ['tick', 2],
    ]);
  });

  it("receives an HTTPError's status, message and details (error-details-bin)", async () => {
    const err = await connectError(echo.fail!({ mode: 'details', message: 'Validation failed' }));
    expect(err.code).toBe(Code.InvalidArgument);
    expect(err.rawMessage).toBe('Validation failed');
    const raw = err.metadata.get(ERROR_DETAILS_KEY);
    expect(raw).not.toBeNull();
    expect(JSON.parse(Buffer.from(raw!, 'base64').toString())).toEqual({ errors: [{ path: ['title'], code: 'too_small' }] });
  });

  it('receives a GrpcError status as it is, and a masked INTERNAL for anything else', async () => {
    const grpcErr = await connectError(echo.fail!({ mode: 'grpc', message: 'Out of stock' }));
    expect(grpcErr.code).toBe(Code.FailedPrecondition);
    expect(grpcErr.rawMessage).toBe('Out of stock');
    const internal = await connectError(echo.fail!({ mode: 'plain', message: '' }));
    expect(internal.code).toBe(Code.Internal);
    expect(internal.rawMessage).not.toContain('secret');
  });

  it('fails with DEADLINE_EXCEEDED when timeoutMs passes', async () => {
    const err = await connectError(echo.slow!({ delayMs: 5000 }, { timeoutMs: 150 }));
    expect(err.code).toBe(Code.DeadlineExceeded);
  });

  it('checks health with grpc.health.v1.Health/Check', async () => {
    const reply = (await health.check!({ service: '' })) as { status: number };
    expect(reply.status).toBe(1); // SERVING
  });
});
