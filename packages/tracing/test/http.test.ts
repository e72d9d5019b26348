import { Application, HTTPError } from '@fw/core';
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import {
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_SERVICE_NAME,
  ATTR_URL_PATH,
  ATTR_URL_SCHEME,
  ATTR_USER_AGENT_ORIGINAL,
  TRACER_NAME,
  tracingPlugin,
  type TraceContext,
} from '../src/index.js';
import { onlySpan, PARENT_SPAN_ID, PARENT_TRACE_ID, PARENT_TRACEPARENT, parseTraceparent } from './support.js';

// These tests go through the default path: no provider is registered, so the plugin starts the
// OpenTelemetry Node SDK, with an in-memory exporter instead of OTLP.
const exporter = new InMemorySpanExporter();
const plugin = tracingPlugin({
  serviceName: 'http-test',
  spanProcessors: [new SimpleSpanProcessor(exporter)],
  ignore: (ctx) => ctx.path === '/healthz',
});
const app = new Application({ onLog: () => undefined });
app.register(plugin);

let seenInHandler: { trace?: TraceContext; activeSpanId?: string; hasHelpers: boolean } | undefined;
app.use(async (ctx, next) => {
  if (ctx.headers['x-fail-in-middleware'] !== undefined) throw new Error('middleware broke');
  ctx.setAttributes?.({ 'app.tenant': 'acme' });
  await next();
});
app.get('/users/:id', (ctx) => {
  seenInHandler = { trace: ctx.trace, activeSpanId: trace.getActiveSpan()?.spanContext().spanId, hasHelpers: 'startSpan' in ctx };
  ctx.json({ id: ctx.params.id });
});
app.group('/api/v1', (r) => r.post('/orders/:orderId/items', (ctx) => ctx.json({ ok: true }, 201)));
app.get('/boom', () => {
  throw new Error('kaput');
});
app.get('/missing', () => {
  throw new HTTPError(404, 'No such thing');
});
app.get('/unavailable', (ctx) => ctx.json({ busy: true }, 503));
app.get('/work', async (ctx) => {
  const span = ctx.startSpan?.('db.query', { 'db.system.name': 'postgresql' });
  ctx.addEvent?.('cache.miss', { key: 'user:1' });
  ctx.setAttributes?.({ 'app.user_id': '1', 'app.items': 3 });
  await new Promise((resolve) => setTimeout(resolve, 2));
  ctx.endSpan?.(span);
  const failing = ctx.startSpan?.('payment.charge');
  ctx.endSpan?.(failing, new Error('card declined'));
  ctx.json({ done: true });
});
app.get('/healthz', (ctx) => ctx.json({ ok: true, traced: ctx.trace !== undefined }));

beforeEach(() => {
  exporter.reset();
  seenInHandler = undefined;
});

afterAll(() => app.close());

