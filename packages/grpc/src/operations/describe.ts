import { fromJSON } from '@grpc/proto-loader';
import protobuf from 'protobufjs';
import type { Operation } from '@fw/core';
import { fixFileDescriptors } from '../internal/descriptors.js';
import { Codecs, operationCodec } from './codec.js';
import { previousSource, type GenerateProtosOptions } from './generate.js';
import { buildModel, type ProtoMethod } from './model.js';
import { printModel, type GeneratedProto } from './print.js';

/** One RPC of the generated services, as another transport (Connect, gRPC-Web) serves it. */
export interface DescribedMethod {
  /** The fully-qualified service name: `bookstore.Catalog`. */
  readonly service: string;
  /** The method name: `GetBook`. */
  readonly method: string;
  /** `/bookstore.Catalog/GetBook`. */
  readonly path: string;
  /** The fully-qualified request and response message names. */
  readonly input: string;
  readonly output: string;
  /** A server-streaming RPC: each event of the operation is one response message. */
  readonly stream: boolean;
  readonly operation: Operation;
  /**
   * A request message as the operation's input: the message read with the proto's field names,
   * 64-bit integers as numbers, enums by name, and every field without presence set (its zero value).
   */
  readonly request: (message: unknown) => unknown;
  /** The operation's result (or one event's data) as the response message, in that same form. */
  readonly response: (result: unknown) => unknown;
}

/** The generated protos of a set of operations, as descriptors and methods. */
export interface DescribedOperations {
  readonly files: readonly GeneratedProto[];
  /** One serialized `google.protobuf.FileDescriptorProto` per file, valid for strict descriptor pools. */
  readonly descriptors: readonly Uint8Array[];
  readonly methods: readonly DescribedMethod[];
}

/** Options of `describeOperations`. */
export interface DescribeOperationsOptions extends GenerateProtosOptions {
  /** Fully-qualified names generated types may not take (those of a proto of your own). */
  readonly taken?: ReadonlySet<string>;
}

/** The implementation of `describeOperations`: the package exports ../lazy.ts's, which loads this on its first call. */
export function describeOperations(operations: readonly Operation[], options: DescribeOperationsOptions = {}): DescribedOperations {
  const served = operations.filter((op) => op.grpc !== undefined);
  const model = buildModel(served, options.taken ?? new Set());
  const files = printModel(model, previousSource(options.previous));
  const raw: Uint8Array[] = [];
  for (const file of files) {
    const root = protobuf.parse(file.text, new protobuf.Root(), { keepCase: true }).root;
    const definition = fromJSON(root.toJSON(), { keepCase: true });
    const entry = Object.values(definition).find((value) => 'fileDescriptorProtos' in value) as { fileDescriptorProtos: Uint8Array[] } | undefined;
    if (entry !== undefined) raw.push(...entry.fileDescriptorProtos);
  }
  const unique = new Map<string, Uint8Array>();
  for (const bytes of fixFileDescriptors(raw)) unique.set(Buffer.from(bytes).toString('base64'), bytes);
  const codecs = new Codecs(model.enums);
  const codecsOf = (method: ProtoMethod): Codecs => (method.enums === undefined ? codecs : new Codecs(new Map([...model.enums, ...method.enums])));
  const methods: DescribedMethod[] = [];
  for (const pkg of model.packages) {
    for (const service of pkg.services) {
      const name = `${pkg.name}.${service.name}`;
      for (const method of service.methods) {
        const codec = operationCodec(codecsOf(method), method);
        methods.push({
          service: name,
          method: method.name,
          path: `/${name}/${method.name}`,
          input: `${pkg.name}.${method.input}`,
          output: `${pkg.name}.${method.output}`,
          stream: method.stream,
          operation: method.operation,
          request: codec.request,
          response: codec.response,
        });
      }
    }
  }
  return { files, descriptors: [...unique.values()], methods };
}
