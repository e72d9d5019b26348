import { setTimeout as sleep } from 'node:timers/promises';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan, type Span, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { z } from 'zod';
import { createApp, HTTPError, type App } from '@fw/app';
import { defineOperation } from '@fw/app/validate';

// GraphQL over WebSocket with tracing on, through real sockets and graphql-ws's client: the app's
// wrappers run on the upgrade request at `connection_init`, so its server span must end then (101
// for a connection let through, the refusal's status otherwise), and no span of a connection or of
// its operations is left open once the sockets have closed.

/** Every span started and not yet ended, by span id. */
const open = new Map<string, string>();
const recorder: SpanProcessor = {
  onStart: (span: Span) => void open.set(span.spanContext().spanId, span.name),
  onEnd: (span: ReadableSpan) => void open.delete(span.spanContext().spanId),
  forceFlush: () => Promise.resolve(),
  shutdown: () => Promise.resolve(),
};
const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [recorder, new SimpleSpanProcessor(exporter)] });

const ticks = defineOperation({
  name: 'ticks',
  stream: true,
  input: z.object({ n: z.int32() }),
  output: z.object({ i: z.int32() }),
  handler: async function* ({ n }) {
    for (let i = 0; i < n; i++) {
      yield { i };
      await sleep(5);
    }
  },
  graphql: { type: 'subscription' },
});
const hello = defineOperation({ name: 'hello', input: z.object({}), output: z.object({ ok: z.boolean() }), handler: () => ({ ok: true }), graphql: { type: 'query' } });

async function eventually(test: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!test()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(10);
  }
}

describe('tracing GraphQL over WebSocket', () => {
  let app: App;
  let wsUrl: string;

  beforeAll(async () => {
    app = createApp({
      onLog: () => undefined,
      shutdown: false,
      observability: { tracing: { enabled: true, serviceName: 'ws', tracerProvider: provider } },
      protocols: { graphql: true },
    });
    app.use(async (ctx, next) => {
      if (ctx.headers.authorization !== 'Bearer ok') throw new HTTPError(401, 'Unauthorized');
      await next();
    });
    app.operation(ticks).operation(hello);
    wsUrl = `${(await app.listen(0, '127.0.0.1')).url.replace('http', 'ws')}/graphql`;
  });

  afterAll(async () => {
    await app?.close();
    await provider.shutdown();
  });

  const client = (token: string | undefined): Client =>
    createClient({ url: wsUrl, webSocketImpl: WebSocket, retryAttempts: 0, lazy: false, onNonLazyError: () => undefined, connectionParams: token === undefined ? {} : { token } });
  const run = (ws: Client, query: string): Promise<void> =>
    new Promise((resolve, reject) => ws.subscribe({ query }, { next: () => undefined, error: reject, complete: resolve }));

  it("ends the upgrade request's server span at connection_init with 101, and leaves no span open", async () => {
    exporter.reset();
    const ws = client('ok');
    try {
      await run(ws, 'subscription { ticks(n: 3) { i } }');
      await run(ws, '{ hello { ok } }');
    } finally {
      await ws.dispose();
    }
    await eventually(() => open.size === 0);
    const spans = exporter.getFinishedSpans();
    const upgrade = spans.filter((span) => span.attributes['http.response.status_code'] !== undefined);
    expect(upgrade.map((span) => [span.name, span.attributes['http.response.status_code'], span.attributes['http.route']])).toEqual([['GET /graphql', 101, '/graphql']]);
    const operations = spans.filter((span) => span.name.startsWith('operation '));
    expect(operations.map((span) => span.name).sort()).toEqual(['operation hello', 'operation ticks']);
    // The connection's operations are in its trace.
    for (const span of operations) expect(span.spanContext().traceId).toBe(upgrade[0]!.spanContext().traceId);
  });

  it("ends a refused connection's span with the refusal's status", async () => {
    exporter.reset();
    const ws = client(undefined);
    try {
      await expect(run(ws, '{ hello { ok } }')).rejects.toMatchObject({ code: 4401 });
    } finally {
      await ws.dispose();
    }
    await eventually(() => open.size === 0);
    expect(exporter.getFinishedSpans().map((span) => [span.name, span.attributes['http.response.status_code']])).toEqual([['GET /graphql', 401]]);
  });

  it('leaves no span open after many connections', async () => {
    const clients = Array.from({ length: 20 }, (_, i) => client(i % 4 === 0 ? undefined : 'ok'));
    await Promise.allSettled(clients.map((ws) => run(ws, 'subscription { ticks(n: 2) { i } }')));
    for (const ws of clients) await ws.dispose();
    await eventually(() => open.size === 0);
    expect([...open.values()]).toEqual([]);
  });
});
