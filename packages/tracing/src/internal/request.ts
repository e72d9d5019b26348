import {
  isHttpContext,
  createContextKey,
  isHTTPError,
  OPERATION_NAME,
  OPERATION_TYPE,
  toHTTPError,
  type Context,
  type Next,
  type ProcedureInfo,
  type RequestContext,
  type TraceSpan,
} from '@fw/core';
import { CLIENT_CLOSED_REQUEST, isClientGone } from '@fw/core/plugin';
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
  EVENT_FW_CLIENT_CANCELLED,
  GRPC_SERVER_ERROR_CODES,
  graphqlSpanName,
  grpcSpanName,
  httpSpanName,
  isHttpServerError,
  RPC_SYSTEM_VALUE_GRPC,
} from '../semconv.js';
import { formatTraceparent } from './w3c.js';

type Headers = RequestContext['headers'];

/** Everything a traced request needs, resolved once the tracer provider is known. */
export interface RequestTracer {
  readonly tracer: Tracer;
  readonly propagator: Pick<TextMapPropagator<Headers>, 'extract'>;
  readonly responseHeader: string | false;
  readonly activeContext: boolean;
  /** Where a span processor's failure goes (the app's log): it never fails the request. */
  readonly log: TracingLog;
}

/** The app's log, as the plugin host gives it. */
export type TracingLog = (message: string, error?: unknown) => void;

/** An HTTP request's server span once its chain has run: it ends when the status sent is known. */
interface PendingSpan {
  readonly span: Span;
  failed: boolean;
  error: unknown;
}

/** Carries an HTTP request's server span from the wrapper to the response hook. */
const SERVER_SPAN = createContextKey<PendingSpan>('fw.tracing.serverSpan');

const HEADER_GETTER: TextMapGetter<Headers> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => carrier[key],
};

/**
 * Runs `next` inside a SERVER span for the request, whatever its protocol, and installs the
 * context's tracing helpers. The span is named and finished from what the context says once the
 * request is done: the matched route, the operation (GraphQL) and the status sent (HTTP, in
 * `endHttpSpan`), the status the call ended with (gRPC, here).
 */
export function traceRequest(rt: RequestTracer, ctx: RequestContext, next: Next): Promise<void> {
  const protocol = ctx.protocol;
  const grpc = protocol === 'grpc';
  const log = rt.log;
  let parent: OtelContext;
  let span: Span;
  try {
    parent = rt.propagator.extract(ROOT_CONTEXT, ctx.headers, HEADER_GETTER);
    span = grpc ? startGrpcSpan(rt.tracer, ctx, parent) : startHttpSpan(rt.tracer, ctx, parent);
  } catch (err) {
    // Tracing never changes an answer: the request runs untraced.
    log(`${PROCESSOR_FAILED} started the span of ${ctx.method} ${ctx.path}; the request runs untraced`, err);
    return next();
  }
  const active = trace.setSpan(parent, span);
  const { traceId, spanId, traceFlags } = span.spanContext();

  ctx.trace = { traceId, spanId, protocol };
  ctx.startSpan = (name, attributes) => {
    try {
      return rt.tracer.startSpan(name, attributes === undefined ? undefined : { attributes }, active);
    } catch (err) {
      log(`${PROCESSOR_FAILED} started the span "${name}"; it is not recorded`, err);
      return undefined;
    }
  };
  ctx.endSpan = (child, error) => endSpan(child, error, ctx, log);
  ctx.addEvent = (name, attributes) => {
    span.addEvent(name, attributes);
  };
  ctx.setAttributes = (attributes) => {
    span.setAttributes(attributes);
  };
  // Set before the chain runs, so error responses and raw writes carry it too.
  if (rt.responseHeader !== false) ctx.setHeader(rt.responseHeader, formatTraceparent(traceId, spanId, traceFlags));

  // HTTP: the span ends in the response hook, once the error handler has answered and the status
  // sent is known. Anything else ends here, when its chain has finished.
  const pending: PendingSpan | undefined = isHttpContext(ctx) ? { span, failed: false, error: undefined } : undefined;
  if (pending !== undefined) ctx.set(SERVER_SPAN, pending);

  let run: Promise<void>;
  try {
    run = rt.activeContext ? context.with(active, next) : next();
  } catch (err) {
    run = rejection(err);
  }
  if (pending !== undefined) {
    return run.then(undefined, (err: unknown) => {
      pending.failed = true;
      pending.error = err;
      throw err;
    });
  }
  return run.then(
    () => {
      if (grpc) finishGrpcSpan(span, ctx, false, undefined, log);
      else finishHttpSpan(span, ctx, ctx.statusCode || 404, false, undefined, log);
    },
    (err: unknown) => {
      if (grpc) finishGrpcSpan(span, ctx, true, err, log);
      else finishHttpSpan(span, ctx, isClientGone(err, ctx) ? CLIENT_CLOSED_REQUEST : toHTTPError(err).statusCode, true, err, log);
      throw err;
    },
  );
}

/** The response hook: ends the server span of an HTTP request with the status that was sent. */
export function endHttpSpan(ctx: Context, status: number, log: TracingLog): void {
  const pending = ctx.get(SERVER_SPAN);
  // Requests answered before the chain ran (414, 503 while closing) and ignored ones have none.
  if (pending === undefined) return;
  ctx.set(SERVER_SPAN, undefined);
  finishHttpSpan(pending.span, ctx, status, pending.failed, pending.error, log);
}

/**
 * `ctx.endSpan`: ends a span, recording `error` (when given) as an exception and an error status;
 * an error that says the client of `ctx` cancelled or left (`isClientGone`) is recorded as the
 * event `fw.client.cancelled` instead, leaving the status unset.
 */
