import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { z } from 'zod';
import { createApp, type App } from '@fw/app';
import { defineOperation } from '@fw/app/validate';
import { parsePrometheusText, samplesOf, type PromText } from '../../../../tooling/testing/prometheus.js';
import { graphqlRequest } from '../support.js';

// fw_operation_calls_total counts the operations that ran, by the name of their definition, on
// every protocol: through real sockets (fetch, GraphQL POSTs, a grpc-js client of the generated
// .proto) and a scrape of GET /metrics after each step. A GraphQL document's own name (the client's
// choice, unbounded) is never a label, and never counts a call of the operation it happens to name.

let transfers = 0;

const getBook = defineOperation({
  name: 'getBook',
  input: z.object({ id: z.string() }),
  output: z.object({ id: z.string(), title: z.string() }),
  handler: async ({ id }) => ({ id, title: `Book ${id}` }),
  rest: { method: 'GET', path: '/books/:id' },
  graphql: { type: 'query' },
  grpc: { service: 'shop.Books' },
});

const transfer = defineOperation({
  name: 'transfer',
  input: z.object({ from: z.string(), to: z.string() }),
  output: z.object({ ok: z.boolean() }),
  handler: async () => {
    transfers++;
    return { ok: true };
  },
  rest: { method: 'POST', path: '/transfers' },
  graphql: { type: 'mutation' },
  grpc: { service: 'shop.Books' },
});

type Unary = (request: unknown, callback: (err: grpc.ServiceError | null, reply?: unknown) => void) => void;

/** The count of `fw_operation_calls_total` for the operation on each protocol (absent protocols are 0). */
function calls(text: PromText, name: string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const sample of samplesOf(text, 'fw_operation_calls_total', { fw_operation_name: name })) {
    const protocol = sample.labels.fw_protocol!;
    counts[protocol] = (counts[protocol] ?? 0) + sample.value;
  }
  return counts;
}

