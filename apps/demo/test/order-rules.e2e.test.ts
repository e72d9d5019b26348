import * as grpc from '@grpc/grpc-js';
import { mintToken } from '../src/auth.js';
import { DEV_JWT_SECRET } from '../src/config.js';
import { ORDER_LIMITS } from '../src/domain/rules.js';
import { startDemoProcess, type DemoProcess } from './demo-process.js';
import { catalogClient, metadata, unary, type CatalogClient } from './grpc-client.js';

// Placing an order is one operation (src/operations.ts) with one middleware list, and the order
// rules (how many lines, how much stock) are one function in the domain, so REST, GraphQL, gRPC and
// Connect agree by construction. Each rule is checked here on all four, through a real HTTP
// request, a real GraphQL POST, a real grpc-js client and a Connect JSON POST (as a browser sends
// it, to the HTTP port) against the demo process.
jest.setTimeout(60_000);

type Line = { bookId: string; quantity: number };
interface Outcome {
  /** The HTTP status, the GraphQL `extensions.status`, or the HTTP status of the gRPC code. */
  status: number;
  message: string;
}

const GRPC_TO_HTTP: Record<number, number> = {
  [grpc.status.INVALID_ARGUMENT]: 400,
  [grpc.status.UNAUTHENTICATED]: 401,
  [grpc.status.PERMISSION_DENIED]: 403,
  [grpc.status.NOT_FOUND]: 404,
  [grpc.status.ALREADY_EXISTS]: 409,
  [grpc.status.FAILED_PRECONDITION]: 409,
  [grpc.status.ABORTED]: 409,
};

/** Connect's error codes are gRPC's names in snake_case: the same rows as GRPC_TO_HTTP. */
const CONNECT_TO_HTTP: Record<string, number> = Object.fromEntries(
  Object.entries(GRPC_TO_HTTP).map(([code, status]) => [grpc.status[Number(code)]!.toLowerCase(), status]),
);