describe('HTTP server spans', () => {
  it('names the span after the method and the route template, with the HTTP attributes', async () => {
    const res = await app.inject({ url: '/users/42?expand=1', headers: { 'user-agent': 'jest-client/1.0' } });
    expect(res.statusCode).toBe(200);
    const span = onlySpan(exporter, 'GET /users/:id');
    expect(span.kind).toBe(SpanKind.SERVER);
    expect(span.attributes).toMatchObject({
      [ATTR_HTTP_REQUEST_METHOD]: 'GET',
      [ATTR_URL_PATH]: '/users/42',
      [ATTR_URL_SCHEME]: 'http',
      [ATTR_HTTP_ROUTE]: '/users/:id',
      [ATTR_HTTP_RESPONSE_STATUS_CODE]: 200,
      [ATTR_USER_AGENT_ORIGINAL]: 'jest-client/1.0',
    });
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
    expect(span.instrumentationScope.name).toBe(TRACER_NAME);
  });

  it('uses the full template of grouped routes and reports the status the handler chose', async () => {
    const res = await app.inject({ method: 'POST', url: '/api/v1/orders/7/items', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(res.statusCode).toBe(201);
    const span = onlySpan(exporter, 'POST /api/v1/orders/:orderId/items');
    expect(span.attributes[ATTR_HTTP_ROUTE]).toBe('/api/v1/orders/:orderId/items');
    expect(span.attributes[ATTR_HTTP_RESPONSE_STATUS_CODE]).toBe(201);
  });

  it('names an unmatched request by its method only and records the 404', async () => {
    const res = await app.inject({ url: '/nowhere/at/all' });
    expect(res.statusCode).toBe(404);
    const span = onlySpan(exporter, 'GET');
    expect(span.attributes[ATTR_HTTP_ROUTE]).toBeUndefined();
    expect(span.attributes[ATTR_URL_PATH]).toBe('/nowhere/at/all');
    expect(span.attributes[ATTR_HTTP_RESPONSE_STATUS_CODE]).toBe(404);
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
  });

  it('records a thrown handler error as an exception with error status and status 500', async () => {
    const res = await app.inject({ url: '/boom' });
    expect(res.statusCode).toBe(500);
    const span = onlySpan(exporter, 'GET /boom');
    expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: 'kaput' });
    expect(span.attributes[ATTR_HTTP_RESPONSE_STATUS_CODE]).toBe(500);
    expect(span.attributes[ATTR_ERROR_TYPE]).toBe('Error');
    const exception = span.events.find((event) => event.name === 'exception');
    expect(exception?.attributes).toMatchObject({ 'exception.type': 'Error', 'exception.message': 'kaput' });
  });

  it('records a thrown 4xx HTTPError as an exception but leaves the status unset, as the conventions ask', async () => {
    const res = await app.inject({ url: '/missing' });
    expect(res.statusCode).toBe(404);
    const span = onlySpan(exporter, 'GET /missing');
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
    expect(span.attributes[ATTR_HTTP_RESPONSE_STATUS_CODE]).toBe(404);
    expect(span.events.map((event) => event.name)).toContain('exception');
  });

  it('sets error status for a 5xx the handler answered without throwing', async () => {
    await app.inject({ url: '/unavailable' });
    const span = onlySpan(exporter, 'GET /unavailable');
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
    expect(span.attributes[ATTR_ERROR_TYPE]).toBe('503');
    expect(span.events).toHaveLength(0);
  });

  it('wraps global middleware too, so an error thrown there is traced', async () => {
    const res = await app.inject({ url: '/users/1', headers: { 'x-fail-in-middleware': '1' } });
    expect(res.statusCode).toBe(500);
    const span = onlySpan(exporter, 'GET');
    expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: 'middleware broke' });
  });

  it('does not trace requests the ignore option skips, and gives them no helpers', async () => {
    const res = await app.inject({ url: '/healthz' });
    expect(res.json()).toEqual({ ok: true, traced: false });
    expect(res.headers.traceparent).toBeUndefined();
    expect(exporter.getFinishedSpans()).toHaveLength(0);
  });
});

describe('trace context propagation', () => {
  it('makes the server span a child of an incoming traceparent and returns the trace in the response', async () => {
    const res = await app.inject({ url: '/users/1', headers: { traceparent: PARENT_TRACEPARENT, tracestate: 'vendor=abc' } });
    const span = onlySpan(exporter, 'GET /users/:id');
    expect(span.spanContext().traceId).toBe(PARENT_TRACE_ID);
    expect(span.parentSpanContext?.spanId).toBe(PARENT_SPAN_ID);
    expect(span.parentSpanContext?.isRemote).toBe(true);
    expect(span.spanContext().traceState?.get('vendor')).toBe('abc');
    expect(parseTraceparent(res.headers.traceparent)).toEqual({ traceId: PARENT_TRACE_ID, spanId: span.spanContext().spanId, flags: '01' });
  });

  it('starts a new trace when there is no traceparent, or a malformed one', async () => {
    for (const headers of [{}, { traceparent: '00-xyz-123-01' }, { traceparent: `00-${'0'.repeat(32)}-${PARENT_SPAN_ID}-01` }]) {
      exporter.reset();
      const res = await app.inject({ url: '/users/1', headers });
      const span = onlySpan(exporter, 'GET /users/:id');
      expect(span.parentSpanContext).toBeUndefined();
      expect(span.spanContext().traceId).not.toBe(PARENT_TRACE_ID);
      expect(parseTraceparent(res.headers.traceparent).traceId).toBe(span.spanContext().traceId);
    }
  });

  it('sends the traceparent header on error responses too', async () => {
    const res = await app.inject({ url: '/boom', headers: { traceparent: PARENT_TRACEPARENT } });
    expect(res.statusCode).toBe(500);
    expect(parseTraceparent(res.headers.traceparent).traceId).toBe(PARENT_TRACE_ID);
  });
});

