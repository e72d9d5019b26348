import * as grpc from '@grpc/grpc-js';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { buildSchema } from 'graphql';
import { createApp, HTTPError, type App, type GrpcUnaryHandler } from '@fw/app';
import { getItem, graphqlRequest, itemsClient, SHOP_PROTO } from './support.js';

// Tracing across the three protocols of one app, through real sockets and a real grpc-js client.
const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const PARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

describe('tracing across REST, GraphQL and gRPC', () => {
  let app: App;
  let url: string;
  let client: ReturnType<typeof itemsClient>;
  const seen: Array<{ protocol?: string; traceId?: string }> = [];

  beforeAll(async () => {
    app = createApp({
      onLog: () => undefined,
      observability: { tracing: { enabled: true, serviceName: 'shop', tracerProvider: provider } },
      protocols: {
        graphql: {
          schema: buildSchema('type Query { hello: String }'),
          rootValue: { hello: () => 'world' },
        },
        grpc: {
          port: 0,
          host: '127.0.0.1',
          protoPath: SHOP_PROTO,
          services: {
            'shop.Items': {
              Get: (async (call) => {
                const trace = call.ctx.trace as { protocol: string; traceId: string } | undefined;
                seen.push({ protocol: trace?.protocol, traceId: trace?.traceId });
                if (call.request.id === 'boom') throw new Error('database down');
                return { id: call.request.id, owner: 'nobody' };
              }) satisfies GrpcUnaryHandler<{ id: string }, { id: string; owner: string }>,
            },
          },
        },
      },
    });
    app.get('/items/:id', (ctx) => {
      seen.push({ protocol: ctx.trace?.protocol, traceId: ctx.trace?.traceId });
      const span = ctx.startSpan?.('load item', { 'item.id': ctx.params.id });
      ctx.endSpan?.(span);
      if (ctx.params.id === 'boom') throw new HTTPError(503, 'Backend unavailable');
      ctx.json({ id: ctx.params.id });
    });
    url = (await app.listen(0, '127.0.0.1')).url;
    client = itemsClient(app.getProtocolManager()!.getGrpcAddress()!.target);
  });

  afterAll(async () => {
    client?.close();
    await app?.close();
    await provider.shutdown();
  });

  beforeEach(() => {
    exporter.reset();
    seen.length = 0;
  });

  it('gives each REST request a server span named by route template, child of the incoming traceparent', async () => {
    const res = await fetch(`${url}/items/42`, { headers: { traceparent: PARENT } });
    expect(res.status).toBe(200);
    expect(res.headers.get('traceparent')).toMatch(/^00-0af7651916cd43dd8448eb211c80319c-[0-9a-f]{16}-01$/);
    const spans = exporter.getFinishedSpans();
    const server = spans.find((s) => s.name === 'GET /items/:id')!;
    expect(server).toBeDefined();
    expect(server.spanContext().traceId).toBe('0af7651916cd43dd8448eb211c80319c');
    expect(server.parentSpanContext?.spanId).toBe('b7ad6b7169203331');
    expect(server.attributes).toMatchObject({ 'http.request.method': 'GET', 'http.route': '/items/:id', 'url.path': '/items/42', 'http.response.status_code': 200 });
    const child = spans.find((s) => s.name === 'load item')!;
    expect(child.parentSpanContext?.spanId).toBe(server.spanContext().spanId);
    expect(seen).toEqual([{ protocol: 'http', traceId: '0af7651916cd43dd8448eb211c80319c' }]);
  });

  it('marks a 5xx REST span as an error', async () => {
    expect((await fetch(`${url}/items/boom`)).status).toBe(503);
    const server = exporter.getFinishedSpans().find((s) => s.name === 'GET /items/:id')!;
    expect(server.status.code).toBe(2);
    expect(server.attributes['http.response.status_code']).toBe(503);
  });

  it('names the GraphQL span by operation type and name', async () => {
    const res = await graphqlRequest(`${url}/graphql`, 'query Greeting { hello }');
    expect(res.body).toEqual({ data: { hello: 'world' } });
    const span = exporter.getFinishedSpans().find((s) => s.name === 'query Greeting');
    expect(span).toBeDefined();
    expect(span!.attributes).toMatchObject({ 'graphql.operation.type': 'query', 'graphql.operation.name': 'Greeting' });
  });

  it('gives each gRPC call a server span named by full method, child of traceparent metadata', async () => {
    const metadata = new grpc.Metadata();
    metadata.set('traceparent', PARENT);
    await new Promise<void>((resolve, reject) =>
      client.Get({ id: 'x' }, metadata, (err: grpc.ServiceError | null) => (err ? reject(err) : resolve())),
    );
    const span = exporter.getFinishedSpans().find((s) => s.name === 'shop.Items/Get')!;
    expect(span).toBeDefined();
    expect(span.spanContext().traceId).toBe('0af7651916cd43dd8448eb211c80319c');
    expect(span.attributes).toMatchObject({ 'rpc.system': 'grpc', 'rpc.service': 'shop.Items', 'rpc.method': 'Get', 'rpc.grpc.status_code': 0 });
    expect(seen).toEqual([{ protocol: 'grpc', traceId: '0af7651916cd43dd8448eb211c80319c' }]);
  });

  it('records a failed gRPC call with its status code', async () => {
    await expect(getItem(client, 'boom')).rejects.toMatchObject({ code: grpc.status.INTERNAL });
    const span = exporter.getFinishedSpans().find((s) => s.name === 'shop.Items/Get')!;
    expect(span.attributes['rpc.grpc.status_code']).toBe(grpc.status.INTERNAL);
    expect(span.status.code).toBe(2);
  });
});

describe('tracing switched off', () => {
  it('adds no helpers to the context', async () => {
    const app = createApp({ observability: { tracing: { enabled: false, serviceName: 'off' } } });
    app.get('/x', (ctx) => ctx.json({ trace: 'trace' in ctx, startSpan: 'startSpan' in ctx }));
    expect((await app.inject('/x')).json()).toEqual({ trace: false, startSpan: false });
  });
});
