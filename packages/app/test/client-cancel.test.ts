import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { SpanStatusCode } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { z } from 'zod';
import { createApp, toHTTPError, type App, type Middleware } from '@fw/app';
import { logger } from '@fw/app/middleware';
import { EVENT_FW_CLIENT_CANCELLED } from '@fw/app/tracing';
import { defineOperation } from '@fw/app/validate';
import { parsePrometheusText, samplesOf } from '../../../tooling/testing/prometheus.js';

// A client that cancels or leaves is not an error, on every protocol, with real clients: a grpc-js
// client that calls cancel() (unary and server stream), HTTP clients that destroy their socket
// (a REST call, server-sent events, GraphQL over HTTP and over SSE) and a GraphQL WebSocket that
// drops. For each: the handler's ctx.signal aborts, the log has no stack (the app's onLog, the
// logger() access log, and an error middleware of the usual kind on gRPC calls), no span is
// failed, and the metrics count no server error.

/** What each handler saw: that it started, and whether its signal had aborted when it finished. */
const runs = new Map<string, { started: number; aborted: boolean[] }>();
const runOf = (key: string) => {
  let run = runs.get(key);
  if (run === undefined) runs.set(key, (run = { started: 0, aborted: [] }));
  return run;
};

const slow = defineOperation({
  name: 'slow',
  input: z.object({ tag: z.string() }),
  output: z.object({ ok: z.boolean() }),
  handler: async ({ tag }, ctx) => {
    const run = runOf(tag);
    run.started++;
    try {
      await sleep(10_000, undefined, { signal: ctx.signal });
    } finally {
      run.aborted.push(ctx.signal.aborted);
    }
    return { ok: true };
  },
  rest: { method: 'GET', path: '/slow' },
  graphql: { type: 'query' },
  grpc: { service: 'shop.Clock' },
});

const ticks = defineOperation({
  name: 'ticks',
  stream: true,
  input: z.object({ tag: z.string() }),
  output: z.object({ i: z.int32() }),
  handler: async function* ({ tag }, ctx) {
    const run = runOf(tag);
    run.started++;
    try {
      for (let i = 0; ; i++) {
        yield { i };
        await sleep(15, undefined, { signal: ctx.signal });
      }
    } finally {
      run.aborted.push(ctx.signal.aborted);
    }
  },
  rest: { method: 'GET', path: '/ticks' },
  graphql: { type: 'subscription' },
  grpc: { service: 'shop.Clock' },
});

/** Error middleware as apps write it: logs the stack of what `toHTTPError` calls a server error, answers the error body. */
const errorMiddleware = (log: (line: string) => void): Middleware =>
  async function errors(ctx, next) {
    try {
      await next();
    } catch (err) {
      const error = toHTTPError(err);
      if (error.statusCode >= 500) log(`error middleware: ${err instanceof Error ? err.stack : String(err)}`);
      ctx.json({ error: true, message: error.message }, error.statusCode);
    }
  };

async function eventually(test: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!test()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(10);
  }
}

/** A line of a stack trace (`    at fn (file:1:2)`). */
const STACK_FRAME = /\n\s+at /;

