import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// The schemas the demo serves are generated from its operations and committed (schemas/, proto/,
// and its typed client, src/client.ts):
// regenerated here from the built app into a temporary directory, they must be byte for byte the
// committed files. When this fails, run `pnpm --filter @fw/demo emit` and commit the result.
const DEMO = join(__dirname, '..');
const FW = require.resolve('@fw/app/package.json').replace(/package\.json$/, join('dist', 'bin', 'fw.js'));

function fwEmit(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [FW, 'emit', join(DEMO, 'dist', 'app.js'), ...args], { cwd: DEMO, timeout: 30_000 }, (err, stdout, stderr) => {
      resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : 1, stdout, stderr });
    });
  });
}

describe('the committed schemas', () => {
  let out: string;

  beforeAll(async () => {
    out = await mkdtemp(join(tmpdir(), 'fw-demo-emit-'));
  });

  afterAll(async () => {
    await rm(out, { recursive: true, force: true });
  });

  it('are what fw emit generates from the demo app now', async () => {
    const run = await fwEmit('--out', out, '--proto-out', join(out, 'proto'), '--client', join(out, 'client.ts'));
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect((await readdir(out)).sort()).toEqual(['client.ts', 'openapi.json', 'proto', 'schema.graphql']);
    expect(await readdir(join(out, 'proto'))).toEqual(await readdir(join(DEMO, 'proto')));
    for (const [generated, committed] of [
      ['schema.graphql', 'schemas/schema.graphql'],
      ['openapi.json', 'schemas/openapi.json'],
      ['proto/bookstore/bookstore.proto', 'proto/bookstore/bookstore.proto'],
      ['client.ts', 'src/client.ts'],
    ] as const) {
      expect([committed, await readFile(join(out, generated), 'utf8')]).toEqual([committed, await readFile(join(DEMO, committed), 'utf8')]);
    }
  });

  it('serve the catalogue and the orders from one definition each on GraphQL and gRPC', async () => {
    const schema = await readFile(join(DEMO, 'schemas', 'schema.graphql'), 'utf8');
    // A query takes flat arguments, a mutation one input argument.
    for (const field of ['getBook(id: String!): Book!', 'myOrders: [Order!]!', 'placeOrder(input: PlaceOrderInput!): Order!']) {
      expect(schema).toContain(field);
    }
    expect(schema).toMatch(/listBooks\([^)]*genre: Genre[^)]*limit: Int = 20[^)]*\): \[Book!\]!/);
    const proto = await readFile(join(DEMO, 'proto', 'bookstore', 'bookstore.proto'), 'utf8');
    // The reads (a REST GET, a GraphQL query) have no side effects: Connect clients may call them with GET.
    for (const rpc of ['GetBook(GetBookRequest) returns (GetBookResponse)', 'ListBooks(ListBooksRequest) returns (ListBooksResponse)', 'MyOrders(MyOrdersRequest) returns (MyOrdersResponse)']) {
      expect(proto).toContain(`rpc ${rpc} {\n    option idempotency_level = NO_SIDE_EFFECTS;\n  }`);
    }
    expect(proto).toContain('rpc PlaceOrder(PlaceOrderRequest) returns (PlaceOrderResponse);');
    for (const rpc of ['OrderEvents(OrderEventsRequest) returns (stream OrderEventsResponse)', 'StockEvents(StockEventsRequest) returns (stream StockEventsResponse)']) {
      expect(proto).toContain(`rpc ${rpc};`);
    }
  });

  it('serve the live events as a Subscription on GraphQL and server streams on gRPC', async () => {
    const schema = await readFile(join(DEMO, 'schemas', 'schema.graphql'), 'utf8');
    const subscription = /type Subscription \{[\s\S]*?\n\}/.exec(schema)?.[0] ?? 'no type Subscription in schema.graphql';
    expect(subscription).toMatch(/orderEvents\([^)]*orderId: String[^)]*\): OrderEvent!/);
    expect(subscription).toMatch(/stockEvents\([^)]*bookId: String[^)]*\): StockEvent!/);
    const proto = await readFile(join(DEMO, 'proto', 'bookstore', 'bookstore.proto'), 'utf8');
    expect(proto).toContain('rpc OrderEvents(OrderEventsRequest) returns (stream OrderEventsResponse);');
    expect(proto).toContain('rpc StockEvents(StockEventsRequest) returns (stream StockEventsResponse);');
  });
});
