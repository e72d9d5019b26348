// What the functions of ../lazy.ts call: the modules that use the gRPC libraries (grpc-js, the
// proto loader, protobufjs, reflection, health) at their top level, loaded on the first such call.
export { grpcPlugin } from '../plugin.js';
export { generateProtos } from '../operations/generate.js';
export { findProtoChanges } from '../operations/breaking.js';
export { describeOperations } from '../operations/describe.js';
export { createGrpcServiceRunner } from './service-runner.js';
