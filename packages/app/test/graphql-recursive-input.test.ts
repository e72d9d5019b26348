import { buildSchema } from 'graphql';
import { createApp, type App, type GrpcUnaryHandler } from '@fw/app';
import { getItem, itemsClient, SHOP_PROTO } from './support.js';

// A variable of a self-referencing input type (the usual `where` filter) once sent graphql-jit's
// variable compiler into endless recursion on its second request: the event loop stalled and the
// process ran out of memory. Such documents run on graphql-js, also with `executor: 'jit'` (set
// here); every protocol keeps answering.

const schema = buildSchema(/* GraphQL */ `
  input Cond {
    eq: String
    not: Cond
    and: [Cond!]
  }
  type Query {
    matches(where: Cond): Int
  }
`);

interface Cond {
  eq?: string;
  not?: Cond;
  and?: Cond[];
}
const depth = (cond: Cond | undefined): number => (cond === undefined ? 0 : 1 + Math.max(depth(cond.not), ...(cond.and ?? []).map(depth)));

let app: App;
let url: string;
let client: ReturnType<typeof itemsClient>;

beforeAll(async () => {
  app = createApp({
    adapter: { type: 'node-http' },
    onLog: () => undefined,
    protocols: {
      graphql: { schema, rootValue: { matches: ({ where }: { where?: Cond }) => depth(where) }, executor: 'jit' },
      grpc: {
        port: 0,
        host: '127.0.0.1',
        protoPath: SHOP_PROTO,
        services: {
          'shop.Items': {
            Get: ((call, callback) => callback(null, { id: call.request.id, owner: 'grpc' })) satisfies GrpcUnaryHandler<{ id: string }, { id: string; owner: string }>,
          },
        },
      },
    },
  });
  app.get('/ping', (ctx) => ctx.json({ ok: true }));
  const info = await app.listen(0, '127.0.0.1');
  url = info.url;
  client = itemsClient(app.getProtocolManager()!.getGrpcAddress()!.target);
});

afterAll(async () => {
  client?.close();
  await app?.close();
});

it('answers GraphQL, a unary gRPC call and a REST request while recursive-input documents keep arriving', async () => {
  const query = 'query ($w: Cond) { matches(where: $w) }';
  const variables = { w: { eq: 'a', not: { eq: 'b', and: [{ not: { eq: 'c' } }] } } };
  const send = async (): Promise<unknown> => {
    const res = await fetch(`${url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify({ query, variables }) });
    return res.json();
  };
  // The same traffic with a flat input just before: the same machine at the same moment.
  const flat = async (): Promise<unknown> => {
    const res = await fetch(`${url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify({ query: '{ __typename }' }) });
    return res.json();
  };
  let t = performance.now();
  await Promise.all([...Array.from({ length: 21 }, flat), getItem(client, '6'), fetch(`${url}/ping`).then((r) => r.json())]);
  const baseline = performance.now() - t;
  t = performance.now();
  // Many runs of one document (compiled from its second run, were it compilable) beside the other protocols.
  const graphqlAnswers = Promise.all(Array.from({ length: 20 }, send));
  const [grpcItem, rest] = await Promise.all([getItem(client, '7'), fetch(`${url}/ping`).then((r) => r.json())]);
  expect(grpcItem).toEqual({ id: '7', owner: 'grpc' });
  expect(rest).toEqual({ ok: true });
  for (const answer of await graphqlAnswers) expect(answer).toEqual({ data: { matches: 4 } });
  // And again, after the document is cached and would have been compiled.
  const [again, grpcAgain, restAgain] = await Promise.all([send(), getItem(client, '8'), fetch(`${url}/ping`).then((r) => r.json())]);
  expect(again).toEqual({ data: { matches: 4 } });
  expect(grpcAgain).toEqual({ id: '8', owner: 'grpc' });
  expect(restAgain).toEqual({ ok: true });
  // Within 5 s, or ten times the flat traffic's time on a machine slower than that.
  expect(performance.now() - t).toBeLessThan(Math.max(5_000, 10 * baseline));
});
