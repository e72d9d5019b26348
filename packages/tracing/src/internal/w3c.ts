import { createTraceState, isSpanContextValid, trace, type Context, type TextMapGetter, type TextMapPropagator, type TextMapSetter } from '@opentelemetry/api';
import { TRACEPARENT_HEADER } from '../semconv.js';

const TRACESTATE_HEADER = 'tracestate';
// W3C Trace Context §3.2: version-traceid-parentid-flags; later versions may append fields.
const TRACEPARENT = /^\s?([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?\s?$/;

/** `00-<traceId>-<spanId>-<flags>` for a span context. */
export function formatTraceparent(traceId: string, spanId: string, traceFlags: number): string {
  return `00-${traceId}-${spanId}-${traceFlags & 1 ? '01' : '00'}`;
}

/**
 * A W3C Trace Context propagator written against the API alone. Used when the registered
 * provider came without a propagator (the API's default propagates nothing), so `traceparent`
 * still works as documented.
 */
export const w3cTraceContextPropagator: TextMapPropagator = {
  inject(context: Context, carrier: unknown, setter: TextMapSetter): void {
    const spanContext = trace.getSpanContext(context);
    if (spanContext === undefined || !isSpanContextValid(spanContext)) return;
    setter.set(carrier, TRACEPARENT_HEADER, formatTraceparent(spanContext.traceId, spanContext.spanId, spanContext.traceFlags));
    const state = spanContext.traceState?.serialize();
    if (state) setter.set(carrier, TRACESTATE_HEADER, state);
  },
  extract(context: Context, carrier: unknown, getter: TextMapGetter): Context {
    const raw = getter.get(carrier, TRACEPARENT_HEADER);
    const header = Array.isArray(raw) ? raw[0] : raw;
    if (typeof header !== 'string') return context;
    const match = TRACEPARENT.exec(header);
    if (match === null) return context;
    const [, version, traceId, spanId, flags, rest] = match as unknown as [string, string, string, string, string, string | undefined];
    // Version ff is invalid; version 00 allows nothing after the flags.
    if (version === 'ff' || (version === '00' && rest !== undefined)) return context;
    const spanContext = { traceId, spanId, traceFlags: parseInt(flags, 16) & 1, isRemote: true };
    if (!isSpanContextValid(spanContext)) return context;
    const stateRaw = getter.get(carrier, TRACESTATE_HEADER);
    const state = Array.isArray(stateRaw) ? stateRaw.join(',') : stateRaw;
    return trace.setSpanContext(context, state ? { ...spanContext, traceState: createTraceState(state) } : spanContext);
  },
  fields(): string[] {
    return [TRACEPARENT_HEADER, TRACESTATE_HEADER];
  },
};
