import { createFileRegistry, fromBinary, type FileRegistry } from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema, type FileDescriptorProto } from '@bufbuild/protobuf/wkt';
import { Code, ConnectError, createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import * as grpc from '@grpc/grpc-js';
import { fromJSON } from '@grpc/proto-loader';
import protobuf from 'protobufjs';
import { HTTPError, ValidationError } from '@fw/core';
import type { GeneratedProto, GrpcUnaryHandler } from '../src/index.js';
import { fixFileDescriptors } from '../src/internal/descriptors.js';
import { PROTO, client as echoClient, failure, unary } from './helpers.js';
import { operation, t } from './fixtures/operation.js';
import { decodeRichStatus, richErrorRoot, startOperations, type StartedOperations } from './operations-helpers.js';

/** Descriptors of generated files for a client that is not grpc-js, made valid as reflection serves them. */
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

type AnyClient = Record<string, (request: object) => Promise<Record<string, unknown>>>;

const Priority = t.enum(['low', 'high'], 'Priority');
const createTask = operation<{ title: string; priority: string; estimate?: number }, unknown>({
  name: 'createTask',
  input: t.object({ title: t.string(), priority: Priority, estimate: t.optional(t.int32()) }),
  output: t.object({ id: t.string(), title: t.string(), priority: Priority, estimate: t.optional(t.int32()) }, 'Task'),
  grpc: { service: 'todo.Tasks' },
  handler: (input) => {
    if (input.title === 'taken') throw new HTTPError(409, 'A task with this title exists');
    return { id: 't1', ...input };
  },
});

// A hand-written method throwing validation details: as a ValidationError (what `validate()` throws,
// and what an app's own code throws for field errors) with a 400 or 422, else as a plain HTTPError.
const Fail: GrpcUnaryHandler<{ status: number; mode: string; message: string }, object> = (call) => {
  const { status, message } = call.request;
  const errors = [{ field: 'body.title', message: 'Too short', code: 'too_small' }];
  if (call.request.mode !== 'plain' && (status === 400 || status === 422)) throw new ValidationError(errors, message, { status });
  throw new HTTPError(status, message, { errors });
};

describe('rich errors and operations for a Connect (@connectrpc/connect-node) client', () => {
  let server: StartedOperations;
  let tasks: AnyClient;

  beforeAll(async () => {
    server = await startOperations([createTask], { protoPath: PROTO, services: { 'fwtest.Echo': { Fail } } });
    const service = registryOf(server.grpc.generateProtos()).getService('todo.Tasks');
    if (service === undefined) throw new Error('todo.Tasks is not in the generated descriptors');
    tasks = createClient(service, createGrpcTransport({ baseUrl: `http://${server.target}` }));
  });

  afterAll(async () => {
    await server.app.close();
  });

  async function connectError(promise: Promise<unknown>): Promise<ConnectError> {
    try {
      await promise;
    } catch (err) {
      return ConnectError.from(err);
    }
    throw new Error('expected the call to fail');
  }

  it('calls an operation; enums and optional fields round-trip', async () => {
    const reply = await tasks.createTask!({ title: 'Write docs', priority: 2, estimate: 0 });
    expect(reply.task).toMatchObject({ id: 't1', title: 'Write docs', priority: 2, estimate: 0 });
    const without = await tasks.createTask!({ title: 'Later', priority: 1 });
    expect((without.task as { estimate?: number }).estimate).toBeUndefined();
  });

  it('lists google.rpc.BadRequest in ConnectError.details for a validation failure', async () => {
    const err = await connectError(tasks.createTask!({ title: 'No priority' }));
    expect(err.code).toBe(Code.InvalidArgument);
    expect(err.rawMessage).toBe('Validation failed');
    expect(err.details.map((d) => ('type' in d ? d.type : d.desc.typeName))).toEqual(['google.rpc.BadRequest']);
    const detail = err.details[0] as { value: Uint8Array };
    const BadRequest = richErrorRoot.lookupType('google.rpc.BadRequest');
    expect(BadRequest.toObject(BadRequest.decode(detail.value))).toEqual({ field_violations: [{ field: 'priority', description: 'Required' }] });
  });

  it('sends no rich details for errors that are not validation failures', async () => {
    const err = await connectError(tasks.createTask!({ title: 'taken', priority: 1 }));
    expect(err.code).toBe(Code.AlreadyExists);
    expect(err.details).toEqual([]);
  });
});

describe('rich errors from hand-written services (grpc-js client)', () => {
  let server: StartedOperations;
  let echo: grpc.Client;

  beforeAll(async () => {
    server = await startOperations([], { protoPath: PROTO, services: { 'fwtest.Echo': { Fail } } });
    echo = echoClient(server.target);
  });

  afterAll(async () => {
    echo.close();
    await server.app.close();
  });

  it('sends a google.rpc.BadRequest for a ValidationError, 400 or 422', async () => {
    for (const status of [400, 422]) {
      const err = await failure(unary(echo, 'Fail', { status, message: 'Validation failed' }));
      expect(err.code).toBe(grpc.status.INVALID_ARGUMENT);
      const decoded = decodeRichStatus((err.metadata.get('grpc-status-details-bin') as Buffer[])[0]!);
      expect(decoded).toEqual({ code: 3, message: 'Validation failed', typeUrls: ['type.googleapis.com/google.rpc.BadRequest'], violations: [{ field: 'body.title', description: 'Too short' }] });
    }
  });

  it('sends none for other statuses, whatever their details', async () => {
    const err = await failure(unary(echo, 'Fail', { status: 409, message: 'Conflict' }));
    expect(err.code).toBe(grpc.status.ALREADY_EXISTS);
    expect(err.metadata.get('grpc-status-details-bin')).toEqual([]);
  });

  it('sends none for an HTTPError that is not a ValidationError, whatever its details', async () => {
    const err = await failure(unary(echo, 'Fail', { status: 400, mode: 'plain', message: 'Validation failed' }));
    expect(err.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(err.metadata.get('grpc-status-details-bin')).toEqual([]);
  });
});
