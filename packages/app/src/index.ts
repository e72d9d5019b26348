/**
 * @fw/app — `createApp` and the public names of every fw package in one import.
 */
export { createApp } from './create-app.js';
export type { AppOptions, App } from './create-app.js';
export {
  Application,
  Context,
  GRPC_STATUS,
  HTTPError,
  HTTP_METHODS,
  ROUTE_META,
  ROUTE_SCHEMA,
  Router,
  compose,
  errorBody,
  httpStatusFromGrpc,
  isHTTPError,
  protocolStatus,
  toHTTPError,
} from '@fw/core';
export type {
  AnyMiddleware,
  ApplicationConfig,
  ErrorBody,
  ErrorHandler,
  HTTPMethod,
  InjectRequest,
  InjectResponse,
  ListenInfo,
  Middleware,
  Next,
  Plugin,
  QueryRecord,
  Route,
  RouteContext,
  RouteDefinition,
  RouteMatch,
  RouteMeta,
  RouteSchema,
  RouterConfig,
  TimeoutConfig,
  TrustProxy,
} from '@fw/core';
