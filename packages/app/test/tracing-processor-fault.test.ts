import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan, type Span, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { z } from 'zod';
import { createApp, type App } from '@fw/app';
import { defineOperation } from '@fw/app/validate';

// Tracing never changes an answer: a span processor whose `onStart` or `onEnd` throws (the SDK
// lets it through `startSpan()` and `span.end()`) is logged, and every protocol answers as it
// would untraced. Real sockets: fetch for REST, GraphQL and server-sent events, a grpc-js client.

type Fault = 'none' | 'start' | 'end';
let fault: Fault = 'none';
const faulty: SpanProcessor = {
  onStart: (_span: Span) => {
    if (fault === 'start') throw new Error('processor onStart failed');
  },
  onEnd: (_span: ReadableSpan) => {
    if (fault === 'end') throw new Error('processor onEnd failed');
  },
  forceFlush: () => Promise.resolve(),
  shutdown: () => Promise.resolve(),
};
const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [faulty, new SimpleSpanProcessor(exporter)] });

const Greeting = z.object({ message: z.string() }).meta({ id: 'Greeting' });
const greet = defineOperation({
  name: 'greet',
  input: z.object({ name: z.string() }),
  output: Greeting,
  handler: ({ name }) => ({ message: `Hello ${name}` }),
  rest: { method: 'POST', path: '/greet' },
  graphql: { type: 'query' },
  grpc: { service: 'hello.v1.Greeter' },
});
const count = defineOperation({
  name: 'count',
  stream: true,
  input: z.object({}),
  output: z.object({ i: z.int32() }),
  handler: async function* () {
    for (let i = 0; i < 3; i++) yield { i };
  },
  rest: { method: 'GET', path: '/count' },
});

type Unary = (request: unknown, callback: (err: grpc.ServiceError | null, reply?: unknown) => void) => void;

describe('a span processor that throws', () => {
  let app: App;
  let base: string;
  let client: grpc.Client & Record<string, Unary>;
  let protoDir: string;
  const logged: Array<{ message: string; error: unknown }> = [];

  beforeAll(async () => {
    app = createApp({
      onLog: (message, error) => logged.push({ message, error }),
      shutdown: false,
      observability: { tracing: { enabled: true, serviceName: 'faulty', tracerProvider: provider } },
      protocols: { graphql: {}, grpc: { port: 0, host: '127.0.0.1' } },
    });
    app.operation(greet).operation(count);
    protoDir = await mkdtemp(join(tmpdir(), 'fw-tracing-fault-'));
    const files = app.getProtocolManager()!.grpc!.generateProtos();
    for (const { file, text } of files) {
      await mkdir(dirname(join(protoDir, file)), { recursive: true });
      await writeFile(join(protoDir, file), text);
    }
    base = (await app.listen(0, '127.0.0.1')).url;
    const definition = protoLoader.loadSync(join(protoDir, files[0]!.file), { keepCase: true, defaults: true });
    const pkg = grpc.loadPackageDefinition(definition) as unknown as { hello: { v1: { Greeter: grpc.ServiceClientConstructor } } };
    client = new pkg.hello.v1.Greeter(app.getProtocolManager()!.getGrpcAddress()!.target, grpc.credentials.createInsecure()) as never;
  });

  afterAll(async () => {
    fault = 'none';
    client?.close();
    await app?.close();
    await provider.shutdown();
    if (protoDir) await rm(protoDir, { recursive: true, force: true });
  });

  beforeEach(() => {
    logged.length = 0;
    exporter.reset();
  });

  /** Every protocol's answer to one call each. */
  async function answers(): Promise<unknown[]> {
    const rest = await fetch(`${base}/greet`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'rest' }) });
    const gql = await fetch(`${base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ query: '{ greet(name: "graphql") { message } }' }),
    });
    const sse = await fetch(`${base}/count`, { headers: { accept: 'text/event-stream' } });
    const events = (await sse.text()).split('\n').filter((line) => line.startsWith('data:'));
    // A failed call is an answer too (its status), so a test's diff shows every protocol at once.
    const rpc = await new Promise((resolve) => client['Greet']!({ name: 'grpc' }, (err, reply) => resolve(err ? { code: err.code, details: err.details } : reply)));
    return [rest.status, await rest.json(), gql.status, await gql.json(), sse.status, events, rpc];
  }

  const EXPECTED = [
    200,
    { message: 'Hello rest' },
    200,
    { data: { greet: { message: 'Hello graphql' } } },
    200,
    ['data: {"i":0}', 'data: {"i":1}', 'data: {"i":2}'],
    { greeting: { message: 'Hello grpc' } },
  ];

  it('answers every protocol as it does with a processor that works', async () => {
    fault = 'none';
    expect(await answers()).toEqual(EXPECTED);
    expect(logged).toEqual([]);
    // The server spans of the four calls and the operations' child spans were exported.
    expect(exporter.getFinishedSpans().map((span) => span.name)).toEqual(expect.arrayContaining(['operation greet', 'operation count', 'hello.v1.Greeter/Greet']));
  });

  it('answers the same when onStart throws, and logs it', async () => {
    fault = 'start';
    expect(await answers()).toEqual(EXPECTED);
    expect(logged.length).toBeGreaterThanOrEqual(4);
    for (const { message, error } of logged) {
      expect(message).toMatch(/^@fw\/tracing: a span processor threw when it started the span/);
      expect(error).toMatchObject({ message: 'processor onStart failed' });
    }
  });

  it('answers the same when onEnd throws, and logs it', async () => {
    fault = 'end';
    expect(await answers()).toEqual(EXPECTED);
    // Each call's server span, and the child span of each operation that ran.
    expect(logged.length).toBeGreaterThanOrEqual(7);
    for (const { message, error } of logged) {
      expect(message).toBe('@fw/tracing: a span processor threw when it ended a span; that span may not be exported');
      expect(error).toMatchObject({ message: 'processor onEnd failed' });
    }
  });
});
