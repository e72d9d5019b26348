/**
 * @fw/core — router, context, compose, errors and the node:http server of the fw framework.
 * Node built-ins only.
 */
export { Application } from './application.js';
export type { ApplicationConfig, ErrorHandler, ListenInfo, Plugin, TimeoutConfig } from './application.js';
export { compose } from './compose.js';
export type { ComposedMiddleware } from './compose.js';
export { Context } from './context.js';
export type { ContextSettings, TrustProxy } from './context.js';
export { HTTPError, errorBody, isHTTPError, statusText, toHTTPError } from './http-error.js';
export type { ErrorBody, HTTPErrorOptions } from './http-error.js';
export { GRPC_STATUS, grpcStatusOf, httpStatusFromGrpc, protocolStatus } from './status-map.js';
export type { ProtocolStatus } from './status-map.js';
export { ROUTE_META, ROUTE_SCHEMA, Router, joinPaths } from './router.js';
export type { RouteHandlers } from './router.js';
export { createAssetHandler, sendHtmlPage } from './static-assets.js';
export type { StaticAsset } from './static-assets.js';
export { TrieMatcher } from './internal/matcher.js';
export type { Matcher, MatchResult } from './internal/matcher.js';
export { parseQuery } from './internal/query.js';
export { parseJSON } from './internal/json.js';
export { escapeLogText, formatLogValue } from './internal/log-format.js';
export type { ParseJSONOptions } from './internal/json.js';
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
