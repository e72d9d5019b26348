import { Application } from '@fw/core';
import { isSpanContextValid, propagation, trace } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { ATTR_SERVICE_NAME, tracingPlugin, type SpanExporterLike } from '../src/index.js';

/** An exporter that keeps what it got, even after shutdown (the in-memory one forgets). */
function recordingExporter(): SpanExporterLike & { spans: ReadableSpan[]; shutdowns: number } {
  const spans: ReadableSpan[] = [];
  const exporter = {
    spans,
    shutdowns: 0,
    export(batch: unknown[], done: (result: { code: number }) => void) {
      spans.push(...(batch as ReadableSpan[]));
      done({ code: 0 });
    },
    async shutdown() {
      exporter.shutdowns++;
    },
  };
  return exporter;
}

const globalProviderIsRegistered = () => isSpanContextValid(trace.getTracer('probe').startSpan('probe').spanContext());

beforeAll(() => {
  // The batch processor would hold spans for a minute: only a flush gets them out in time.
  process.env.OTEL_BSP_SCHEDULE_DELAY = '60000';
});
afterAll(() => {
  delete process.env.OTEL_BSP_SCHEDULE_DELAY;
});

describe('the SDK lifecycle', () => {
  it('batches spans from a user exporter and flushes them when the app closes', async () => {
    const exporter = recordingExporter();
    const app = new Application();
    app.register(tracingPlugin({ serviceName: 'batch-test', exporter }));
    app.get('/a', (ctx) => ctx.text('a'));
    await app.listen(0, '127.0.0.1');
    await app.inject('/a');
    await app.inject('/a');
    expect(exporter.spans).toHaveLength(0);
    await app.close();
    expect(exporter.spans.map((span) => span.name)).toEqual(['GET /a', 'GET /a']);
    expect(exporter.spans[0]?.resource.attributes[ATTR_SERVICE_NAME]).toBe('batch-test');
    expect(exporter.shutdowns).toBe(1);
  });

  it('warns on the app log, in one line, when the flush on close fails, and still closes', async () => {
    const logged: Array<[string, unknown]> = [];
    const failing: SpanExporterLike = {
      export: (_batch: unknown[], done: (result: { code: number; error?: Error }) => void) => done({ code: 1, error: new Error('collector down') }),
      shutdown: async () => undefined,
    };
    const app = new Application({ onLog: (message, error) => logged.push([message, error]) });
    app.register(tracingPlugin({ serviceName: 'failing', exporter: failing }));
    app.get('/a', (ctx) => ctx.text('a'));
    await app.listen(0, '127.0.0.1');
    await app.inject('/a');
    await app.close();
    expect(logged).toEqual([['@fw/tracing: the last spans could not be exported when the app closed: collector down', undefined]]);
  });

  it('unregisters the SDK it started on close, so a later app starts a fresh one', async () => {
    expect(globalProviderIsRegistered()).toBe(false);
    expect(propagation.fields()).toEqual([]);
    const exporter = recordingExporter();
    const app = new Application();
    const plugin = tracingPlugin({ serviceName: 'second', exporter });
    app.register(plugin);
    app.get('/b', (ctx) => ctx.text('b'));
    await app.inject('/b');
    expect(plugin.source).toBe('sdk');
    expect(globalProviderIsRegistered()).toBe(true);
    expect(propagation.fields()).toEqual(expect.arrayContaining(['traceparent']));
    await app.close();
    expect(exporter.spans.map((span) => span.resource.attributes[ATTR_SERVICE_NAME])).toEqual(['second']);
    expect(globalProviderIsRegistered()).toBe(false);
  });

  it('shares one SDK between apps and shuts it down when the last one closes', async () => {
    const exporter = recordingExporter();
    const first = new Application();
    const firstPlugin = tracingPlugin({ serviceName: 'shared', exporter });
    first.register(firstPlugin);
    first.get('/one', (ctx) => ctx.text('1'));
    const second = new Application();
    const secondPlugin = tracingPlugin({ serviceName: 'not-used', exporter: 'console' });
    second.register(secondPlugin);
    second.get('/two', (ctx) => ctx.text('2'));
    // Both start at once: one SDK is started, not two.
    await Promise.all([first.inject('/one'), second.inject('/two')]);
    expect([firstPlugin.source, secondPlugin.source]).toEqual(['sdk', 'sdk']);
    await first.close();
    expect(globalProviderIsRegistered()).toBe(true);
    await second.inject('/two');
    await second.close();
    expect(globalProviderIsRegistered()).toBe(false);
    expect(exporter.spans.map((span) => span.name).sort()).toEqual(['GET /one', 'GET /two', 'GET /two']);
    expect(exporter.shutdowns).toBe(1);
  });

  it('is not started when OTEL_SDK_DISABLED is true: requests run untraced, without helpers', async () => {
    process.env.OTEL_SDK_DISABLED = 'true';
    try {
      const app = new Application();
      const plugin = tracingPlugin({ exporter: 'none' });
      app.register(plugin);
      app.get('/', (ctx) => ctx.json({ helpers: ['trace', 'startSpan', 'endSpan', 'addEvent', 'setAttributes'].filter((k) => k in ctx) }));
      const res = await app.inject('/');
      expect(res.json()).toEqual({ helpers: [] });
      expect(res.headers.traceparent).toBeUndefined();
      expect(plugin.source).toBe('disabled');
      expect(globalProviderIsRegistered()).toBe(false);
      await app.close();
    } finally {
      delete process.env.OTEL_SDK_DISABLED;
    }
  });

  it("keeps trace IDs and propagation with exporter 'none'", async () => {
    const app = new Application();
    app.register(tracingPlugin({ exporter: 'none' }));
    app.get('/', (ctx) => ctx.json({ traceId: ctx.trace?.traceId }));
    const res = await app.inject({ url: '/', headers: { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' } });
    expect(res.json()).toEqual({ traceId: '0af7651916cd43dd8448eb211c80319c' });
    await app.close();
  });
});
