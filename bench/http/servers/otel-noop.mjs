// Tracing suite (issue 7): the no-op span exporter both traced servers export to (behind the
// SDK's BatchSpanProcessor), and the self-check they run before announcing: one request must
// produce the expected spans, so a benchmark never measures tracing that is silently off.
import { trace } from '@opentelemetry/api';

/** A SpanExporter that drops every batch at once and reports success; counts what it got. */
export function noopExporter() {
  return {
    spans: 0,
    names: [],
    export(spans, done) {
      this.spans += spans.length;
      if (this.names.length < 100) this.names.push(...spans.map((s) => s.name));
      done({ code: 0 }); // ExportResultCode.SUCCESS
    },
    shutdown: () => Promise.resolve(),
    forceFlush: () => Promise.resolve(),
  };
}

/**
 * Requests `url` once, flushes the registered provider, and fails unless the exporter received
 * spans named as `expected` requires (a predicate over the span names).
 */
export async function selfCheck(url, exporter, expected) {
  const res = await fetch(url);
  await res.text();
  const provider = trace.getTracerProvider();
  const delegate = typeof provider.getDelegate === 'function' ? provider.getDelegate() : provider;
  await delegate.forceFlush?.();
  if (!expected(exporter.names)) {
    throw new Error(`tracing self-check failed: spans exported for GET ${url}: ${JSON.stringify(exporter.names)}`);
  }
  const names = exporter.names.join(', ');
  exporter.names = [];
  return { names, headers: res.headers };
}