describe('the order rules, the same on REST, GraphQL and gRPC', () => {
  let demo: DemoProcess;
  let client: CatalogClient;
  /** A valid token of a user with no role at all. */
  let guestToken: string;

  beforeAll(async () => {
    demo = await startDemoProcess({ RATE_LIMIT_MAX: '100000', JWT_SECRET: DEV_JWT_SECRET });
    client = catalogClient(demo.endpoints.grpc);
    guestToken = await mintToken({ id: 'u-guest', roles: [] }, DEV_JWT_SECRET);
  });

  afterAll(async () => {
    client?.close();
    if (demo) await demo.stop();
  });

  const auth = (token: string | undefined): Record<string, string> => (token === undefined ? {} : { authorization: `Bearer ${token}` });

  async function rest(lines: Line[], token: string | undefined): Promise<Outcome> {
    const res = await fetch(`${demo.endpoints.rest}/api/v1/orders`, { method: 'POST', headers: { 'content-type': 'application/json', ...auth(token) }, body: JSON.stringify({ lines }) });
    const body = (await res.json()) as { message?: string };
    return { status: res.status, message: body.message ?? '' };
  }

  async function graphql(lines: Line[], token: string | undefined, headers: Record<string, string> = auth(token)): Promise<Outcome> {
    const res = await fetch(demo.endpoints.graphql, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
      body: JSON.stringify({ query: 'mutation($input: PlaceOrderInput!) { placeOrder(input: $input) { id totalCents } }', variables: { input: { lines } } }),
    });
    const body = (await res.json()) as { data?: unknown; errors?: Array<{ message: string; extensions?: { status?: number } }> };
    const error = body.errors?.[0];
    if (error === undefined) return { status: res.status, message: '' };
    return { status: error.extensions?.status ?? res.status, message: error.message };
  }

  async function grpcOrder(lines: Line[], token: string | undefined): Promise<Outcome & { code?: number }> {
    try {
      await unary((cb) => client.PlaceOrder({ lines: lines.map(({ bookId, quantity }) => ({ book_id: bookId, quantity })) }, metadata(token), cb));
      return { status: 200, message: '' };
    } catch (err) {
      const error = err as grpc.ServiceError;
      return { status: GRPC_TO_HTTP[error.code] ?? 500, message: error.details, code: error.code };
    }
  }

  async function connectOrder(lines: Line[], token: string | undefined): Promise<Outcome> {
    const res = await fetch(`${demo.endpoints.rest}/bookstore.Catalog/PlaceOrder`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'connect-protocol-version': '1', ...auth(token) },
      body: JSON.stringify({ lines }),
    });
    const body = (await res.json()) as { code?: string; message?: string };
    if (res.ok) return { status: 200, message: '' };
    return { status: CONNECT_TO_HTTP[body.code ?? ''] ?? 500, message: body.message ?? '' };
  }

  async function stockOf(id: string): Promise<number> {
    return ((await fetch(`${demo.endpoints.rest}/api/v1/books/${id}`).then((r) => r.json())) as { stock: number }).stock;
  }

  const protocols = [
    ['REST', rest],
    ['GraphQL', graphql],
    ['gRPC', grpcOrder],
    ['Connect', connectOrder],
  ] as const;

  /** The outcome of the same order on each protocol, one after the other. */
  async function everyProtocol(lines: Line[], token: string | undefined): Promise<Outcome[]> {
    const outcomes: Outcome[] = [];
    for (const [, place] of protocols) outcomes.push(await place(lines, token));
    return outcomes;
  }

  it.each(protocols)('%s: refuses with 409 an order whose lines for one book add up to more than its stock, and sells nothing', async (_name, place) => {
    expect(await stockOf('b3')).toBe(3);
    const outcome = await place([{ bookId: 'b3', quantity: 2 }, { bookId: 'b3', quantity: 2 }], demo.endpoints.customerToken);
    expect(outcome).toEqual({ status: 409, message: 'Not enough stock', ...(_name === 'gRPC' ? { code: expect.any(Number) } : {}) });
    expect(await stockOf('b3')).toBe(3);
  });

  it('answers FAILED_PRECONDITION over gRPC for an order beyond the stock (not ALREADY_EXISTS)', async () => {
    const outcome = await grpcOrder([{ bookId: 'b3', quantity: 4 }], demo.endpoints.customerToken);
    expect(outcome.code).toBe(grpc.status.FAILED_PRECONDITION);
  });

  it('refuses 200 GraphQL lines of 5 copies for a book with 5 in stock, and sells nothing', async () => {
    const lines = Array.from({ length: 200 }, () => ({ bookId: 'b2', quantity: 5 }));
    expect(await graphql(lines, demo.endpoints.customerToken)).toEqual({ status: 400, message: `An order has at most ${ORDER_LIMITS.maxLines} lines` });
    expect(await stockOf('b2')).toBe(5);
  });

  it(`refuses an order of more than ${ORDER_LIMITS.maxLines} lines with the same 400 on every protocol`, async () => {
    const lines = Array.from({ length: ORDER_LIMITS.maxLines + 1 }, () => ({ bookId: 'b4', quantity: 1 }));
    const outcomes = await everyProtocol(lines, demo.endpoints.customerToken);
    const expected = { status: 400, message: `An order has at most ${ORDER_LIMITS.maxLines} lines` };
    expect(outcomes.map(({ status, message }) => ({ status, message }))).toEqual(Array(4).fill(expected));
    expect(await stockOf('b4')).toBe(40);
  });

  it.each([[0], [ORDER_LIMITS.maxQuantity + 1], [-3]])('refuses a line of quantity %d with the same 400 on every protocol', async (quantity) => {
    const lines = [{ bookId: 'b4', quantity: 1 }, { bookId: 'b4', quantity }];
    const outcomes = await everyProtocol(lines, demo.endpoints.customerToken);
    const expected = { status: 400, message: `Line 2: the quantity must be a whole number from 1 to ${ORDER_LIMITS.maxQuantity}` };
    expect(outcomes.map(({ status, message }) => ({ status, message }))).toEqual(Array(4).fill(expected));
    expect(await stockOf('b4')).toBe(40);
  });

  it('refuses an order naming an unknown book with 404 on every protocol', async () => {
    const lines = [{ bookId: 'b404', quantity: 1 }];
    const outcomes = await everyProtocol(lines, demo.endpoints.customerToken);
    expect(outcomes.map((o) => o.status)).toEqual([404, 404, 404, 404]);
  });

  it('asks for a token (401) on every protocol', async () => {
    const lines = [{ bookId: 'b4', quantity: 1 }];
    const outcomes = await everyProtocol(lines, undefined);
    expect(outcomes.map((o) => o.status)).toEqual([401, 401, 401, 401]);
  });

  it('refuses a valid token without the customer role (403) on every protocol, for orders and for the order list', async () => {
    const lines = [{ bookId: 'b4', quantity: 1 }];
    const outcomes = await everyProtocol(lines, guestToken);
    expect(outcomes.map(({ status, message }) => ({ status, message }))).toEqual(Array(4).fill({ status: 403, message: 'Insufficient permissions' }));
    const restList = await fetch(`${demo.endpoints.rest}/api/v1/orders`, { headers: auth(guestToken) });
    expect(restList.status).toBe(403);
    const gqlList = await fetch(demo.endpoints.graphql, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', ...auth(guestToken) },
      body: JSON.stringify({ query: '{ myOrders { id } }' }),
    }).then((r) => r.json() as Promise<{ errors?: Array<{ extensions?: { status?: number } }> }>);
    expect(gqlList.errors?.[0]?.extensions?.status).toBe(403);
    expect(await stockOf('b4')).toBe(40);
  });

  it('takes a valid token written with two spaces after Bearer on GraphQL as REST does (the user of the request, not a re-parse)', async () => {
    const headers = { authorization: `Bearer  ${demo.endpoints.customerToken}` };
    const viaGraphQL = await graphql([{ bookId: 'b4', quantity: 1 }], undefined, headers);
    expect(viaGraphQL).toEqual({ status: 200, message: '' });
    const viaRest = await fetch(`${demo.endpoints.rest}/api/v1/orders`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ lines: [{ bookId: 'b4', quantity: 1 }] }) });
    expect(viaRest.status).toBe(201);
    expect(await stockOf('b4')).toBe(38);
  });

  it('sells the last copies exactly once when orders race on all four protocols (last: it empties b3)', async () => {
    const line = [{ bookId: 'b3', quantity: 1 }];
    const token = demo.endpoints.customerToken;
    const outcomes = await Promise.all([...protocols, ...protocols].map(([, place]) => place(line, token)));
    const sold = outcomes.filter((o) => o.status === 200 || o.status === 201).length;
    expect(sold).toBe(3);
    expect(outcomes.filter((o) => o.status === 409)).toHaveLength(5);
    expect(await stockOf('b3')).toBe(0);
  });
});
