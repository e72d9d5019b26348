import { Application, compose, GRPC_STATUS, HTTPError, httpStatusFromGrpc, type Middleware } from '@fw/core';
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
  tracingPlugin,
  type TraceableContext,
  type TraceContext,
} from '../src/index.js';
import { onlySpan, PARENT_SPAN_ID, PARENT_TRACE_ID, PARENT_TRACEPARENT, parseTraceparent } from './support.js';

// A provider handed in through the `tracerProvider` option: nothing is registered globally and
// no SDK is started. The GraphQL and gRPC packages are stood in for by code doing exactly what
// the cross-protocol contract says they do.
const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const plugin = tracingPlugin({ tracerProvider: provider });
const app = new Application({ onLog: () => undefined });
app.register(plugin);

let graphqlTrace: TraceContext | undefined;
/** Like the GraphQL package: claims the path and reports the operation through setAttributes. */
app.claimPath(
  '/graphql',
  async (ctx) => {
    await ctx.parseBody();
    const { query } = (ctx.body ?? {}) as { query?: string };
    graphqlTrace = ctx.trace;
    const match = /^\s*(query|mutation|subscription)\s*([_A-Za-z][_0-9A-Za-z]*)?/.exec(query ?? '');
    if (match === null) {
      ctx.json({ errors: [{ message: 'Syntax Error' }] }, 400);
      return;
    }
    ctx.setAttributes?.({ [ATTR_GRAPHQL_OPERATION_TYPE]: match[1]!, ...(match[2] ? { [ATTR_GRAPHQL_OPERATION_NAME]: match[2] } : {}) });
    if (match[2] === 'Explode') throw new Error('resolver exploded');
    ctx.json({ data: { ok: true } });
  },
  { protocol: 'graphql' },
);

const post = (query: string, headers: Record<string, string> = {}) =>
  app.inject({ method: 'POST', url: '/graphql', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ query }) });

/** A call context shaped like the gRPC package's, per the cross-protocol contract. */
interface GrpcCallContext extends TraceableContext {
  state: Record<string, unknown>;
  user?: unknown;
  deadline: number;
  grpcCode?: number;
  statusCode: number;
  metadata: Map<string, string>;
  call: object;
}

function grpcContext(service: string, method: string, metadata: Record<string, string> = {}): GrpcCallContext {
  const path = `/${service}/${method}`;
  const sent = new Map<string, string>();
  return {
    protocol: 'grpc',
    method: path,
    path,
    rpc: { service, method },
    headers: { 'content-type': 'application/grpc', ...metadata },
    state: {},
    ip: '127.0.0.1',
    deadline: Infinity,
    statusCode: 0,
    metadata: sent,
    setHeader(key: string, value: string) {
      sent.set(key, value);
      return this;
    },
    call: {},
  };
}

/**
 * Runs a call the way the gRPC package does: the app's wrappers around the handler; a callback
 * error sets grpcCode when the call finishes, a thrown error is mapped after the wrappers.
 */
async function runGrpc(ctx: GrpcCallContext, handler: (ctx: GrpcCallContext) => unknown): Promise<unknown> {
  const handle: Middleware<GrpcCallContext> = async (c) => {
    const code = (await handler(c)) as number | undefined;
    c.grpcCode = code ?? GRPC_STATUS.OK;
    c.statusCode = httpStatusFromGrpc(c.grpcCode);
  };
  const chain = compose<GrpcCallContext>([...(app.getWrappers() as unknown as Middleware<GrpcCallContext>[]), handle]);
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
  it('names the span by operation type and name, from what the GraphQL package reports', async () => {
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
    const ctx = grpcContext('a.b.Svc', 'Do');
    await runGrpc({ ...ctx, rpc: undefined }, () => undefined);
    expect(onlySpan(exporter, 'a.b.Svc/Do').attributes).toMatchObject({ [ATTR_RPC_SERVICE]: 'a.b.Svc', [ATTR_RPC_METHOD]: 'Do' });
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