describe('fw_operation_calls_total on REST, GraphQL and gRPC (real sockets)', () => {
  let app: App;
  let base: string;
  let protoDir: string;
  let client: grpc.Client & Record<string, Unary>;
  let args: (id: string) => string;
  let transferArgs: string;

  const scrape = async (): Promise<PromText> => parsePrometheusText(await (await fetch(`${base}/metrics`)).text());
  const graphql = (query: string) => graphqlRequest(`${base}/graphql`, query);
  const rpc = (method: string, request: unknown) =>
    new Promise<unknown>((resolve, reject) => client[method]!(request, (err, reply) => (err === null ? resolve(reply) : reject(err))));

  beforeAll(async () => {
    app = createApp({
      onLog: () => undefined,
      shutdown: false,
      observability: { metrics: { enabled: true, serviceName: 'books' } },
      protocols: { graphql: true, grpc: { port: 0, host: '127.0.0.1' } },
    });
    app.operation(getBook).operation(transfer);
    protoDir = await mkdtemp(join(tmpdir(), 'fw-metrics-ops-'));
    for (const { file, text } of app.getProtocolManager()!.grpc!.generateProtos()) {
      await mkdir(dirname(join(protoDir, file)), { recursive: true });
      await writeFile(join(protoDir, file), text);
    }
    base = (await app.listen(0, '127.0.0.1')).url;
    const definition = protoLoader.loadSync(join(protoDir, 'shop', 'shop.proto'), { keepCase: true, defaults: true });
    const pkg = grpc.loadPackageDefinition(definition) as unknown as { shop: { Books: grpc.ServiceClientConstructor } };
    client = new pkg.shop.Books(app.getProtocolManager()!.getGrpcAddress()!.target, grpc.credentials.createInsecure()) as never;
    // A generated field takes the input as arguments or as one `input` object: ask the schema which.
    const probe = await graphql('{ q: __type(name: "Query") { fields { name args { name } } } m: __type(name: "Mutation") { fields { name args { name } } } }');
    type Fields = { fields: Array<{ name: string; args: Array<{ name: string }> }> };
    const types = probe.body.data as { q: Fields; m: Fields };
    const wrapped = (name: string) => [...types.q.fields, ...types.m.fields].find((f) => f.name === name)!.args.some((a) => a.name === 'input');
    args = (id) => (wrapped('getBook') ? `input: { id: "${id}" }` : `id: "${id}"`);
    transferArgs = wrapped('transfer') ? 'input: { from: "a", to: "b" }' : 'from: "a", to: "b"';
  });

  afterAll(async () => {
    client?.close();
    await app?.close();
    if (protoDir) await rm(protoDir, { recursive: true, force: true });
  });

  it('counts nothing for an operation that 20 documents are named after, when their field is another operation or fails validation', async () => {
    const before = await scrape();
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => graphql(`query transfer { getBook(${args(String(i))}) { id } }`)));
    expect(answers.map((answer) => answer.status)).toEqual(Array.from({ length: 20 }, () => 200));
    const refused = await Promise.all([
      ...Array.from({ length: 10 }, () => graphql('query transfer { getBook { id } }')),
      ...Array.from({ length: 10 }, () => graphql('mutation transfer { transfer(nope: 1) { ok } }')),
    ]);
    expect(refused.every((answer) => answer.body.errors !== undefined && answer.body.data === undefined)).toBe(true);
    const after = await scrape();
    expect(transfers).toBe(0);
    expect(calls(after, 'transfer')).toEqual({});
    expect((calls(after, 'getBook').graphql ?? 0) - (calls(before, 'getBook').graphql ?? 0)).toBe(20);
    // Nor is the document's name a label anywhere else (the GraphQL request histogram included).
    for (const sample of after.samples) {
      if (sample.name.startsWith('graphql_server_request_duration')) expect(sample.labels.graphql_operation_name).not.toBe('transfer');
    }
  });

  it('counts a call on each protocol under the name of its definition, whatever the document is named', async () => {
    const before = await scrape();
    await (await fetch(`${base}/books/1`)).text();
    await (await fetch(`${base}/transfers`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ from: 'a', to: 'b' }) })).text();
    expect((await graphql(`query Storefront { getBook(${args('2')}) { id } }`)).status).toBe(200);
    expect((await graphql(`{ getBook(${args('3')}) { title } }`)).status).toBe(200);
    expect((await graphql(`mutation getBook { transfer(${transferArgs}) { ok } }`)).body.errors).toBeUndefined();
    await rpc('GetBook', { id: '4' });
    await rpc('Transfer', { from: 'a', to: 'b' });
    const after = await scrape();
    const delta = (name: string): Record<string, number> => {
      const now = calls(after, name);
      const then = calls(before, name);
      return Object.fromEntries(Object.entries(now).map(([protocol, value]) => [protocol, value - (then[protocol] ?? 0)]));
    };
    expect(delta('getBook')).toEqual({ http: 1, graphql: 2, grpc: 1 });
    expect(delta('transfer')).toEqual({ http: 1, graphql: 1, grpc: 1 });
    expect(transfers).toBe(3);
    for (const sample of after.samples) expect(Object.values(sample.labels)).not.toContain('Storefront');
  });

  it('counts each operation field of a document that ran, and labels the GraphQL request only with a name that ran', async () => {
    const before = calls(await scrape(), 'getBook').graphql ?? 0;
    const answer = await graphql(`query getBook { a: getBook(${args('5')}) { id } b: getBook(${args('6')}) { id } c: getBook(${args('7')}) { id } }`);
    expect(answer.body.data).toEqual({ a: { id: '5' }, b: { id: '6' }, c: { id: '7' } });
    const after = await scrape();
    expect((calls(after, 'getBook').graphql ?? 0) - before).toBe(3);
    const named = samplesOf(after, 'graphql_server_request_duration_seconds_count', { graphql_operation_type: 'query', graphql_operation_name: 'getBook' });
    expect(named.map((s) => s.value)).toEqual([2]);
    // The mutation document named getBook ran transfer only: it carries no name.
    expect(samplesOf(after, 'graphql_server_request_duration_seconds_count', { graphql_operation_type: 'mutation' }).map((s) => s.labels.graphql_operation_name)).toEqual([undefined]);
  });
});
