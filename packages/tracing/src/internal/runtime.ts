import type { Context, Next, RequestContext } from '@fw/core';
import { propagation, type TracerProvider } from '@opentelemetry/api';
import { TRACER_NAME, TRACEPARENT_HEADER } from '../semconv.js';
import type { ProviderSource, TracingConfig } from '../types.js';
import { forceFlush, registeredProvider } from './provider.js';
import { endHttpSpan, traceRequest, type RequestTracer, type TracingLog } from './request.js';
import { acquireSdk, type SdkLease } from './sdk.js';
import { VERSION } from './version.js';
import { w3cTraceContextPropagator } from './w3c.js';

/**
 * The state of one tracing plugin: resolves the tracer provider on first use (listen or the
 * first request, whichever comes first), traces requests, and flushes on close.
 */
export class TracingRuntime {
  private ready: RequestTracer | undefined;
  private passThrough = false;
  private starting: Promise<void> | undefined;
  private lease: SdkLease | undefined;
  private provider: TracerProvider | undefined;
  private currentSource: ProviderSource | undefined;

  /** Where a span processor's failure goes: the app's log once the plugin is set up. */
  log: TracingLog = () => undefined;

  constructor(private readonly config: TracingConfig) {}

  /** The request wrapper registered with `host.wrap()`: runs on every protocol. */
  readonly middleware = (ctx: RequestContext, next: Next): Promise<void> => {
    const ready = this.ready;
    if (ready !== undefined) {
      const ignore = this.config.ignore;
      if (ignore !== undefined && ignore(ctx)) return next();
      return traceRequest(ready, ctx, next);
    }
    if (this.passThrough) return next();
    return this.start().then(() => this.middleware(ctx, next));
  };

  /** The response hook registered with `host.onResponse()`: ends an HTTP request's span with the status sent. */
  readonly onResponse = (ctx: Context, status: number): void => {
    endHttpSpan(ctx, status, this.log);
  };

  /** Where the provider came from, once resolved. */
  get source(): ProviderSource | undefined {
    return this.currentSource;
  }

  /** Resolves the provider (starting the SDK when none is registered). Idempotent. */
  start(): Promise<void> {
    if (this.ready !== undefined || this.passThrough) return Promise.resolve();
    this.starting ??= this.resolve().finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  /** Flushes pending spans: shuts down the SDK started here, or flushes a provider found. */
  async shutdown(): Promise<void> {
    if (this.starting !== undefined) await this.starting.catch(() => undefined);
    const lease = this.lease;
    const provider = this.provider;
    this.ready = undefined;
    this.passThrough = false;
    this.lease = undefined;
    this.provider = undefined;
    this.currentSource = undefined;
    if (lease !== undefined) await lease.release();
    else if (provider !== undefined) await forceFlush(provider);
  }

  private async resolve(): Promise<void> {
    let provider = this.config.tracerProvider;
    let source: ProviderSource = 'option';
    if (provider === undefined) {
      provider = registeredProvider();
      source = 'global';
    }
    if (provider === undefined && sdkDisabled()) {
      // OTEL_SDK_DISABLED: the operator turned OpenTelemetry off; requests run untraced.
      this.passThrough = true;
      this.currentSource = 'disabled';
      return;
    }
    if (provider === undefined) {
      const lease = await acquireSdk(this.config);
      if (lease === undefined) {
        provider = registeredProvider();
      } else {
        this.lease = lease;
        provider = lease.provider;
        source = 'sdk';
      }
    }
    if (provider === undefined) throw new Error('@fw/tracing: no tracer provider could be resolved');
    this.provider = provider;
    this.currentSource = source;
    this.ready = {
      tracer: provider.getTracer(TRACER_NAME, VERSION),
      // The API's default propagator propagates nothing: fall back to W3C Trace Context.
      propagator: propagation.fields().length > 0 ? propagation : w3cTraceContextPropagator,
      responseHeader: this.config.responseHeader ?? TRACEPARENT_HEADER,
      activeContext: this.config.activeContext ?? true,
      log: (message, error) => this.log(message, error),
    };
  }
}

function sdkDisabled(): boolean {
  return process.env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true';
}
