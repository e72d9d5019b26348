import { Application } from '@fw/core';
import type { PluginHost } from '@fw/core/plugin';
import { isSpanContextValid, trace } from '@opentelemetry/api';
import { tracingPlugin } from '../src/index.js';

const HELPERS = ['trace', 'startSpan', 'endSpan', 'addEvent', 'setAttributes'] as const;

/** The plugin host of `app`, as a plugin sees it. */
function hostOf(app: Application): PluginHost {
  let host: PluginHost | undefined;
  app.register({ name: 'probe', setup: (given) => void (host = given) });
  if (host === undefined) throw new Error('the probe plugin was not set up');
  return host;
}

describe('tracing disabled', () => {
  it('registers nothing with the application, so contexts get no helpers and no header', async () => {
    const app = new Application();
    const plugin = tracingPlugin({ enabled: false, serviceName: 'off' });
    app.register(plugin);
    app.get('/users/:id', (ctx) => ctx.json({ present: HELPERS.filter((key) => key in ctx), optional: ctx.startSpan?.('x') ?? null }));
    expect(plugin.enabled).toBe(false);
    expect(hostOf(app).wrappers()).toHaveLength(0);
    const res = await app.inject('/users/1');
    expect(res.json()).toEqual({ present: [], optional: null });
    expect(res.headers.traceparent).toBeUndefined();
    await app.close();
    expect(plugin.source).toBeUndefined();
    // No SDK was started and no provider registered.
    expect(isSpanContextValid(trace.getTracer('probe').startSpan('probe').spanContext())).toBe(false);
  });

  it('is enabled by default, with exactly one wrapper', () => {
    const app = new Application();
    const plugin = tracingPlugin({ exporter: 'none' });
    app.register(plugin);
    expect(plugin.enabled).toBe(true);
    expect(plugin.name).toBe('tracing');
    expect(hostOf(app).wrappers()).toHaveLength(1);
    expect(app.getPlugin('tracing')).toBe(plugin);
  });
});

describe('options', () => {
  it.each([
    [{ exporter: 'jaeger' }, /tracing.exporter/],
    [{ exporter: {} }, /tracing.exporter/],
    [{ serviceName: '' }, /serviceName/],
    [{ responseHeader: 'bad header' }, /responseHeader/],
    [{ endpoint: 'localhost:4318' }, /http\(s\) URL/],
    [{ endpoint: 'not a url' }, /absolute URL/],
    [{ otlpProtocol: 'grpc' }, /otlpProtocol/],
    [{ spanProcessors: [{}] }, /spanProcessors/],
    [{ ignore: '/healthz' }, /ignore/],
    [{ enabled: 'yes' }, /tracing\.enabled must be true or false/],
    [{ activeContext: 1 }, /tracing\.activeContext must be true or false/],
    [{ otlpHeaders: 'x-api-key: 1' }, /tracing\.otlpHeaders must be an object of header names to string values/],
    [{ otlpHeaders: { 'x-api-key': 1 } }, /tracing\.otlpHeaders must be an object of header names to string values/],
    [{ resourceAttributes: 'v1' }, /tracing\.resourceAttributes must be an object/],
    [{ tracerProvider: {} }, /tracing\.tracerProvider must be a TracerProvider/],
  ])('rejects %j when the plugin is created', (config, message) => {
    expect(() => tracingPlugin(config as never)).toThrow(message);
  });

  it('refuses a misspelt option instead of falling back to the default (OTLP for a misspelt exporter)', () => {
    expect(() => tracingPlugin({ exprter: 'none' } as never)).toThrow(
      'tracingPlugin: unknown option "exprter"; did you mean "exporter"? The accepted options are: enabled, serviceName, exporter, endpoint',
    );
    expect(() => tracingPlugin({ enabeld: false } as never)).toThrow('unknown option "enabeld"; did you mean "enabled"?');
    expect(() => tracingPlugin({ colour: 'blue' } as never)).toThrow(/unknown option "colour"; the accepted options are: enabled, /);
  });

  it('refuses to attach one plugin instance to two applications', () => {
    const plugin = tracingPlugin({ exporter: 'none' });
    new Application().register(plugin);
    expect(() => new Application().register(plugin)).toThrow(/one application/);
  });
});
