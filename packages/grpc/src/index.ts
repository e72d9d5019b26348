/**
 * @fw/grpc — serves grpc-js services on their own port beside an fw application, with the app's
 * wrappers and (opt-in) middleware, its error mapping and its listen/close lifecycle; and the app's
 * operations, from .proto files it generates with stable field numbers.
 */
// The gRPC libraries load with the first call of one of these, not with the package.
export { createGrpcServiceRunner, describeOperations, findProtoChanges, generateProtos, grpcPlugin } from './lazy.js';
export type { GrpcPlugin } from './plugin.js';
export { validateGrpcConfig, GRPC_ADAPTER } from './validate-config.js';
export { GrpcContext } from './context.js';
export { GrpcError } from './grpc-error.js';
export { GRPC_STATUS, GRPC_STATUS_OF_CODE, grpcStatusOf, httpStatusFromGrpc } from './grpc-status.js';
export { grpcMethodName } from './operations/binding.js';
export type { OperationGrpc } from './operations/binding.js';
export type { GrpcErrorOptions } from './grpc-error.js';
export { DEFAULT_LOADER_OPTIONS, DEFAULT_MAX_CONNECTION_IDLE_MS, GRPC_DEFAULTS } from './internal/config.js';
export { ERROR_DETAILS_KEY, INTERNAL_DETAILS } from './internal/status.js';
export { fieldViolations, STATUS_DETAILS_KEY } from './internal/rich-status.js';
export type { FieldViolation } from './internal/rich-status.js';
export type { GenerateProtosOptions } from './operations/generate.js';
export type { DescribedMethod, DescribedOperations, DescribeOperationsOptions } from './operations/describe.js';
export { hasNoSideEffects, operationMethodPaths } from './operations/model.js';
export type { GeneratedProto } from './operations/print.js';
export type {
  Awaitable,
  GrpcAnyServerCall,
  GrpcAddress,
  GrpcBidiCall,
  GrpcBidiHandler,
  GrpcCall,
  GrpcCallExtras,
  GrpcCallback,
  GrpcClientStreamCall,
  GrpcClientStreamHandler,
  GrpcConfig,
  GrpcForeignCallInit,
  GrpcForeignStatus,
  GrpcForeignStream,
  GrpcForeignUnaryResult,
  GrpcServiceMethod,
  GrpcServiceRunner,
  GrpcServiceRunnerHost,
  GrpcServicesConfig,
  GrpcContextSettings,
  GrpcHealthWatchLimits,
  GrpcLoaderOptions,
  GrpcMethodImplementation,
  GrpcMethodType,
  GrpcMiddleware,
  GrpcPackageDefinition,
  GrpcRpcInfo,
  RpcInfo,
  GrpcServerStreamCall,
  GrpcServerStreamHandler,
  GrpcServiceImplementation,
  GrpcServingStatus,
  GrpcStatusObject,
  GrpcTraceContext,
  GrpcUnaryCall,
  GrpcUnaryHandler,
} from './types.js';
export type { ProtoBreak, ProtoChange } from './operations/breaking.js';