describe('context helpers', () => {
  it('exposes the trace and span IDs and the protocol, matching the exported span', async () => {
    await app.inject({ url: '/users/5' });
    const span = onlySpan(exporter, 'GET /users/:id');
    expect(seenInHandler?.hasHelpers).toBe(true);
    expect(seenInHandler?.trace).toEqual({ traceId: span.spanContext().traceId, spanId: span.spanContext().spanId, protocol: 'http' });
    expect(seenInHandler?.trace?.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(seenInHandler?.trace?.spanId).toMatch(/^[0-9a-f]{16}$/);
  });

  it('makes the request span the active OpenTelemetry span while the handler runs', async () => {
    await app.inject({ url: '/users/5' });
    expect(seenInHandler?.activeSpanId).toBe(onlySpan(exporter, 'GET /users/:id').spanContext().spanId);
  });

  it('creates child spans with startSpan and records events and attributes on the request span', async () => {
    await app.inject({ url: '/work' });
    const request = onlySpan(exporter, 'GET /work');
    const query = onlySpan(exporter, 'db.query');
    expect(query.parentSpanContext?.spanId).toBe(request.spanContext().spanId);
    expect(query.spanContext().traceId).toBe(request.spanContext().traceId);
    expect(query.kind).toBe(SpanKind.INTERNAL);
    expect(query.attributes).toEqual({ 'db.system.name': 'postgresql' });
    expect(query.status.code).toBe(SpanStatusCode.UNSET);
    expect(request.events.map((event) => [event.name, event.attributes])).toEqual([['cache.miss', { key: 'user:1' }]]);
    expect(request.attributes).toMatchObject({ 'app.user_id': '1', 'app.items': 3, 'app.tenant': 'acme' });
  });

  it('records the error given to endSpan as an exception and an error status', async () => {
    await app.inject({ url: '/work' });
    const charge = onlySpan(exporter, 'payment.charge');
    expect(charge.status).toEqual({ code: SpanStatusCode.ERROR, message: 'card declined' });
    expect(charge.events[0]?.name).toBe('exception');
    expect(charge.events[0]?.attributes?.['exception.message']).toBe('card declined');
    expect(charge.ended).toBe(true);
    expect(onlySpan(exporter, 'GET /work').status.code).toBe(SpanStatusCode.UNSET);
  });
});

describe('the SDK started by the plugin', () => {
  it('reports service.name from serviceName and says it started the SDK', async () => {
    await app.inject({ url: '/users/1' });
    expect(onlySpan(exporter, 'GET /users/:id').resource.attributes[ATTR_SERVICE_NAME]).toBe('http-test');
    expect(plugin.source).toBe('sdk');
  });

  it('traces requests that arrive over a real socket', async () => {
    const { port } = await app.listen(0, '127.0.0.1');
    const res = await fetch(`http://127.0.0.1:${port}/users/9`, { headers: { traceparent: PARENT_TRACEPARENT } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ id: '9' });
    const span = onlySpan(exporter, 'GET /users/:id');
    expect(span.parentSpanContext?.spanId).toBe(PARENT_SPAN_ID);
    expect(parseTraceparent(res.headers.get('traceparent')).spanId).toBe(span.spanContext().spanId);
  });
});
