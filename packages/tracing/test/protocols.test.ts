import { Application, compose, errorCodeOf, HTTPError, isHTTPError, OPERATION_NAME, OPERATION_TYPE, type ContextKey, type ErrorCode, type Middleware, type ProcedureInfo, type RequestContext } from '@fw/core';
import { ContextVariables, markClientGone, type PluginHost } from '@fw/core/plugin';
import { isSpanContextValid, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import {
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
  EVENT_FW_CLIENT_CANCELLED,
  tracingPlugin,
  type TraceContext,
} from '../src/index.js';
import { onlySpan, PARENT_SPAN_ID, PARENT_TRACE_ID, PARENT_TRACEPARENT, parseTraceparent } from './support.js';

// A provider handed in through the `tracerProvider` option: nothing is registered globally and
// no SDK is started. The GraphQL and gRPC packages are stood in for by code doing exactly what
// the cross-protocol contract says they do.

// What the stand-in for the gRPC package uses of it: the codes of this file (@fw/grpc's
// GRPC_STATUS), its HTTP equivalents and its column of the error table, read for an HTTPError's code.
const GRPC_STATUS = { OK: 0, NOT_FOUND: 5, ALREADY_EXISTS: 6, FAILED_PRECONDITION: 9, INTERNAL: 13, UNAVAILABLE: 14 } as const;
const HTTP_OF_GRPC: Record<number, number> = { 0: 200, 5: 404, 6: 409, 9: 400, 13: 500, 14: 503 };
const GRPC_OF_CODE: Partial<Record<ErrorCode, number>> = {
  conflict: GRPC_STATUS.ALREADY_EXISTS,
  failed_precondition: GRPC_STATUS.FAILED_PRECONDITION,
  not_found: GRPC_STATUS.NOT_FOUND,
  unavailable: GRPC_STATUS.UNAVAILABLE,
};
const httpStatusFromGrpc = (code: number): number => HTTP_OF_GRPC[code] ?? 500;

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const plugin = tracingPlugin({ tracerProvider: provider });
const app = new Application({ onLog: () => undefined });
app.register(plugin);

let graphqlTrace: TraceContext | undefined;
/** Like the GraphQL package: claims the path and reports the operation through OPERATION_TYPE and OPERATION_NAME. */
const graphqlHandler: Middleware = async (ctx) => {
  await ctx.parseBody();
  const { query } = (ctx.body ?? {}) as { query?: string };
  graphqlTrace = ctx.trace;
  const match = /^\s*(query|mutation|subscription)\s*([_A-Za-z][_0-9A-Za-z]*)?/.exec(query ?? '');
  if (match === null) {
    ctx.json({ errors: [{ message: 'Syntax Error' }] }, 400);
    return;
  }
  ctx.set(OPERATION_TYPE, match[1]);
  ctx.set(OPERATION_NAME, match[2]);
  if (match[2] === 'Explode') throw new Error('resolver exploded');
  ctx.json({ data: { ok: true } });
};

/** The host the stand-in plugins were given: the gRPC stand-in runs the app's wrappers from it. */
let host: PluginHost | undefined;
app.register({
  name: 'graphql-and-grpc-stand-in',
  setup(given) {
    host = given;
    given.claimPath('/graphql', graphqlHandler, { protocol: 'graphql' });
  },
});

const post = (query: string, headers: Record<string, string> = {}) =>
  app.inject({ method: 'POST', url: '/graphql', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ query }) });

/**
 * A call context shaped like the gRPC package's: the request context with the called procedure, the
 * status the call ended with and the status it answers an error with. With another protocol name
 * (and no procedure) it stands for a protocol plugin's own context.
 */
class GrpcCallContext implements RequestContext {
  readonly protocol: string;
  // gRPC calls say POST: the called method is in `procedure`.
  readonly method = 'POST';
  readonly path: string;
  readonly procedure: ProcedureInfo | undefined;
  readonly headers: Record<string, string>;
  readonly ip = '127.0.0.1';
  state: Record<string, unknown> = {};
  user?: unknown;
  grpcCode: number | undefined = undefined;
  statusCode = 0;
  readonly metadata = new Map<string, string>();
  readonly signal = new AbortController().signal;
  readonly #variables = new ContextVariables();
  // Declared, not defined: present only once tracing has put them there.
  declare trace?: RequestContext['trace'];
  declare startSpan?: RequestContext['startSpan'];
  declare endSpan?: RequestContext['endSpan'];
  declare addEvent?: RequestContext['addEvent'];
  declare setAttributes?: RequestContext['setAttributes'];

