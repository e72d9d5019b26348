// `@fw/grpc`'s functions and classes on the root entry, loaded on first use (see
// ../internal/lazy.ts); when `@fw/grpc` or @grpc/grpc-js is not installed, the first use names the
// packages to install.
import type * as R from '@fw/grpc';
import { lazyClass, lazyFunction } from '../internal/lazy.js';
import { loadGrpc as load } from '../internal/optional.js';

/** `@fw/grpc`'s `generateProtos`, loaded on first use. */
export const generateProtos: typeof R.generateProtos = lazyFunction('generateProtos', () => load().generateProtos);
/** `@fw/grpc`'s `grpcMethodName`, loaded on first use. */
export const grpcMethodName: typeof R.grpcMethodName = lazyFunction('grpcMethodName', () => load().grpcMethodName);
/** `@fw/grpc`'s `grpcStatusOf`, loaded on first use. */
export const grpcStatusOf: typeof R.grpcStatusOf = lazyFunction('grpcStatusOf', () => load().grpcStatusOf);
/** `@fw/grpc`'s `httpStatusFromGrpc`, loaded on first use. */
export const httpStatusFromGrpc: typeof R.httpStatusFromGrpc = lazyFunction('httpStatusFromGrpc', () => load().httpStatusFromGrpc);
/** `@fw/grpc`'s `grpcPlugin`, loaded on first use. */
export const grpcPlugin: typeof R.grpcPlugin = lazyFunction('grpcPlugin', () => load().grpcPlugin);
/** `@fw/grpc`'s `validateGrpcConfig`, loaded on first use. */
export const validateGrpcConfig: typeof R.validateGrpcConfig = lazyFunction('validateGrpcConfig', () => load().validateGrpcConfig);
/** `@fw/grpc`'s `GrpcContext` class, loaded on first use. */
export const GrpcContext: typeof R.GrpcContext = lazyClass('GrpcContext', () => load().GrpcContext);
/** An instance of `@fw/grpc`'s `GrpcContext`. */
export type GrpcContext<TRequest = unknown> = R.GrpcContext<TRequest>;
/** `@fw/grpc`'s `GrpcError` class, loaded on first use. */
export const GrpcError: typeof R.GrpcError = lazyClass('GrpcError', () => load().GrpcError);
/** An instance of `@fw/grpc`'s `GrpcError`. */
export type GrpcError = R.GrpcError;
/** `@fw/grpc`'s `findProtoChanges`, loaded on first use. */
export const findProtoChanges: typeof R.findProtoChanges = lazyFunction('findProtoChanges', () => load().findProtoChanges);
