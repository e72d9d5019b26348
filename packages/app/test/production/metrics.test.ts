import { z } from 'zod';
import { createApp, HTTPError } from '@fw/app';
import { defineOperation } from '@fw/app/validate';
import { parsePrometheusText, samplesOf, type PromText } from '../../../../tooling/testing/prometheus.js';
import { getItem, graphqlRequest, itemsClient, SHOP_PROTO } from '../support.js';

// Metrics on every protocol through real sockets: REST requests, GraphQL requests and gRPC calls
// from a grpc-js client, then a scrape of GET /metrics read line by line.

const getBook = defineOperation({
  name: 'getBook',
  input: z.object({ id: z.string() }),
  output: z.object({ id: z.string(), title: z.string() }),
  handler: async ({ id }) => ({ id, title: `Book ${id}` }),
  rest: { method: 'GET', path: '/books/:id' },
  graphql: { type: 'query' },
});

const BUCKETS = ['0.005', '0.01', '0.025', '0.05', '0.075', '0.1', '0.25', '0.5', '0.75', '1', '2.5', '5', '7.5', '10', '+Inf'];

describe('metrics on REST, GraphQL and gRPC', () => {
  const app = createApp({
    onLog: () => undefined,
    shutdown: false,
    observability: { metrics: { enabled: true, serviceName: 'books' } },
    protocols: {
      graphql: true,
      grpc: {
        port: 0,
        host: '127.0.0.1',
        protoPath: SHOP_PROTO,
        services: {
          'shop.Items': {
            Get: (call) => {
              const { id } = (call as { request: { id: string } }).request;
              if (id === 'missing') throw new HTTPError(404, 'no such item');
              if (id === 'boom') throw new Error('bug');
              return { id, owner: 'me' };
            },
          },
        },
      },
    },
  });
  app.operation(getBook);
  let base: string;
  let text: PromText;

  beforeAll(async () => {
    const info = await app.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${info.port}`;
    await (await fetch(`${base}/books/1`)).text();
    await (await fetch(`${base}/books/2`)).text();
    // The generated field takes the input as arguments or as one `input` object: ask the schema which.
    const probe = await graphqlRequest(`${base}/graphql`, '{ __type(name: "Query") { fields { name args { name } } } }');
    const fields = (probe.body.data as { __type: { fields: Array<{ name: string; args: Array<{ name: string }> }> } }).__type.fields;
    const wrapped = fields.find((f) => f.name === 'getBook')!.args.some((a) => a.name === 'input');
    const args = (id: string) => (wrapped ? `input: { id: "${id}" }` : `id: "${id}"`);
    await graphqlRequest(`${base}/graphql`, `{ getBook(${args('1')}) { id title } }`);
    await graphqlRequest(`${base}/graphql`, `query ClientChosenName { getBook(${args('2')}) { id } }`);
    await (await fetch(`${base}/livez`)).text();
    await (await fetch(`${base}/readyz`)).text();
    const client = itemsClient(app.getProtocolManager()!.getGrpcAddress()!.target);
    await getItem(client, 'a1');
    await getItem(client, 'missing').catch(() => undefined);
    await getItem(client, 'boom').catch(() => undefined);
    client.close();
    const res = await fetch(`${base}/metrics`);
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    text = parsePrometheusText(await res.text());
  });
  afterAll(() => app.close());

  it('measures REST requests by route template, in seconds, at the advised buckets', () => {
    expect(text.families.get('http_server_request_duration_seconds')).toMatchObject({ type: 'histogram', unit: 's' });
    const count = samplesOf(text, 'http_server_request_duration_seconds_count', { http_route: '/books/:id', http_request_method: 'GET', http_response_status_code: '200' });
    expect(count.map((s) => s.value)).toEqual([2]);
    expect(samplesOf(text, 'http_server_request_duration_seconds_bucket', { http_route: '/books/:id' }).map((s) => s.labels.le)).toEqual(BUCKETS);
  });

  it('measures GraphQL requests as HTTP requests on their path and as GraphQL requests by operation type', () => {
    // The two operations and the schema probe.
    expect(samplesOf(text, 'http_server_request_duration_seconds_count', { http_route: '/graphql', http_request_method: 'POST' }).map((s) => s.value)).toEqual([3]);
    expect(text.families.get('graphql_server_request_duration_seconds')).toMatchObject({ type: 'histogram', unit: 's' });
    const graphql = samplesOf(text, 'graphql_server_request_duration_seconds_count', { graphql_operation_type: 'query' });
    // The anonymous document is named after the operation it ran; a client's own name is not a label.
    expect(graphql.map((s) => [s.labels.graphql_operation_name, s.value]).sort((a, b) => String(a[0]).localeCompare(String(b[0])))).toEqual([
      ['getBook', 1],
      [undefined, 2],
    ]);
    for (const sample of text.samples) expect(Object.values(sample.labels)).not.toContain('ClientChosenName');
  });

  it('measures gRPC calls by method and status name, with error.type for server errors only', () => {
    expect(text.families.get('rpc_server_call_duration_seconds')).toMatchObject({ type: 'histogram', unit: 's' });
    const calls = samplesOf(text, 'rpc_server_call_duration_seconds_count', { rpc_system_name: 'grpc', rpc_method: 'shop.Items/Get' });
    expect(calls.map((s) => [s.labels.rpc_status_code, s.labels.error_type, s.value]).sort()).toEqual([
      ['INTERNAL', 'internal', 1],
      ['NOT_FOUND', undefined, 1],
      ['OK', undefined, 1],
    ]);
    expect(samplesOf(text, 'rpc_server_call_duration_seconds_bucket', { rpc_status_code: 'OK' }).map((s) => s.labels.le)).toEqual(BUCKETS);
  });

  it('counts calls of the app operations by name and protocol', () => {
    expect(text.families.get('fw_operation_calls_total')?.type).toBe('counter');
    const calls = samplesOf(text, 'fw_operation_calls_total', { fw_operation_name: 'getBook' });
    // The document named ClientChosenName ran getBook: counted under the operation's name.
    expect(calls.map((s) => [s.labels.fw_protocol, s.value]).sort()).toEqual([
      ['graphql', 2],
      ['http', 2],
    ]);
  });

  it('keeps the health and metrics endpoints out of the metrics', () => {
    const paths = new Set(text.samples.map((s) => s.labels.http_route).filter((route) => route !== undefined));
    expect([...paths].sort()).toEqual(['/books/:id', '/graphql']);
    expect(samplesOf(text, 'http_server_request_duration_seconds_count', { http_response_status_code: '404' })).toEqual([]);
  });
});

describe('metrics options', () => {
  it('registers nothing with enabled: false', async () => {
    const app = createApp({ shutdown: false, observability: { metrics: { enabled: false } } });
    expect(app.getPlugin('metrics')).toBeUndefined();
    expect((await app.inject('/metrics')).statusCode).toBe(404);
  });

  it('serves the text on another path', async () => {
    const app = createApp({ shutdown: false, observability: { metrics: { enabled: true, path: '/internal/metrics' } } });
    app.get('/x', (ctx) => ctx.text('x'));
    await app.inject('/x');
    const res = await app.inject('/internal/metrics');
    expect(res.statusCode).toBe(200);
    expect(samplesOf(parsePrometheusText(res.body), 'http_server_request_duration_seconds_count', { http_route: '/x' })).toHaveLength(1);
    await app.close();
  });

  it('refuses unknown keys with the one meant, even with metrics off', () => {
    expect(() => createApp({ observability: { metrics: { enabled: false, pth: '/m' } } } as never)).toThrow(
      'createApp: unknown option "observability.metrics.pth"; did you mean "path"?',
    );
    expect(() => createApp({ observability: { metrics: { enabled: true, otlp: { endpont: 'http://c:4318' } } } } as never)).toThrow(
      'unknown option "observability.metrics.otlp.endpont"; did you mean "endpoint"?',
    );
    expect(() => createApp({ observability: { metric: { enabled: true } } } as never)).toThrow('did you mean "metrics"?');
    expect(() => createApp({ metrics: { enabled: true } } as never)).toThrow('metrics are configured under observability');
    expect(() => createApp({ observability: { metrics: { enabled: 'yes' } } } as never)).toThrow('observability.metrics.enabled must be true or false');
  });
});
