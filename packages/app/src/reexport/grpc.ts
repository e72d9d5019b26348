/** `@fw/app/grpc`: everything `@fw/grpc` exports, for apps that install only `@fw/app`. */
export * from '@fw/grpc';
// The functions and classes are the root entry's own objects (the build points this import at
// `@fw/app` itself), so `import { x } from '@fw/app'` and from here give the same object.
export { findProtoChanges, generateProtos, grpcMethodName, grpcPlugin, grpcStatusOf, GrpcContext, GrpcError, httpStatusFromGrpc, validateGrpcConfig } from '../index.js';