describe('a client that cancels or leaves (real clients on every protocol)', () => {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const logs: string[] = [];
  let app: App;
  let base: string;
  let protoDir: string;
  let client: grpc.Client & Record<string, (request: unknown, ...rest: unknown[]) => grpc.ClientUnaryCall & grpc.ClientReadableStream<unknown>>;

  beforeAll(async () => {
    app = createApp({
      onLog: (message, error) => logs.push(error instanceof Error ? `${message} ${error.stack}` : message),
      shutdown: false,
      observability: {
        metrics: { enabled: true },
        tracing: { enabled: true, serviceName: 'clock', tracerProvider: provider },
      },
      protocols: { graphql: true, grpc: { port: 0, host: '127.0.0.1', middleware: [errorMiddleware((line) => logs.push(line)), 'global'] } },
    });
    app.use(logger({ stream: (line) => logs.push(line), colors: false }));
    app.operation(slow).operation(ticks);
    protoDir = await mkdtemp(join(tmpdir(), 'fw-cancel-'));
    for (const { file, text } of app.getProtocolManager()!.grpc!.generateProtos()) {
      await mkdir(dirname(join(protoDir, file)), { recursive: true });
      await writeFile(join(protoDir, file), text);
    }
    base = (await app.listen(0, '127.0.0.1')).url;
    const definition = protoLoader.loadSync(join(protoDir, 'shop', 'shop.proto'), { keepCase: true, defaults: true });
    const pkg = grpc.loadPackageDefinition(definition) as unknown as { shop: { Clock: grpc.ServiceClientConstructor } };
    client = new pkg.shop.Clock(app.getProtocolManager()!.getGrpcAddress()!.target, grpc.credentials.createInsecure()) as never;
  });

  afterAll(async () => {
    client?.close();
    await app?.close();
    await provider.shutdown();
    if (protoDir) await rm(protoDir, { recursive: true, force: true });
  });

  /**
   * Runs `leave` (which starts a call tagged `tag` and walks away from it), waits until the handler
   * has finished and its operation span has ended, and checks what the server made of it.
   */
  async function expectNoError(tag: string, operation: 'slow' | 'ticks', leave: () => Promise<void>): Promise<void> {
    exporter.reset();
    const logged = logs.length;
    await leave();
    await eventually(() => runOf(tag).aborted.length === 1 && exporter.getFinishedSpans().some((span) => span.name === `operation ${operation}`));
    // The server span of the request ends once its status is known: give it a moment.
    await sleep(100);
    expect(runOf(tag)).toEqual({ started: 1, aborted: [true] });
    const lines = logs.slice(logged);
    expect(lines.filter((line) => STACK_FRAME.test(line) || line.startsWith('[ERROR]'))).toEqual([]);
    const spans = exporter.getFinishedSpans();
    expect(spans.filter((span) => span.status.code === SpanStatusCode.ERROR).map((span) => span.name)).toEqual([]);
    expect(spans.flatMap((span) => span.events.filter((event) => event.name === 'exception').map(() => span.name))).toEqual([]);
    if (operation === 'slow') {
      expect(spans.find((span) => span.name === 'operation slow')!.events.map((event) => event.name)).toEqual([EVENT_FW_CLIENT_CANCELLED]);
    }
  }

  it('gRPC unary: a grpc-js client that cancels the call', async () => {
    await expectNoError('grpc-unary', 'slow', async () => {
      const call = client.Slow!({ tag: 'grpc-unary' }, () => undefined);
      await eventually(() => runOf('grpc-unary').started === 1);
      call.cancel();
    });
  });

  it('gRPC server stream: a grpc-js client that cancels after three events', async () => {
    await expectNoError('grpc-stream', 'ticks', async () => {
      const stream = client.Ticks!({ tag: 'grpc-stream' });
      let received = 0;
      stream.on('data', () => received++);
      stream.on('error', () => undefined);
      await eventually(() => received >= 3);
      stream.cancel();
    });
  });

  it('REST: an HTTP client that destroys its socket before the answer', async () => {
    await expectNoError('rest-unary', 'slow', async () => {
      const req = http.get(`${base}/slow?tag=rest-unary`);
      req.on('error', () => undefined);
      await eventually(() => runOf('rest-unary').started === 1);
      req.destroy();
    });
    // The access log's plain line for it.
    expect(logs.filter((line) => line.includes('/slow?tag=rest-unary') || line.includes('GET /slow'))).toEqual([expect.stringMatching(/^\[499\] GET \/slow - \d+ms$/)]);
  });

  it('REST server-sent events: an HTTP client that destroys its socket mid-stream', async () => {
    await expectNoError('rest-sse', 'ticks', async () => {
      let received = 0;
      const req = http.get(`${base}/ticks?tag=rest-sse`, { headers: { accept: 'text/event-stream' } }, (res) => res.on('data', (chunk: Buffer) => (received += chunk.toString().split('data:').length - 1)));
      req.on('error', () => undefined);
      await eventually(() => received >= 3);
      req.destroy();
    });
  });

  it('GraphQL over HTTP: a client that destroys its socket while the field runs', async () => {
    await expectNoError('graphql-http', 'slow', async () => {
      const req = http.request(`${base}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' } });
      req.on('error', () => undefined);
      req.end(JSON.stringify({ query: 'query Clock { slow(tag: "graphql-http") { ok } }' }));
      await eventually(() => runOf('graphql-http').started === 1);
      req.destroy();
    });
  });

  it('GraphQL over SSE: a client that destroys its socket mid-subscription', async () => {
    await expectNoError('graphql-sse', 'ticks', async () => {
      let received = 0;
      const req = http.request(`${base}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/event-stream' } }, (res) =>
        res.on('data', (chunk: Buffer) => (received += chunk.toString().split('event: next').length - 1)),
      );
      req.on('error', () => undefined);
      req.end(JSON.stringify({ query: 'subscription { ticks(tag: "graphql-sse") { i } }' }));
      await eventually(() => received >= 3);
      req.destroy();
    });
  });

  it('GraphQL over WebSocket: a client whose socket drops mid-subscription', async () => {
    let socket: WebSocket | undefined;
    const ws = createClient({
      url: `${base.replace('http', 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      retryAttempts: 0,
      on: { connected: (connected) => void (socket = connected as WebSocket) },
    });
    try {
      await expectNoError('graphql-ws', 'ticks', async () => {
        let received = 0;
        ws.subscribe({ query: 'subscription { ticks(tag: "graphql-ws") { i } }' }, { next: () => void received++, error: () => undefined, complete: () => undefined });
        await eventually(() => received >= 3);
        socket!.terminate();
      });
    } finally {
      await ws.dispose();
    }
  });

  it('counts none of them as a server error: no 5xx, no INTERNAL or UNKNOWN, no error.type', async () => {
    const text = parsePrometheusText(await (await fetch(`${base}/metrics`)).text());
    expect(text.samples.filter((sample) => sample.labels.error_type !== undefined)).toEqual([]);
    const statuses = samplesOf(text, 'http_server_request_duration_seconds_count', {}).map((s) => `${s.labels.http_route} ${s.labels.http_response_status_code}`);
    expect(statuses.filter((status) => /\s5\d\d$/.test(status))).toEqual([]);
    expect(statuses).toContain('/slow 499');
    const rpc = samplesOf(text, 'rpc_server_call_duration_seconds_count', {}).map((s) => [s.labels.rpc_method, s.labels.rpc_status_code, s.value]);
    expect(rpc.sort()).toEqual([
      ['shop.Clock/Slow', 'CANCELLED', 1],
      ['shop.Clock/Ticks', 'CANCELLED', 1],
    ]);
    const calls = samplesOf(text, 'fw_operation_calls_total', {}).map((s) => [s.labels.fw_operation_name, s.labels.fw_protocol, s.value]);
    expect(calls.sort()).toEqual([
      ['slow', 'graphql', 1],
      ['slow', 'grpc', 1],
      ['slow', 'http', 1],
      ['ticks', 'graphql', 2],
      ['ticks', 'grpc', 1],
      ['ticks', 'http', 1],
    ]);
  });
});