  constructor(path: string, rpc: ProcedureInfo | undefined, metadata: Record<string, string>, protocol = 'grpc') {
    this.protocol = protocol;
    this.path = path;
    this.procedure = rpc;
    this.headers = { 'content-type': 'application/grpc', ...metadata };
  }

  get protocolStatus(): number | undefined {
    return this.grpcCode;
  }

  protocolStatusOf(error: unknown): number {
    if (!isHTTPError(error)) return GRPC_STATUS.INTERNAL;
    return GRPC_OF_CODE[errorCodeOf(error)] ?? GRPC_STATUS.INTERNAL;
  }

  setHeader(key: string, value: string): this {
    this.metadata.set(key, value);
    return this;
  }

  get<T>(key: ContextKey<T>): T {
    return this.#variables.get(key);
  }

  set<T>(key: ContextKey<T>, value: T): this {
    this.#variables.set(key, value);
    return this;
  }
}

function grpcContext(service: string, method: string, metadata: Record<string, string> = {}, withRpc = true): GrpcCallContext {
  return new GrpcCallContext(`/${service}/${method}`, withRpc ? { service, method } : undefined, metadata);
}

/**
 * Runs a call the way the gRPC package does: the app's wrappers around the handler; a handler's
 * answer sets grpcCode when the call finishes, a thrown error is mapped after the wrappers.
 */
async function runGrpc(ctx: GrpcCallContext, handler: (ctx: GrpcCallContext) => unknown): Promise<unknown> {
  const handle: Middleware<GrpcCallContext> = async (c) => {
    const code = (await handler(c)) as number | undefined;
    c.grpcCode = code ?? GRPC_STATUS.OK;
    c.statusCode = httpStatusFromGrpc(c.grpcCode);
  };
  const wrappers = host?.wrappers() ?? [];
  const chain = compose<GrpcCallContext>([...(wrappers as ReadonlyArray<Middleware<RequestContext>>), handle]);
  try {
    await chain(ctx);
    return undefined;
  } catch (err) {
    return err;
  }
}

beforeEach(() => exporter.reset());
afterAll(() => app.close());

describe('GraphQL operations', () => {
  it('names the span by operation type and name, read from OPERATION_TYPE and OPERATION_NAME when it ends', async () => {
    const res = await post('query GetUser { user { id } }');
    expect(res.statusCode).toBe(200);
    const span = onlySpan(exporter, 'query GetUser');
    expect(span.kind).toBe(SpanKind.SERVER);
    expect(span.attributes).toMatchObject({
      [ATTR_GRAPHQL_OPERATION_TYPE]: 'query',
      [ATTR_GRAPHQL_OPERATION_NAME]: 'GetUser',
      [ATTR_HTTP_REQUEST_METHOD]: 'POST',
      [ATTR_HTTP_ROUTE]: '/graphql',
      [ATTR_HTTP_RESPONSE_STATUS_CODE]: 200,
    });
    expect(graphqlTrace).toEqual({ traceId: span.spanContext().traceId, spanId: span.spanContext().spanId, protocol: 'graphql' });
  });

  it('names an anonymous operation by its type alone', async () => {
    await post('mutation { addUser { id } }');
    expect(onlySpan(exporter, 'mutation').attributes[ATTR_GRAPHQL_OPERATION_NAME]).toBeUndefined();
  });

  it('falls back to the HTTP name when no operation was reported', async () => {
    const res = await post('{{ not graphql');
    expect(res.statusCode).toBe(400);
    const span = onlySpan(exporter, 'POST /graphql');
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
    expect(span.attributes[ATTR_HTTP_RESPONSE_STATUS_CODE]).toBe(400);
  });

  it('continues an incoming trace and returns traceparent on the GraphQL response', async () => {
    const res = await post('query Me { me { id } }', { traceparent: PARENT_TRACEPARENT });
    const span = onlySpan(exporter, 'query Me');
    expect(span.parentSpanContext?.spanId).toBe(PARENT_SPAN_ID);
    expect(parseTraceparent(res.headers.traceparent)).toMatchObject({ traceId: PARENT_TRACE_ID, spanId: span.spanContext().spanId });
  });

  it('records an error thrown while executing the operation', async () => {
    const res = await post('mutation Explode { boom }');
    expect(res.statusCode).toBe(500);
    const span = onlySpan(exporter, 'mutation Explode');
    expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: 'resolver exploded' });
    expect(span.events.map((event) => event.name)).toEqual(['exception']);
  });
});