export function endSpan(span: TraceSpan | undefined, error: unknown, ctx: RequestContext, log: TracingLog): void {
  if (span === undefined) return;
  if (error !== undefined && error !== null) {
    if (isClientGone(error, ctx)) span.addEvent(EVENT_FW_CLIENT_CANCELLED);
    else if (isOtelSpan(span)) {
      span.recordException(toException(error));
      span.setStatus({ code: SpanStatusCode.ERROR, message: errorMessage(error) });
    }
  }
  endQuietly(span, log);
}

/** What a span processor's failure is logged as (its `onStart` or `onEnd` threw). */
const PROCESSOR_FAILED = '@fw/tracing: a span processor threw when it';

/**
 * Ends `span`. The SDK calls every span processor's `onEnd` inside `end()` and lets what one throws
 * through; tracing never changes an answer, so that is logged and the request goes on.
 */
function endQuietly(span: Pick<Span, 'end'>, log: TracingLog): void {
  try {
    span.end();
  } catch (err) {
    log(`${PROCESSOR_FAILED} ended a span; that span may not be exported`, err);
  }
}

/** Records how a request failed on its server span: an exception, or the client's leaving. */
function recordFailure(span: Span, ctx: RequestContext, error: unknown): boolean {
  if (isClientGone(error, ctx)) {
    span.addEvent(EVENT_FW_CLIENT_CANCELLED);
    return false;
  }
  span.recordException(toException(error));
  return true;
}

/** Whether a span handed to `endSpan` can record an error (those `startSpan` made can). */
function isOtelSpan(span: TraceSpan): span is TraceSpan & Pick<Span, 'recordException' | 'setStatus'> {
  return 'recordException' in span && typeof span.recordException === 'function' && 'setStatus' in span && typeof span.setStatus === 'function';
}

function startHttpSpan(tracer: Tracer, ctx: RequestContext, parent: OtelContext): Span {
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

function startGrpcSpan(tracer: Tracer, ctx: RequestContext, parent: OtelContext): Span {
  // The called RPC is the context's `procedure`; a gRPC context's `method` is the HTTP/2 verb, POST.
  const { service, method } = procedureOf(ctx);
  const attributes: Attributes = {
    [ATTR_RPC_SYSTEM]: RPC_SYSTEM_VALUE_GRPC,
    [ATTR_RPC_SERVICE]: service,
    [ATTR_RPC_METHOD]: method,
  };
  const ip = ctx.ip;
  if (ip) attributes[ATTR_CLIENT_ADDRESS] = ip;
  return tracer.startSpan(grpcSpanName(service, method), { kind: SpanKind.SERVER, attributes }, parent);
}

function finishHttpSpan(span: Span, ctx: RequestContext, status: number, failed: boolean, error: unknown, log: TracingLog): void {
  const graphql = ctx.protocol === 'graphql';
  // A claimed path (the GraphQL endpoint) is exact, so the path is its route template.
  const route = graphql ? ctx.path : isHttpContext(ctx) ? ctx.route?.path : undefined;
  if (route !== undefined) span.setAttribute(ATTR_HTTP_ROUTE, route);
  span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status);
  const httpName = httpSpanName(ctx.method, route);
  if (graphql) {
    // Read now: the operation is known only once the document has been parsed.
    const type = ctx.get(OPERATION_TYPE);
    const name = ctx.get(OPERATION_NAME);
    if (type !== undefined) span.setAttribute(ATTR_GRAPHQL_OPERATION_TYPE, type);
    if (name !== undefined && name !== '') span.setAttribute(ATTR_GRAPHQL_OPERATION_NAME, name);
    span.updateName(graphqlSpanName(type, name, httpName));
  } else {
    span.updateName(httpName);
  }
  const faulted = failed && recordFailure(span, ctx, error);
  if (isHttpServerError(status)) fail(span, faulted, error, String(status));
  endQuietly(span, log);
}

function finishGrpcSpan(span: Span, ctx: RequestContext, failed: boolean, error: unknown, log: TracingLog): void {
  const given = ctx.protocolStatus;
  // A wrapper sees a thrown error before the gRPC package maps it: the context says how it will.
  const code = given ?? (failed ? (ctx.protocolStatusOf?.(error) ?? GRPC_INTERNAL) : 0);
  span.setAttribute(ATTR_RPC_GRPC_STATUS_CODE, code);
  const faulted = failed && recordFailure(span, ctx, error);
  if (GRPC_SERVER_ERROR_CODES.has(code) && (faulted || !failed)) fail(span, faulted, error, String(code));
  endQuietly(span, log);
}

/** What a gRPC call failing with an error its context cannot map is answered with: INTERNAL. */
const GRPC_INTERNAL = 13;

function fail(span: Span, failed: boolean, error: unknown, code: string): void {
  // An HTTPError chose its status on purpose: the status is the error class. Anything else
  // escaped the handler: its type is.
  const type = failed && !isHTTPError(error) ? errorName(error) : code;
  span.setAttribute(ATTR_ERROR_TYPE, type);
  span.setStatus({ code: SpanStatusCode.ERROR, message: failed ? errorMessage(error) : undefined });
}

function procedureOf(ctx: RequestContext): ProcedureInfo {
  if (ctx.procedure !== undefined) return ctx.procedure;
  // `/<package>.<Service>/<Method>`, should a context come without `procedure`.
  const path = ctx.path;
  const slash = path.lastIndexOf('/');
  return { service: path.slice(path.startsWith('/') ? 1 : 0, Math.max(slash, 0)), method: path.slice(slash + 1) };
}

/** A promise rejected with `reason`, as if `next` had returned it rather than thrown. */
async function rejection(reason: unknown): Promise<never> {
  throw reason;
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
