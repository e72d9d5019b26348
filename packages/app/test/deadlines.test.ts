import { mkdtemp, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { z } from 'zod';
import { createApp, type App, type RequestContext } from '@fw/app';
import { defineOperation } from '@fw/app/validate';

// One deadline on every transport, through real sockets: an operation's `timeout`, and the deadline
// a client sends (grpc-js `deadline`, Connect's `Connect-Timeout-Ms`), end the call with
// deadline_exceeded on REST, GraphQL, gRPC and Connect, and abort the handler's signal with it.

/** What each handler run saw: the deadline it was given (ms from its start) and why its signal aborted. */
interface Seen {
  budget: number | undefined;
  reason: string | undefined;
}
const seen: Seen[] = [];

/** Waits until the call's signal aborts (never answers by itself), recording what it saw. */
async function waitForAbort(ctx: RequestContext): Promise<never> {
  const entry: Seen = { budget: ctx.deadline === undefined ? undefined : ctx.deadline - Date.now(), reason: undefined };
  seen.push(entry);
  return new Promise<never>((_resolve, reject) => {
    const abort = (): void => {
      const reason = ctx.signal.reason as { code?: string } | undefined;
      entry.reason = reason?.code ?? 'no code';
      reject(ctx.signal.reason);
    };
    if (ctx.signal.aborted) abort();
    else ctx.signal.addEventListener('abort', abort, { once: true });
  });
}

const Out = z.object({ done: z.boolean() }).meta({ id: 'ReportResult' });

// A deadline of its own: 150 ms.
const slow = defineOperation({
  name: 'slowReport',
  input: z.object({ id: z.string() }),
  output: Out,
  timeout: 150,
  handler: (_input, ctx) => waitForAbort(ctx),
  rest: { method: 'POST', path: '/reports' },
  graphql: { type: 'mutation' },
  grpc: { service: 'clock.v1.Clock' },
});

// No deadline of its own: the client's is the only one.
const open = defineOperation({
  name: 'openReport',
  input: z.object({ id: z.string() }),
  output: Out,
  handler: (_input, ctx) => waitForAbort(ctx),
  rest: { method: 'GET', path: '/open-reports' },
  graphql: { type: 'query' },
  grpc: { service: 'clock.v1.Clock' },
});

type Unary = (request: unknown, metadata: grpc.Metadata, options: grpc.CallOptions, callback: (err: grpc.ServiceError | null, reply?: unknown) => void) => void;

describe('deadlines on every transport (real sockets)', () => {
  let app: App;
  let base: string;
  let client: grpc.Client & Record<string, Unary>;
  let protoDir: string;
  // What the app logged: a deadline that passed is an outcome of the call, not a server fault.
  const logged: string[] = [];

  beforeAll(async () => {
    app = createApp({ onLog: (message) => logged.push(message), shutdown: false, protocols: { graphql: {}, grpc: { port: 0, host: '127.0.0.1' }, connect: true } });
    app.operation(slow).operation(open);
    protoDir = await mkdtemp(join(tmpdir(), 'fw-deadlines-'));
    for (const { file, text } of app.getProtocolManager()!.grpc!.generateProtos()) {
      await mkdir(dirname(join(protoDir, file)), { recursive: true });
      await writeFile(join(protoDir, file), text);
    }
    // A REST route that calls a gRPC service, passing its deadline on, as the README shows.
    app.route({
      method: 'GET',
      path: '/proxy',
      timeout: 250,
      handler: async (ctx) => {
        const err = await new Promise<grpc.ServiceError | null>((resolve) => client['OpenReport']!({ id: 'p' }, new grpc.Metadata(), { deadline: ctx.deadline ?? Infinity }, (e) => resolve(e)));
        // The client library gives up at the same moment the route's deadline passes: whichever
        // timer fires first, the request ends with the route's 504.
        if (err?.code === grpc.status.DEADLINE_EXCEEDED && !ctx.signal.aborted) await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
        ctx.json({ grpcCode: err?.code });
      },
    });
    base = (await app.listen(0, '127.0.0.1')).url;
    const definition = protoLoader.loadSync(join(protoDir, 'clock', 'v1', 'clock.proto'), { keepCase: true, defaults: true });
    const pkg = grpc.loadPackageDefinition(definition) as unknown as { clock: { v1: { Clock: grpc.ServiceClientConstructor } } };
    client = new pkg.clock.v1.Clock(app.getProtocolManager()!.getGrpcAddress()!.target, grpc.credentials.createInsecure()) as never;
  });

  afterAll(async () => {
    client?.close();
    await app?.close();
    if (protoDir) await rm(protoDir, { recursive: true, force: true });
  });

  beforeEach(() => {
    seen.length = 0;
  });

  afterEach(() => {
    expect(logged).toEqual([]);
  });

  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

  function rpc(method: string, request: unknown, options: grpc.CallOptions = {}): Promise<grpc.ServiceError | null> {
    return new Promise((resolve) => client[method]!(request, new grpc.Metadata(), options, (err) => resolve(err)));
  }

  it("ends an operation at its timeout on REST, GraphQL, gRPC and Connect, with deadline_exceeded", async () => {
    const [rest, graphql, grpcError, connect] = await Promise.all([
      post('/reports', { id: 'r' }),
      post('/graphql', { query: 'mutation { slowReport(input: { id: "r" }) { done } }' }, { accept: 'application/json' }),
      rpc('SlowReport', { id: 'r' }),
      post('/clock.v1.Clock/SlowReport', { id: 'r' }, { 'connect-protocol-version': '1' }),
    ]);
    expect(rest.status).toBe(504);
    // The REST error body: `code` is the status (the spec's shape), the code string is in the message's error table.
    expect(await rest.json()).toEqual({ error: true, code: 504, message: 'The deadline of 150 ms passed' });

    const gql = (await graphql.json()) as { data: unknown; errors: Array<{ message: string; extensions: { status: number } }> };
    expect(gql.data).toBeNull();
    expect(gql.errors).toHaveLength(1);
    expect(gql.errors[0]).toMatchObject({ message: 'The deadline of 150 ms passed', extensions: { status: 504 } });

    expect(grpcError?.code).toBe(grpc.status.DEADLINE_EXCEEDED);
    expect(grpcError?.details).toBe('The deadline of 150 ms passed');

    expect(connect.status).toBe(504);
    expect(await connect.json()).toEqual({ code: 'deadline_exceeded', message: 'The deadline of 150 ms passed' });

    // Every handler run was given the operation's budget and saw its signal abort with the error.
    expect(seen).toHaveLength(4);
    for (const run of seen) {
      expect(run.reason).toBe('deadline_exceeded');
      expect(run.budget).toBeGreaterThan(0);
      expect(run.budget).toBeLessThanOrEqual(150);
    }
  });

  it("takes the client's earlier deadline: grpc-js deadline and Connect-Timeout-Ms", async () => {
    const [grpcError, connect] = await Promise.all([
      rpc('OpenReport', { id: 'r' }, { deadline: Date.now() + 200 }),
      post('/clock.v1.Clock/OpenReport', { id: 'r' }, { 'connect-protocol-version': '1', 'connect-timeout-ms': '200' }),
    ]);
    expect(grpcError?.code).toBe(grpc.status.DEADLINE_EXCEEDED);
    expect(connect.status).toBe(504);
    expect(((await connect.json()) as { code: string }).code).toBe('deadline_exceeded');
    // Both handlers ran with the client's deadline as ctx.deadline, and were told when it passed.
    await waitFor(() => seen.length === 2 && seen.every((s) => s.reason !== undefined));
    for (const run of seen) {
      expect(run.budget).toBeGreaterThan(0);
      expect(run.budget).toBeLessThanOrEqual(200);
      expect(run.reason).toBe('deadline_exceeded');
    }
  });

  it("keeps the operation's own deadline when the client's is later", async () => {
    const grpcError = await rpc('SlowReport', { id: 'r' }, { deadline: Date.now() + 30_000 });
    expect(grpcError?.code).toBe(grpc.status.DEADLINE_EXCEEDED);
    expect(grpcError?.details).toBe('The deadline of 150 ms passed');
    expect(seen[0]!.budget).toBeLessThanOrEqual(150);
  });

  it('passes a REST route\'s deadline into an outgoing gRPC call: both end at the same time', async () => {
    const res = await fetch(`${base}/proxy`);
    expect(res.status).toBe(504);
    expect(((await res.json()) as { message: string }).message).toBe('The deadline of 250 ms passed');
    // The gRPC handler ran with the REST request's deadline (sent as grpc-timeout) and was told when it passed.
    await waitFor(() => seen.length === 1 && seen[0]!.reason !== undefined);
    expect(seen[0]!.budget).toBeGreaterThan(0);
    expect(seen[0]!.budget).toBeLessThanOrEqual(250);
    expect(seen[0]!.reason).toBe('deadline_exceeded');
  });

  it('serves the next calls normally after deadlines passed', async () => {
    const app2 = createApp({ onLog: () => undefined, shutdown: false });
    app2.operation(
      defineOperation({
        name: 'quick',
        input: z.object({}),
        output: Out,
        timeout: 150,
        handler: () => ({ done: true }),
        rest: { method: 'POST', path: '/quick' },
      }),
    );
    const url = (await app2.listen(0, '127.0.0.1')).url;
    try {
      const res = await fetch(`${url}/quick`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ done: true });
    } finally {
      await app2.close();
    }
  });
});

async function waitFor(check: () => boolean, ms = 5_000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
