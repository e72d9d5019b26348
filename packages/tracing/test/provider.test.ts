import { Application } from '@fw/core';
import { propagation, trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { tracingPlugin } from '../src/index.js';
import { onlySpan, PARENT_SPAN_ID, PARENT_TRACEPARENT, parseTraceparent } from './support.js';

// The application registered its own provider (without a propagator) before the app started.
const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const flush = jest.spyOn(provider, 'forceFlush');
const shutdown = jest.spyOn(provider, 'shutdown');
trace.setGlobalTracerProvider(provider);

afterAll(() => trace.disable());

describe('a tracer provider the application registered', () => {
  it('is used instead of starting the SDK, and W3C propagation still works without a registered propagator', async () => {
    const app = new Application();
    const plugin = tracingPlugin({ serviceName: 'ignored-here', exporter: 'console' });
    app.register(plugin);
    app.get('/items/:id', (ctx) => ctx.json({ id: ctx.params.id }));
    const { port } = await app.listen(0, '127.0.0.1');
    try {
      expect(plugin.source).toBe('global');
      // Nothing of the SDK was registered: the propagator is still the API's default.
      expect(propagation.fields()).toEqual([]);
      const res = await fetch(`http://127.0.0.1:${port}/items/3`, { headers: { traceparent: PARENT_TRACEPARENT } });
      expect(res.status).toBe(200);
      const span = onlySpan(exporter, 'GET /items/:id');
      expect(span.parentSpanContext?.spanId).toBe(PARENT_SPAN_ID);
      expect(parseTraceparent(res.headers.get('traceparent')).spanId).toBe(span.spanContext().spanId);
    } finally {
      await app.close();
    }
  });

  it('is flushed on close but never shut down, since it is not ours', async () => {
    expect(flush).toHaveBeenCalled();
    expect(shutdown).not.toHaveBeenCalled();
    const app = new Application();
    app.register(tracingPlugin());
    app.get('/', (ctx) => ctx.text('ok'));
    exporter.reset();
    await app.inject('/');
    expect(onlySpan(exporter, 'GET /').spanContext().traceId).toMatch(/^[0-9a-f]{32}$/);
    await app.close();
  });

  it('sends no response header when responseHeader is false', async () => {
    const app = new Application();
    app.register(tracingPlugin({ responseHeader: false }));
    app.get('/', (ctx) => ctx.text('ok'));
    const res = await app.inject('/');
    expect(res.headers.traceparent).toBeUndefined();
    expect(exporter.getFinishedSpans().length).toBeGreaterThan(0);
    await app.close();
  });

  it('uses a custom response header name when asked', async () => {
    const app = new Application();
    app.register(tracingPlugin({ responseHeader: 'x-trace' }));
    app.get('/', (ctx) => ctx.text('ok'));
    const res = await app.inject('/');
    expect(res.headers.traceparent).toBeUndefined();
    expect(parseTraceparent(res.headers['x-trace']).traceId).toMatch(/^[0-9a-f]{32}$/);
    await app.close();
  });
});
