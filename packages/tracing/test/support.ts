import type { InMemorySpanExporter, ReadableSpan } from '@opentelemetry/sdk-trace-base';

/** The W3C `traceparent` a test client sends. */
export const PARENT_TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
export const PARENT_SPAN_ID = 'b7ad6b7169203331';
export const PARENT_TRACEPARENT = `00-${PARENT_TRACE_ID}-${PARENT_SPAN_ID}-01`;

/** The one finished span with this name; fails when there is none or several. */
export function onlySpan(exporter: InMemorySpanExporter, name: string): ReadableSpan {
  const spans = exporter.getFinishedSpans().filter((span) => span.name === name);
  if (spans.length !== 1) {
    const names = exporter.getFinishedSpans().map((span) => span.name);
    throw new Error(`expected one span named "${name}", found ${spans.length} among [${names.join(', ')}]`);
  }
  return spans[0]!;
}

/** Splits a `traceparent` header into its fields. */
export function parseTraceparent(header: unknown): { traceId: string; spanId: string; flags: string } {
  if (typeof header !== 'string') throw new Error(`no traceparent header, got ${String(header)}`);
  const match = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/.exec(header);
  if (match === null) throw new Error(`malformed traceparent: ${header}`);
  return { traceId: match[1]!, spanId: match[2]!, flags: match[3]! };
}
