import { ROOT_CONTEXT, trace, defaultTextMapGetter, defaultTextMapSetter } from '@opentelemetry/api';
import { formatTraceparent, w3cTraceContextPropagator } from './w3c.js';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN_ID = '00f067aa0ba902b7';

const extract = (headers: Record<string, string | string[]>) => trace.getSpanContext(w3cTraceContextPropagator.extract(ROOT_CONTEXT, headers, defaultTextMapGetter));

describe('the fallback W3C Trace Context propagator', () => {
  it('extracts a valid traceparent as a remote parent, with its flags and tracestate', () => {
    const parent = extract({ traceparent: `00-${TRACE_ID}-${SPAN_ID}-01`, tracestate: 'rojo=00f067aa0ba902b7,congo=t61rcWkgMzE' });
    expect(parent).toMatchObject({ traceId: TRACE_ID, spanId: SPAN_ID, traceFlags: 1, isRemote: true });
    expect(parent?.traceState?.get('congo')).toBe('t61rcWkgMzE');
  });

  it('reads the first value when the header repeats', () => {
    expect(extract({ traceparent: [`00-${TRACE_ID}-${SPAN_ID}-00`, `00-${'1'.repeat(32)}-${SPAN_ID}-01`] })).toMatchObject({ traceId: TRACE_ID, traceFlags: 0 });
  });

  it('accepts a later version with extra fields but not version 00 with them', () => {
    expect(extract({ traceparent: `01-${TRACE_ID}-${SPAN_ID}-01-what-the-future-holds` })?.traceId).toBe(TRACE_ID);
    expect(extract({ traceparent: `00-${TRACE_ID}-${SPAN_ID}-01-extra` })).toBeUndefined();
  });

  it.each([
    ['version ff', `ff-${TRACE_ID}-${SPAN_ID}-01`],
    ['an all-zero trace ID', `00-${'0'.repeat(32)}-${SPAN_ID}-01`],
    ['an all-zero span ID', `00-${TRACE_ID}-${'0'.repeat(16)}-01`],
    ['upper-case hex', `00-${TRACE_ID.toUpperCase()}-${SPAN_ID}-01`],
    ['a short trace ID', `00-${TRACE_ID.slice(1)}-${SPAN_ID}-01`],
    ['garbage', 'hello'],
  ])('ignores %s', (_what, traceparent) => {
    expect(extract({ traceparent })).toBeUndefined();
  });

  it('injects traceparent and tracestate from the active span context', () => {
    const carrier: Record<string, string> = {};
    const parent = w3cTraceContextPropagator.extract(ROOT_CONTEXT, { traceparent: `00-${TRACE_ID}-${SPAN_ID}-01`, tracestate: 'a=b' }, defaultTextMapGetter);
    w3cTraceContextPropagator.inject(parent, carrier, defaultTextMapSetter);
    expect(carrier).toEqual({ traceparent: `00-${TRACE_ID}-${SPAN_ID}-01`, tracestate: 'a=b' });
    expect(w3cTraceContextPropagator.fields()).toEqual(['traceparent', 'tracestate']);
  });

  it('formats the sampled flag only', () => {
    expect(formatTraceparent(TRACE_ID, SPAN_ID, 1)).toBe(`00-${TRACE_ID}-${SPAN_ID}-01`);
    expect(formatTraceparent(TRACE_ID, SPAN_ID, 0)).toBe(`00-${TRACE_ID}-${SPAN_ID}-00`);
  });
});
