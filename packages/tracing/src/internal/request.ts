import { isHTTPError, protocolStatus, toHTTPError, type Next } from '@fw/core';
import {
  context,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context as OtelContext,
  type Exception,
  type Span,
  type TextMapGetter,
  type TextMapPropagator,
  type Tracer,
} from '@opentelemetry/api';
import {
  ATTR_CLIENT_ADDRESS,
  ATTR_ERROR_TYPE,
  ATTR_GRAPHQL_OPERATION_NAME,
  ATTR_GRAPHQL_OPERATION_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_RPC_GRPC_STATUS_CODE,
  ATTR_RPC_METHOD,
  ATTR_RPC_SERVICE,
  ATTR_RPC_SYSTEM,
  ATTR_URL_PATH,
  ATTR_URL_SCHEME,
  ATTR_USER_AGENT_ORIGINAL,
  GRPC_SERVER_ERROR_CODES,
  graphqlSpanName,
  grpcSpanName,
  httpSpanName,
  isHttpServerError,
  RPC_SYSTEM_VALUE_GRPC,
} from '../semconv.js';
import type { TraceableContext } from '../types.js';
import { formatTraceparent } from './w3c.js';

type Headers = TraceableContext['headers'];

/** Everything a traced request needs, resolved once the tracer provider is known. */
export interface RequestTracer {
  readonly tracer: Tracer;
  readonly propagator: Pick<TextMapPropagator<Headers>, 'extract'>;
  readonly responseHeader: string | false;
  readonly activeContext: boolean;
}

const HEADER_GETTER: TextMapGetter<Headers> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => carrier[key],
};

/**
 * Runs `next` inside a SERVER span for the request, whatever its protocol, and installs the
 * context's tracing helpers. The span is named and finished from what the context says once the
 * chain is done: the matched route (HTTP), the operation (GraphQL), the status (gRPC).
 */
export function traceRequest(rt: RequestTracer, ctx: TraceableContext, next: Next): Promise<void> {
  const protocol = ctx.protocol;
  const grpc = protocol === 'grpc';
  const parent = rt.propagator.extract(ROOT_CONTEXT, ctx.headers, HEADER_GETTER);
  const span = grpc ? startGrpcSpan(rt.tracer, ctx, parent) : startHttpSpan(rt.tracer, ctx, parent);
  const active = trace.setSpan(parent, span);
  const { traceId, spanId, traceFlags } = span.spanContext();
  // The GraphQL package reports the operation through setAttributes; the span is named from it.
  let operationType: string | undefined;
  let operationName: string | undefined;

  ctx.trace = { traceId, spanId, protocol };
  ctx.startSpan = (name, attributes) => rt.tracer.startSpan(name, attributes === undefined ? undefined : { attributes }, active);
  ctx.endSpan = endSpan;
  ctx.addEvent = (name, attributes) => {
    span.addEvent(name, attributes);
  };
  ctx.setAttributes = (attributes) => {
    span.setAttributes(attributes);
    const type = attributes[ATTR_GRAPHQL_OPERATION_TYPE];
    if (typeof type === 'string') operationType = type;
    const name = attributes[ATTR_GRAPHQL_OPERATION_NAME];
    if (typeof name === 'string') operationName = name;
  };
  // Set before the chain runs, so error responses and raw writes carry it too.
  if (rt.responseHeader !== false) ctx.setHeader(rt.responseHeader, formatTraceparent(traceId, spanId, traceFlags));

  let run: Promise<void>;
  try {
    run = rt.activeContext ? context.with(active, next) : next();
  } catch (err) {
    run = Promise.reject(err);
  }
  return run.then(
    () => {
      if (grpc) finishGrpcSpan(span, ctx, false, undefined);
      else finishHttpSpan(span, ctx, false, undefined, operationType, operationName);
    },
    (err: unknown) => {
      if (grpc) finishGrpcSpan(span, ctx, true, err);
      else finishHttpSpan(span, ctx, true, err, operationType, operationName);
      throw err;
    },
  );
}

/** `ctx.endSpan`: ends a span, recording `error` (when given) as an exception and an error status. */
export function endSpan(span: Span | undefined, error?: unknown): void {
  if (span === undefined) return;
  if (error !== undefined && error !== null) {
    span.recordException(toException(error));
    span.setStatus({ code: SpanStatusCode.ERROR, message: errorMessage(error) });
  }
  span.end();
}

