import type * as GrpcJs from '@grpc/grpc-js';
import type * as ProtoLoader from '@grpc/proto-loader';
import type * as Protobuf from 'protobufjs';

// The gRPC libraries, each loaded by the first call that needs one of its values rather than with
// @fw/grpc: `@fw/app` exports this package's classes and functions to every app, and an app
// without gRPC never loads them. `require` of the packages' own names, so that node, jest and
// bundlers resolve the copy the rest of the process uses. Synchronous on purpose: the plugin
// factory and the config check are.
/* eslint-disable @typescript-eslint/no-require-imports -- see above */

let grpcJsModule: typeof GrpcJs | undefined;
let protoLoaderModule: typeof ProtoLoader | undefined;
let protobufModule: typeof Protobuf | undefined;

/** `@grpc/grpc-js`. */
export const grpcJs = (): typeof GrpcJs => (grpcJsModule ??= require('@grpc/grpc-js') as typeof GrpcJs);

/** `@grpc/proto-loader`. */
export const protoLoader = (): typeof ProtoLoader => (protoLoaderModule ??= require('@grpc/proto-loader') as typeof ProtoLoader);

/** `protobufjs`. */
export const protobufjs = (): typeof Protobuf => (protobufModule ??= require('protobufjs') as typeof Protobuf);