describe('gRPC calls', () => {
  it('names the span <package>.<Service>/<Method> with the rpc attributes and status 0', async () => {
    const ctx = grpcContext('users.v1.UserService', 'GetUser');
    let seen: TraceContext | undefined;
    expect(await runGrpc(ctx, (c) => {
      seen = c.trace;
    })).toBeUndefined();
    const span = onlySpan(exporter, 'users.v1.UserService/GetUser');
    expect(span.kind).toBe(SpanKind.SERVER);
    expect(span.attributes).toMatchObject({
      [ATTR_RPC_SYSTEM]: 'grpc',
      [ATTR_RPC_SERVICE]: 'users.v1.UserService',
      [ATTR_RPC_METHOD]: 'GetUser',
      [ATTR_RPC_GRPC_STATUS_CODE]: 0,
    });
    expect(span.attributes[ATTR_HTTP_REQUEST_METHOD]).toBeUndefined();
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
    expect(seen).toEqual({ traceId: span.spanContext().traceId, spanId: span.spanContext().spanId, protocol: 'grpc' });
  });

  it('continues a trace from the traceparent metadata and answers with traceparent metadata', async () => {
    const ctx = grpcContext('users.v1.UserService', 'GetUser', { traceparent: PARENT_TRACEPARENT });
    await runGrpc(ctx, () => undefined);
    const span = onlySpan(exporter, 'users.v1.UserService/GetUser');
    expect(span.spanContext().traceId).toBe(PARENT_TRACE_ID);
    expect(span.parentSpanContext?.spanId).toBe(PARENT_SPAN_ID);
    expect(parseTraceparent(ctx.metadata.get('traceparent'))).toMatchObject({ traceId: PARENT_TRACE_ID, spanId: span.spanContext().spanId });
  });

  it('records the status a handler answered with, as an error only for server-side codes', async () => {
    await runGrpc(grpcContext('users.v1.UserService', 'GetUser'), () => GRPC_STATUS.NOT_FOUND);
    const notFound = onlySpan(exporter, 'users.v1.UserService/GetUser');
    expect(notFound.attributes[ATTR_RPC_GRPC_STATUS_CODE]).toBe(GRPC_STATUS.NOT_FOUND);
    expect(notFound.status.code).toBe(SpanStatusCode.UNSET);
    exporter.reset();
    await runGrpc(grpcContext('users.v1.UserService', 'GetUser'), () => GRPC_STATUS.UNAVAILABLE);
    const unavailable = onlySpan(exporter, 'users.v1.UserService/GetUser');
    expect(unavailable.attributes[ATTR_RPC_GRPC_STATUS_CODE]).toBe(GRPC_STATUS.UNAVAILABLE);
    expect(unavailable.status.code).toBe(SpanStatusCode.ERROR);
    expect(unavailable.attributes[ATTR_ERROR_TYPE]).toBe(String(GRPC_STATUS.UNAVAILABLE));
  });

  it('maps a thrown error to the gRPC status the call will end with', async () => {
    const thrown = await runGrpc(grpcContext('orders.OrderService', 'Create'), () => {
      throw new Error('database down');
    });
    expect(thrown).toBeInstanceOf(Error);
    const internal = onlySpan(exporter, 'orders.OrderService/Create');
    expect(internal.attributes[ATTR_RPC_GRPC_STATUS_CODE]).toBe(GRPC_STATUS.INTERNAL);
    expect(internal.status).toEqual({ code: SpanStatusCode.ERROR, message: 'database down' });
    expect(internal.events.map((event) => event.name)).toEqual(['exception']);
    exporter.reset();
    await runGrpc(grpcContext('orders.OrderService', 'Create'), () => {
      throw new HTTPError(409, 'Order exists');
    });
    const conflict = onlySpan(exporter, 'orders.OrderService/Create');
    expect(conflict.attributes[ATTR_RPC_GRPC_STATUS_CODE]).toBe(GRPC_STATUS.ALREADY_EXISTS);
    expect(conflict.status.code).toBe(SpanStatusCode.UNSET);
  });

  it('maps a thrown HTTPError to the gRPC status of its own code', async () => {
    await runGrpc(grpcContext('orders.OrderService', 'Create'), () => {
      throw new HTTPError(409, 'Out of stock', undefined, { code: 'failed_precondition' });
    });
    expect(onlySpan(exporter, 'orders.OrderService/Create').attributes[ATTR_RPC_GRPC_STATUS_CODE]).toBe(GRPC_STATUS.FAILED_PRECONDITION);
  });

  it('gives gRPC handlers child spans, events and attributes', async () => {
    await runGrpc(grpcContext('users.v1.UserService', 'ListUsers'), (c) => {
      const child = c.startSpan?.('db.query');
      c.addEvent?.('page.loaded', { size: 20 });
      c.setAttributes?.({ 'app.page': 2 });
      c.endSpan?.(child);
    });
    const call = onlySpan(exporter, 'users.v1.UserService/ListUsers');
    expect(onlySpan(exporter, 'db.query').parentSpanContext?.spanId).toBe(call.spanContext().spanId);
    expect(call.events.map((event) => event.name)).toEqual(['page.loaded']);
    expect(call.attributes['app.page']).toBe(2);
  });

  it('derives service and method from the path when a context has no rpc field', async () => {
    await runGrpc(grpcContext('a.b.Svc', 'Do', {}, false), () => undefined);
    expect(onlySpan(exporter, 'a.b.Svc/Do').attributes).toMatchObject({ [ATTR_RPC_SERVICE]: 'a.b.Svc', [ATTR_RPC_METHOD]: 'Do' });
  });
});