function startHttpSpan(tracer: Tracer, ctx: TraceableContext, parent: OtelContext): Span {
  const attributes: Attributes = {
    [ATTR_HTTP_REQUEST_METHOD]: ctx.method,
    [ATTR_URL_PATH]: ctx.path,
    [ATTR_URL_SCHEME]: 'http',
  };
  const agent = ctx.headers['user-agent'];
  if (typeof agent === 'string') attributes[ATTR_USER_AGENT_ORIGINAL] = agent;
  const ip = ctx.ip;
  if (ip) attributes[ATTR_CLIENT_ADDRESS] = ip;
  // Named `<METHOD>` until the route is known (semantic conventions' name for unmatched requests).
  return tracer.startSpan(ctx.method, { kind: SpanKind.SERVER, attributes }, parent);
}

function startGrpcSpan(tracer: Tracer, ctx: TraceableContext, parent: OtelContext): Span {
  const { service, method } = rpcOf(ctx);
  const attributes: Attributes = {
    [ATTR_RPC_SYSTEM]: RPC_SYSTEM_VALUE_GRPC,
    [ATTR_RPC_SERVICE]: service,
    [ATTR_RPC_METHOD]: method,
  };
  const ip = ctx.ip;
  if (ip) attributes[ATTR_CLIENT_ADDRESS] = ip;
  return tracer.startSpan(grpcSpanName(service, method), { kind: SpanKind.SERVER, attributes }, parent);
}

function finishHttpSpan(span: Span, ctx: TraceableContext, failed: boolean, error: unknown, opType: string | undefined, opName: string | undefined): void {
  // A thrown error becomes the status the error handler sends; nothing answered becomes the 404.
  const status = failed ? toHTTPError(error).statusCode : ctx.statusCode || 404;
  const graphql = ctx.protocol === 'graphql';
  // A claimed path (the GraphQL endpoint) is exact, so the path is its route template.
  const route = graphql ? ctx.path : ctx.route?.path;
  if (route !== undefined) span.setAttribute(ATTR_HTTP_ROUTE, route);
  span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status);
  const httpName = httpSpanName(ctx.method, route);
  span.updateName(graphql ? graphqlSpanName(opType, opName, httpName) : httpName);
  if (failed) span.recordException(toException(error));
  if (isHttpServerError(status)) fail(span, failed, error, String(status));
  span.end();
}

function finishGrpcSpan(span: Span, ctx: TraceableContext, failed: boolean, error: unknown): void {
  const given = ctx.grpcCode;
  // A wrapper sees a thrown error before the gRPC package maps it, so map it the same way here.
  const code = typeof given === 'number' ? given : failed ? protocolStatus(toHTTPError(error).statusCode).grpc : 0;
  span.setAttribute(ATTR_RPC_GRPC_STATUS_CODE, code);
  if (failed) span.recordException(toException(error));
  if (GRPC_SERVER_ERROR_CODES.has(code)) fail(span, failed, error, String(code));
  span.end();
}

function fail(span: Span, failed: boolean, error: unknown, code: string): void {
  // An HTTPError chose its status on purpose: the status is the error class. Anything else
  // escaped the handler: its type is.
  const type = failed && !isHTTPError(error) ? errorName(error) : code;
  span.setAttribute(ATTR_ERROR_TYPE, type);
  span.setStatus({ code: SpanStatusCode.ERROR, message: failed ? errorMessage(error) : undefined });
}

function rpcOf(ctx: TraceableContext): { service: string; method: string } {
  if (ctx.rpc !== undefined) return ctx.rpc;
  // `/<package>.<Service>/<Method>`, should a context come without `rpc`.
  const path = ctx.path;
  const slash = path.lastIndexOf('/');
  return { service: path.slice(path.startsWith('/') ? 1 : 0, Math.max(slash, 0)), method: path.slice(slash + 1) };
}

function toException(error: unknown): Exception {
  if (typeof error === 'string' || error instanceof Error) return error;
  if (typeof error === 'object' && error !== null && ('message' in error || 'name' in error || 'code' in error)) return error as Exception;
  return String(error);
}

function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === 'object' && error !== null && typeof (error as { message?: unknown }).message === 'string') return (error as { message: string }).message;
  return String(error);
}

function errorName(error: unknown): string {
  if (error instanceof Error) return error.constructor?.name || error.name || 'Error';
  return typeof error === 'object' && error !== null ? 'Error' : typeof error;
}
