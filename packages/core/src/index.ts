/**
 * @fw/core — router, context, compose, errors and the node:http server of the fw framework.
 * Node built-ins only. Plugin authors find the host and shared plumbing in `@fw/core/plugin`.
 */
export { Application } from './application.js';
export type { RouteMethod } from './application.js';
export type { ApplicationConfig, StreamsConfig } from './config.js';
export { STREAM_DEFAULTS } from './config.js';
export { MULTIPART_DEFAULTS, MULTIPART_OPTION_NAMES } from './multipart.js';
export type { MultipartConfig, MultipartField, MultipartFile, MultipartForm, MultipartPart, SavedFile } from './multipart.js';
export { isTracked, tracked } from './stream.js';
export type { StreamEvent, Tracked } from './stream.js';
export type { SSEOptions } from './sse.js';
export type { ErrorHandler } from './responder.js';
export type { TimeoutConfig } from './server.js';
export type { ListenInfo } from './plugin-host.js';
export { compose } from './compose.js';
export type { ComposedMiddleware } from './compose.js';
export { Context, isHttpContext } from './context.js';
export type { TrustProxy } from './context.js';
export { createContextKey, OPERATION_NAME, OPERATION_TYPE } from './request-context.js';
export type {
  ContextKey,
  ContextKeyOptions,
  ProcedureInfo,
  ProtocolName,
  ProtocolNames,
  RequestContext,
  TraceAttributes,
  TraceAttributeValue,
  TraceInfo,
  TraceSpan,
} from './request-context.js';
export { HTTPError, errorBody, isHTTPError, statusText, toHTTPError } from './http-error.js';
export type { ErrorBody, HTTPErrorOptions } from './http-error.js';
export { ValidationError, isValidationError } from './validation-error.js';
export type { ValidationErrorOptions, ValidationIssue } from './validation-error.js';
export { ERROR_CODE_STATUS, errorCodeOf } from './error-code.js';
export { deadlineExceeded, timeRemaining } from './deadline.js';
export type { ErrorCode, ErrorCodeSource } from './error-code.js';
export { isOperation } from './operation.js';
export type {
  FieldShape,
  InputOrigin,
  ObjectShape,
  Operation,
  OperationBodyType,
  OperationProcedure,
  OperationRest,
  OperationRootField,
  ScalarConstraints,
  ScalarKind,
  ShapeAnnotations,
  TypeShape,
} from './operation.js';
export { Router, joinPaths } from './router.js';
export type { RouteHandlers } from './router.js';
export { ROUTE_META, ROUTE_SCHEMA, withMeta } from './route-meta.js';
export type { DeclaredRouteMeta, WithMeta } from './route-meta.js';
export type { InjectRequest, InjectResponse } from './internal/inject.js';
export { HTTP_METHODS } from './types.js';
export type {
  AnyMiddleware,
  HTTPMethod,
  Middleware,
  Next,
  ParamNames,
  ParamsOf,
  QueryRecord,
  RawRequest,
  RawResponse,
  Route,
  RouteContext,
  RouteDefinition,
  RouteMatch,
  RouteMeta,
  RouteSchema,
  RouterConfig,
  SchemaLike,
} from './types.js';
