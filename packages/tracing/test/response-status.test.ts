import { Application, HTTPError } from '@fw/core';
import { SpanStatusCode } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ATTR_ERROR_TYPE, ATTR_HTTP_RESPONSE_STATUS_CODE, tracingPlugin } from '../src/index.js';
import { onlySpan, parseTraceparent } from './support.js';

// The span records the status the client received: after the app's error handler answered, not
// the status the thrown error would have had. Checked over a real socket, where the status is
// what the client reads.
const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const logged: string[] = [];
const app = new Application({ maxUrlLength: 64, onLog: (message) => logged.push(message) });
app.register(tracingPlugin({ tracerProvider: provider }));
app.onError((error, ctx) => {
  if (error.statusCode === 500) ctx.json({ retry: true }, 503);
  else if (error.statusCode === 409) ctx.json({ fine: true }, 200);
});
app.get('/db', () => {
  throw new Error('connection refused');
});
app.get('/conflict', () => {
  throw new HTTPError(409, 'Already there');
});
app.get('/ok', (ctx) => ctx.text('ok'));

let base = '';
beforeAll(async () => {
  const { port } = await app.listen(0, '127.0.0.1');
  base = `http://127.0.0.1:${port}`;
});
beforeEach(() => {
  exporter.reset();
  logged.length = 0;
});
afterAll(() => app.close());

describe('the status a span records', () => {
  it('is the 503 a custom error handler answered a thrown error with, not 500', async () => {
    const res = await fetch(`${base}/db`);
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ retry: true });
    const span = onlySpan(exporter, 'GET /db');
    expect(span.attributes[ATTR_HTTP_RESPONSE_STATUS_CODE]).toBe(503);
    expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: 'connection refused' });
    expect(span.attributes[ATTR_ERROR_TYPE]).toBe('Error');
    expect(span.events.map((event) => event.name)).toEqual(['exception']);
    expect(parseTraceparent(res.headers.get('traceparent')).spanId).toBe(span.spanContext().spanId);
  });

  it('is the 200 an error handler answered with, which leaves the span status unset', async () => {
    const res = await fetch(`${base}/conflict`);
    expect(res.status).toBe(200);
    const span = onlySpan(exporter, 'GET /conflict');
    expect(span.attributes[ATTR_HTTP_RESPONSE_STATUS_CODE]).toBe(200);
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
    expect(span.events.map((event) => event.name)).toEqual(['exception']);
  });

  it('leaves requests answered before the chain ran (414) alone, and ends every span it started', async () => {
    const long = await fetch(`${base}/ok?${'x'.repeat(100)}`);
    expect(long.status).toBe(414);
    expect(exporter.getFinishedSpans()).toHaveLength(0);
    const res = await fetch(`${base}/ok`);
    expect(res.status).toBe(200);
    expect(onlySpan(exporter, 'GET /ok').attributes[ATTR_HTTP_RESPONSE_STATUS_CODE]).toBe(200);
    expect(logged).toEqual([]);
  });
});
