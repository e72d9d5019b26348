// The functions of this package that need the gRPC libraries: each is this package's own function,
// and loads its implementation (internal/implementation.ts, which loads @grpc/grpc-js, the proto
// loader, protobufjs, reflection and health) on its first call. Importing @fw/grpc, as @fw/app's
// root does for every app, loads none of them: an app without gRPC never pays for them.
import type { Operation } from '@fw/core';
import type * as Implementation from './internal/implementation.js';
import type { ProtoChange } from './operations/breaking.js';
import type { DescribedOperations, DescribeOperationsOptions } from './operations/describe.js';
import type { GenerateProtosOptions } from './operations/generate.js';
import type { GeneratedProto } from './operations/print.js';
import type { GrpcPlugin } from './plugin.js';
import type { GrpcConfig, GrpcServiceRunner, GrpcServiceRunnerHost, GrpcServicesConfig } from './types.js';

let implementation: typeof Implementation | undefined;
// eslint-disable-next-line @typescript-eslint/no-require-imports -- synchronous on purpose: createApp and plugin factories are synchronous
const load = (): typeof Implementation => (implementation ??= require('./internal/implementation.js') as typeof Implementation);

/**
 * Creates the gRPC plugin. The config is checked (and the proto loaded) now, so mistakes surface
 * at startup; the server binds when `app.listen()` runs and shuts down gracefully on `app.close()`.
 * `grpcPlugin()` (or `true`) serves only the app's operations that name gRPC services.
 * @example
 * const grpc = grpcPlugin({ port: 50051, protoPath: './greeter.proto', services: { 'demo.Greeter': { SayHello } } });
 * app.register(grpc);
 * await app.listen(3000);
 * console.log(grpc.address?.target);
 */
export function grpcPlugin(config: GrpcConfig | true = {}): GrpcPlugin {
  return load().grpcPlugin(config);
}

/**
 * The .proto files (proto3) of the operations that name a gRPC service: one file per proto
 * package, `<package path>.proto`, sorted by name. Pure: reads the previous files when given a
 * directory, writes nothing. Throws an error naming the operation and the path for anything that
 * cannot map to proto.
 * @example
 * const files = generateProtos([getBook, listBooks], { previous: './protos' });
 * // [{ file: 'bookstore.proto', text: 'syntax = "proto3";\n…' }]
 */
export function generateProtos(operations: readonly Operation[], options: GenerateProtosOptions = {}): GeneratedProto[] {
  return load().generateProtos(operations, options);
}

/**
 * The differences between two sets of .proto files (file name → text), as they reach existing
 * clients. Messages are compared by what each RPC reaches: an RPC's request and response, then
 * each message-typed field's message, number by number, so that a renamed message is compared
 * with what it was (and reported as a rename) rather than as one message removed and one added.
 * Fields are compared by number (type, cardinality, presence, name); what was removed must leave
 * its number and name reserved; reserved numbers and names stay reserved. Additions old clients
 * may receive without knowing them (an enum value or oneof case in what responses carry) are
 * `dangerous`. Breaking changes come first, then dangerous ones.
 * @example
 * const changes = findProtoChanges(new Map([['shop.proto', committed]]), new Map([['shop.proto', generated]]));
 * const breaking = changes.filter((change) => change.breaks !== undefined);
 */
export function findProtoChanges(before: ReadonlyMap<string, string>, after: ReadonlyMap<string, string>): ProtoChange[] {
  return load().findProtoChanges(before, after);
}

/**
 * The operations' generated protos as another transport serves them: each file's descriptor, and
 * each RPC with its path, its operation and the conversions between its messages and the
 * operation's input and output. Numbered as `generateProtos` numbers them (from `previous`).
 * @example
 * const { descriptors, methods } = describeOperations(app.operations, { previous: './protos' });
 * // methods[0].path === '/bookstore.Catalog/GetBook'
 */
export function describeOperations(operations: readonly Operation[], options: DescribeOperationsOptions = {}): DescribedOperations {
  return load().describeOperations(operations, options);
}

/**
 * The hand-written services of a gRPC config (`services` with `protoPath` or `packageDefinition`,
 * `loaderOptions`, `middleware`), run for another transport that carries gRPC calls (`@fw/connect`:
 * Connect and gRPC-Web on the HTTP port): the same handlers, call objects, `middleware` and status
 * mapping as on the gRPC port, with request and response messages as protobuf binary. The config
 * is checked (and the proto loaded) now.
 * @example
 * const runner = createGrpcServiceRunner({ protoPath: './greeter.proto', services: { 'demo.Greeter': { SayHello } } }, { ran: () => [], trustProxy: false, log: console.error });
 * const result = await runner.unary('/demo.Greeter/SayHello', { request: bytes, headers: {}, peer: '127.0.0.1:5000', signal });
 */
export function createGrpcServiceRunner(config: GrpcServicesConfig, host: GrpcServiceRunnerHost): GrpcServiceRunner {
  return load().createGrpcServiceRunner(config, host);
}
