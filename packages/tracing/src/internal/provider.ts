import { isSpanContextValid, trace, type TracerProvider } from '@opentelemetry/api';

type MaybeProxy = TracerProvider & { getDelegate?: () => TracerProvider };

/**
 * The tracer provider registered with the API, or undefined when none is (the API's proxy then
 * delegates to its no-op provider). Probing with a span instead of comparing classes works
 * whichever copy of `@opentelemetry/api` registered it: only the no-op provider hands out spans
 * with an invalid context. The probe span is never ended, so it is never exported.
 */
export function registeredProvider(): TracerProvider | undefined {
  const provider = globalDelegate();
  return isRealProvider(provider) ? provider : undefined;
}

/** The provider behind the API's global proxy, real or no-op. */
export function globalDelegate(): TracerProvider {
  const global = trace.getTracerProvider() as MaybeProxy;
  return typeof global.getDelegate === 'function' ? global.getDelegate() : global;
}

/** Whether a provider creates real spans (a sampled-out span still carries valid IDs). */
export function isRealProvider(provider: TracerProvider): boolean {
  return isSpanContextValid(provider.getTracer('@fw/tracing/probe').startSpan('probe').spanContext());
}

/** Flushes a provider that supports it (SDK providers do; the API interface does not require it). */
export async function forceFlush(provider: TracerProvider): Promise<void> {
  const flushable = provider as TracerProvider & { forceFlush?: () => Promise<unknown> };
  if (typeof flushable.forceFlush === 'function') await flushable.forceFlush();
}