describe('a client that cancels', () => {
  /** What node's timers/promises reject with when their signal aborts: an AbortError whose cause is the reason. */
  const aborted = (reason: unknown): Error => Object.assign(new Error('The operation was aborted', { cause: reason }), { name: 'AbortError' });

  it('marks neither the call span nor its child spans failed, and records the event instead of an exception', async () => {
    const reason = markClientGone(new Error('Call cancelled'));
    await runGrpc(grpcContext('orders.OrderService', 'Watch'), (c) => {
      const child = c.startSpan?.('operation watch');
      c.endSpan?.(child, aborted(reason));
      c.grpcCode = 1;
      throw reason;
    });
    for (const name of ['orders.OrderService/Watch', 'operation watch']) {
      const span = onlySpan(exporter, name);
      expect([name, span.status.code, span.events.map((event) => event.name), span.attributes[ATTR_ERROR_TYPE]]).toEqual([name, SpanStatusCode.UNSET, [EVENT_FW_CLIENT_CANCELLED], undefined]);
    }
  });

  it("records an abort error as the client's leaving only while the client is gone", async () => {
    const ctx = grpcContext('orders.OrderService', 'Watch');
    const controller = new AbortController();
    Object.defineProperty(ctx, 'signal', { value: controller.signal });
    await runGrpc(ctx, (c) => {
      c.endSpan?.(c.startSpan?.('before'), aborted(undefined));
      controller.abort(markClientGone(new Error('The client closed the connection')));
      c.endSpan?.(c.startSpan?.('after'), aborted(undefined));
    });
    expect(onlySpan(exporter, 'before').status.code).toBe(SpanStatusCode.ERROR);
    expect(onlySpan(exporter, 'after').status.code).toBe(SpanStatusCode.UNSET);
  });
});

describe("contexts core's HTTP pipeline does not serve", () => {
  it("traces a protocol plugin's own context, ending its span with the status its chain left", async () => {
    const ctx = new GrpcCallContext('/chat/rooms/1', undefined, { 'user-agent': 'ws-client' }, 'websocket');
    let seen: TraceContext | undefined;
    await runGrpc(ctx, (c) => {
      seen = c.trace;
    });
    const span = onlySpan(exporter, 'POST');
    expect(span.attributes).toMatchObject({ [ATTR_HTTP_REQUEST_METHOD]: 'POST', [ATTR_HTTP_RESPONSE_STATUS_CODE]: 200 });
    expect(span.attributes[ATTR_HTTP_ROUTE]).toBeUndefined();
    expect(span.attributes[ATTR_RPC_SYSTEM]).toBeUndefined();
    expect(seen?.protocol).toBe('websocket');
  });
});

describe('a provider given as an option', () => {
  it('is used as it is, without registering anything globally', async () => {
    await app.inject({ url: '/anything' });
    expect(plugin.source).toBe('option');
    expect(onlySpan(exporter, 'GET').parentSpanContext).toBeUndefined();
    expect(isSpanContextValid(trace.getTracer('probe').startSpan('probe').spanContext())).toBe(false);
    expect(propagation.fields()).toEqual([]);
  });
});
