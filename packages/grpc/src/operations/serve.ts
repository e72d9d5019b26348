import { fromJSON, type MethodDefinition, type Options, type PackageDefinition, type ServiceDefinition } from '@grpc/proto-loader';
import protobuf from 'protobufjs';
import type { Operation } from '@fw/core';
import { runOperation } from '@fw/core/plugin';
import type { RunnableMethod } from '../internal/call-state.js';
import type { ResolvedService } from '../internal/config.js';
import { Codecs, operationCodec } from './codec.js';
import { buildModel, type ProtoMethod } from './model.js';
import { printModel, type GeneratedProto, type PreviousSource } from './print.js';
import { streamImplementation, type StreamSupport } from './stream.js';

/**
 * How generated protos are loaded: field names as declared, int64 as numbers (the schemas' `int`
 * is a safe integer), enums as names, and defaults on so that proto3 scalars without presence read
 * as their zero value (the codec then makes unset messages, `optional` fields and enum zeros absent).
 */
export const OPERATION_LOADER_OPTIONS: Options = { keepCase: true, longs: Number, enums: String, defaults: true, oneofs: false };

/** What the operations add to the server: their package definition and services. */
export interface ServedOperations {
  readonly files: readonly GeneratedProto[];
  readonly definition: PackageDefinition;
  readonly services: ResolvedService[];
}

function implementation(method: ProtoMethod, codecs: Codecs): NonNullable<RunnableMethod['impl']> {
  const op = method.operation;
  const codec = operationCodec(codecs, method);
  // One parameter: the runner sends the returned value (or maps the rejection). A method whose
  // messages need no conversion skips the codec (and a promise step) on every call.
  if (codec.passThrough) return (call) => runOperation(op, call.ctx, (call as { request?: unknown }).request);
  return (call) => runOperation(op, call.ctx, codec.request((call as { request?: unknown }).request)).then(codec.response);
}

const identity = (message: unknown): Buffer => message as Buffer;

/**
 * A streaming operation's RPC: the stream serializes each event itself (to know its size before
 * writing it), so the definition grpc-js serves it with passes the bytes through.
 */
function streamMethod(method: ProtoMethod, definition: MethodDefinition<object, object>, codecs: Codecs, support: StreamSupport | undefined): {
  impl: NonNullable<RunnableMethod['impl']>;
  definition: MethodDefinition<object, object>;
} {
  if (support === undefined) throw new Error(`Operation "${method.operation.name}" is a stream, and streams need the app's stream registry`);
  const serialize = definition.responseSerialize as (message: unknown) => Buffer;
  const impl = streamImplementation(method.operation, operationCodec(codecs, method), serialize, support);
  return { impl, definition: { ...definition, responseSerialize: identity } };
}

/**
 * Generates the operations' protos (numbered from `previous`), loads them with protobufjs and
 * proto-loader (no files written), and makes a service per generated service whose methods run
 * the operations. `taken` holds the names the user's own proto defines, which generated ones may not reuse;
 * `streams` (the app's stream registry and limits) serves the streaming operations.
 */
export function serveOperations(operations: readonly Operation[], previous: PreviousSource, taken: ReadonlySet<string>, streams?: StreamSupport): ServedOperations {
  const model = buildModel(operations, taken);
  const files = printModel(model, previous);
  const definition: PackageDefinition = {};
  for (const file of files) {
    const parsed = protobuf.parse(file.text, new protobuf.Root(), { keepCase: true });
    Object.assign(definition, fromJSON(parsed.root.toJSON(), OPERATION_LOADER_OPTIONS));
  }
  const codecs = new Codecs(model.enums);
  // A former name's RPC with enums of its own (named after that name) converts with those.
  const codecsOf = (method: ProtoMethod): Codecs => (method.enums === undefined ? codecs : new Codecs(new Map([...model.enums, ...method.enums])));
  const services: ResolvedService[] = [];
  for (const pkg of model.packages) {
    for (const service of pkg.services) {
      const name = `${pkg.name}.${service.name}`;
      // A copy: reflection serves the loaded definition, the server this one (streams' serializers differ).
      const serviceDefinition: ServiceDefinition = { ...(definition[name] as ServiceDefinition) };
      const methods = service.methods.map((method): RunnableMethod => {
        const loaded = serviceDefinition[method.name]!;
        if (!method.stream) return { rpc: { service: name, method: method.name, type: 'unary' }, path: loaded.path, impl: implementation(method, codecsOf(method)) };
        const served = streamMethod(method, loaded, codecsOf(method), streams);
        serviceDefinition[method.name] = served.definition;
        return { rpc: { service: name, method: method.name, type: 'serverStream' }, path: loaded.path, impl: served.impl, sendsOwnHeaders: true };
      });
      services.push({ name, definition: serviceDefinition, methods });
    }
  }
  return { files, definition, services };
}
