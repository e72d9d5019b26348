import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createFileRegistry, fromBinary, toJson, type DescMessage, type DescService } from '@bufbuild/protobuf';
import { FileDescriptorSetSchema } from '@bufbuild/protobuf/wkt';
import { Code, ConnectError, createClient, type Transport } from '@connectrpc/connect';
import { createConnectTransport, createGrpcWebTransport } from '@connectrpc/connect-node';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { z } from 'zod';
import { createApp, HTTPError, type App, type Middleware, type RequestContext } from '@fw/app';
import { authenticate, rateLimit, requireRole } from '@fw/app/middleware';
import { defineOperation } from '@fw/app/validate';
import { bufImage } from '../../../tooling/testing/buf.js';

// One operation set served on REST, GraphQL, gRPC, Connect and gRPC-Web at once, through real
// sockets: a fetch, a GraphQL POST, a grpc-js client loading the generated .proto, and
// @connectrpc/connect-node's Connect and gRPC-Web transports with descriptors `buf build` made
// from it. For the same input, the five answer the same result or the same refusal; each case runs
// the protocols concurrently.
// The gRPC client speaks the generated proto as any client does: lower_snake_case field names, a
// named output as one field of the <Method>Response.

/** Writes the generated .proto files where they are generated: in their package's directory. */
async function writeProtos(dir: string, files: Array<{ file: string; text: string }>): Promise<void> {
  for (const { file, text } of files) {
    await mkdir(dirname(join(dir, file)), { recursive: true });
    await writeFile(join(dir, file), text);
  }
}

/** The token is the user id; "admin" has the admin role, anyone else none. */
const verifier = (token: string) => ({ sub: token, roles: token === 'admin' ? ['admin'] : [] });

const Item = z.object({ id: z.string(), name: z.string(), qty: z.int32(), tags: z.array(z.string()), unitCents: z.int32() }).meta({ id: 'Item' });
type ItemOut = z.output<typeof Item>;
const items = new Map<string, ItemOut>([['i1', { id: 'i1', name: 'Lamp', qty: 3, tags: ['home', 'light'], unitCents: 1250 }]]);

/** An item as the generated proto carries it: `unitCents` is `unit_cents` there, while handlers and the other protocols say `unitCents`. */
const onTheWire = ({ unitCents, ...rest }: ItemOut) => ({ ...rest, unit_cents: unitCents });

const getItem = defineOperation({
  name: 'getItem',
  input: z.object({ id: z.string().min(2) }),
  output: Item,
  handler: async ({ id }) => {
    const item = items.get(id);
    if (item === undefined) throw new HTTPError(404, `No item ${id}`);
    // Keys the output does not name are never sent, on any protocol.
    return { ...item, secret: 'do-not-send' };
  },
  rest: { method: 'GET', path: '/items/:id' },
  graphql: { type: 'query' },
  grpc: { service: 'shop.Items' },
});

const addItem = defineOperation({
  name: 'addItem',
  input: z.object({ name: z.string().min(1), qty: z.int32().min(1).max(10), tags: z.array(z.string()).default([]), unitCents: z.int32().min(0).default(0) }),
  output: Item,
  middleware: [authenticate({ verifier }), requireRole('admin')],
  handler: async (input, ctx) => {
    // @ts-expect-error the input has no `owner`: the handler's input is typed from the input schema
    void input.owner;
    const qty: number = input.qty;
    // The id is made from the input alone, so the same request gives the same answer on every protocol.
    return { id: `${input.name.toLowerCase()}-${qty}-${(ctx.user as { sub: string }).sub}`, name: input.name, qty, tags: input.tags, unitCents: input.unitCents };
  },
  rest: { method: 'POST', path: '/items', status: 201 },
  graphql: { type: 'mutation' },
  grpc: { service: 'shop.Items' },
});

// One request per protocol per minute: the bucket is keyed by protocol and media type (Connect and
// gRPC-Web share a protocol), so concurrent protocols do not share it.
const ping = defineOperation({
  name: 'ping',
  input: z.object({ word: z.string() }),
  output: z.object({ echo: z.string() }),
  middleware: [rateLimit({ windowMs: 60_000, maxRequests: 1, keyGenerator: (ctx) => `ping ${ctx.protocol} ${String(ctx.headers['content-type'] ?? '')}` })],
  handler: async ({ word }) => ({ echo: word }),
  rest: { method: 'GET', path: '/ping' },
  graphql: { type: 'query' },
  grpc: { service: 'shop.Items' },
});

/** What each protocol answered, in one form: the result, or the HTTP status and message of the refusal. */
type Outcome = { ok: true; value: unknown } | { ok: false; status: number; message: string; fields?: Array<{ field: string; message: string }> };

const GRPC_TO_HTTP: Record<number, number> = {
  [grpc.status.INVALID_ARGUMENT]: 400,
  [grpc.status.UNAUTHENTICATED]: 401,
  [grpc.status.PERMISSION_DENIED]: 403,
  [grpc.status.NOT_FOUND]: 404,
  [grpc.status.RESOURCE_EXHAUSTED]: 429,
};
const CONNECT_TO_HTTP: Partial<Record<Code, number>> = {
  [Code.InvalidArgument]: 400,
  [Code.Unauthenticated]: 401,
  [Code.PermissionDenied]: 403,
  [Code.NotFound]: 404,
  [Code.ResourceExhausted]: 429,
};
const GRAPHQL_CODES: Record<number, string> = { 400: 'BAD_USER_INPUT', 401: 'UNAUTHENTICATED', 403: 'FORBIDDEN', 404: 'NOT_FOUND', 429: 'TOO_MANY_REQUESTS' };

// google/rpc/status.proto and error_details.proto, as much as a client needs to read BadRequest. The
// Decoder service is never called: proto-loader gives each message of a method a decoder.
const RICH_STATUS_PROTO = `
syntax = "proto3";
package google.rpc;
message Any { string type_url = 1; bytes value = 2; }
message Status { int32 code = 1; string message = 2; repeated Any details = 3; }
message BadRequest {
  message FieldViolation { string field = 1; string description = 2; }
  repeated FieldViolation field_violations = 1;
}
service Decoder { rpc Read(Status) returns (BadRequest); }
`;

interface Decoders {
  status(bytes: Buffer): { code: number; details: Array<{ type_url: string; value: Buffer }> };
  badRequest(bytes: Buffer): { field_violations: Array<{ field: string; description: string }> };
}

/** The field violations of `grpc-status-details-bin` (google.rpc.Status with google.rpc.BadRequest). */
function violations(decode: Decoders, err: grpc.ServiceError): Array<{ field: string; message: string }> | undefined {
  const bytes = err.metadata.get('grpc-status-details-bin')[0];
  if (!(bytes instanceof Buffer)) return undefined;
  const status = decode.status(bytes);
  expect(status.code).toBe(err.code);
  const detail = status.details.find((d) => d.type_url === 'type.googleapis.com/google.rpc.BadRequest');
  if (detail === undefined) return undefined;
  return decode.badRequest(detail.value).field_violations.map((v) => ({ field: v.field, message: v.description }));
}

/** Strips the protocol's prefix from a field name: `body.qty`, `input.qty` and `qty` are one field. */
const unprefixed = (fields: Array<{ field: string; message: string }> | undefined) => fields?.map((f) => ({ field: f.field.replace(/^(?:params|query|body|input)\./, ''), message: f.message }));

type Unary = (request: unknown, metadata: grpc.Metadata, callback: (err: grpc.ServiceError | null, reply?: unknown) => void) => void;

describe('one operation set on REST, GraphQL, gRPC, Connect and gRPC-Web at once (real sockets)', () => {
  let app: App;
  let base: string;
  let client: grpc.Client & Record<string, Unary>;
  let protoDir: string;
  let decode: Decoders;
  let service: DescService;
  let badRequest: DescMessage;
  let connectTransport: Transport;
  let grpcWebTransport: Transport;

  beforeAll(async () => {
    app = createApp({
      onLog: () => undefined,
      protocols: { graphql: {}, grpc: { port: 0, host: '127.0.0.1', middleware: 'global' }, connect: true },
    });
    app.use(authenticate({ verifier, optional: true }));
    app.operation(getItem).operation(addItem).operation(ping);
    // The client loads the generated .proto from a file, as a client in another program does.
    protoDir = await mkdtemp(join(tmpdir(), 'fw-ops-'));
    const generated = app.getProtocolManager()!.grpc!.generateProtos();
    expect(generated.map(({ file }) => file)).toEqual(['shop/shop.proto']);
    await writeProtos(protoDir, generated);
    await writeFile(join(protoDir, 'rich-status.proto'), RICH_STATUS_PROTO);
    const rich = (protoLoader.loadSync(join(protoDir, 'rich-status.proto'), { keepCase: true, defaults: true })['google.rpc.Decoder'] as protoLoader.ServiceDefinition).Read!;
    decode = { status: (b) => rich.requestDeserialize(b) as never, badRequest: (b) => rich.responseDeserialize(b) as never };
    const info = await app.listen(0, '127.0.0.1');
    base = info.url;
    const definition = protoLoader.loadSync(join(protoDir, 'shop', 'shop.proto'), { keepCase: true, longs: Number, enums: String, defaults: true });
    const pkg = grpc.loadPackageDefinition(definition) as unknown as { shop: { Items: grpc.ServiceClientConstructor } };
    client = new pkg.shop.Items(app.getProtocolManager()!.getGrpcAddress()!.target, grpc.credentials.createInsecure()) as never;
    const registry = createFileRegistry(fromBinary(FileDescriptorSetSchema, await bufImage([...generated, { file: 'rich-status.proto', text: RICH_STATUS_PROTO }])));
    service = registry.getService('shop.Items')!;
    badRequest = registry.getMessage('google.rpc.BadRequest')!;
    connectTransport = createConnectTransport({ baseUrl: base, httpVersion: '1.1' });
    grpcWebTransport = createGrpcWebTransport({ baseUrl: base, httpVersion: '1.1' });
  });

  afterAll(async () => {
    client?.close();
    await app?.close();
    if (protoDir) await rm(protoDir, { recursive: true, force: true });
  });

  const headers = (token?: string): Record<string, string> => (token === undefined ? {} : { authorization: `Bearer ${token}` });

  async function rest(method: 'GET' | 'POST', path: string, body: unknown, token?: string): Promise<Outcome> {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { ...headers(token), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await res.json()) as { message: string; details?: { errors?: Array<{ field: string; message: string }> } };
    if (res.ok) return { ok: true, value: json };
    return { ok: false, status: res.status, message: json.message, ...(json.details?.errors ? { fields: json.details.errors.map(({ field, message }) => ({ field, message })) } : {}) };
  }

  async function graphql(query: string, variables: Record<string, unknown>, token?: string): Promise<Outcome> {
    const res = await fetch(`${base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', ...headers(token) },
      body: JSON.stringify({ query, variables }),
    });
    const json = (await res.json()) as { data?: Record<string, unknown> | null; errors?: Array<{ message: string; extensions: { code: string; status: number; details?: { errors?: Array<{ field: string; message: string }> } } }> };
    const error = json.errors?.[0];
    if (error === undefined) return { ok: true, value: Object.values(json.data!)[0] };
    expect(json.errors).toHaveLength(1);
    expect(error.extensions.code).toBe(GRAPHQL_CODES[error.extensions.status]);
    const fields = error.extensions.details?.errors;
    return { ok: false, status: error.extensions.status, message: error.message, ...(fields ? { fields: fields.map(({ field, message }) => ({ field, message })) } : {}) };
  }

  function rpc(method: string, request: unknown, token?: string): Promise<Outcome> {
    const metadata = new grpc.Metadata();
    if (token !== undefined) metadata.set('authorization', `Bearer ${token}`);
    return new Promise((resolve) => {
      client[method]!(request, metadata, (err, reply) => {
        if (err === null) return resolve({ ok: true, value: reply });
        const fields = violations(decode, err);
        resolve({ ok: false, status: GRPC_TO_HTTP[err.code] ?? err.code, message: err.details, ...(fields ? { fields } : {}) });
      });
    });
  }

  /** A call through @connectrpc/connect-node's client: its reply as proto3 JSON, or the refusal (BadRequest details as fields). */
  async function connectCall(transport: Transport, method: string, request: object, token?: string): Promise<Outcome> {
    const desc = service.methods.find((m) => m.name === method)!;
    const untyped = createClient(service, transport) as unknown as Record<string, (req: object, options: { headers: Record<string, string> }) => Promise<never>>;
    try {
      const reply = await untyped[desc.localName]!(request, { headers: headers(token) });
      return { ok: true, value: toJson(desc.output, reply, { alwaysEmitImplicit: true }) };
    } catch (err) {
      const error = ConnectError.from(err);
      const found = error.findDetails(badRequest)[0] as { fieldViolations: Array<{ field: string; description: string }> } | undefined;
      const fields = found?.fieldViolations.map((v) => ({ field: v.field, message: v.description }));
      return { ok: false, status: CONNECT_TO_HTTP[error.code] ?? error.code, message: error.rawMessage, ...(fields ? { fields } : {}) };
    }
  }
  const connect = (method: string, request: object, token?: string) => connectCall(connectTransport, method, request, token);
  const grpcWeb = (method: string, request: object, token?: string) => connectCall(grpcWebTransport, method, request, token);

  /** The outcomes, with field names unprefixed, for comparison. */
  async function all(...calls: Array<Promise<Outcome>>): Promise<Outcome[]> {
    const outcomes = await Promise.all(calls);
    return outcomes.map((o) => (o.ok || o.fields === undefined ? o : { ...o, fields: unprefixed(o.fields)! }));
  }

  const getItemQuery = 'query($id: String!) { getItem(id: $id) { id name qty tags unitCents } }';
  const addItemMutation = 'mutation($input: AddItemInput!) { addItem(input: $input) { id name qty tags unitCents } }';

  it('answers the same result for the same input, with the keys the output does not name dropped', async () => {
    const outcomes = await all(rest('GET', '/items/i1', undefined), graphql(getItemQuery, { id: 'i1' }), rpc('GetItem', { id: 'i1' }), connect('GetItem', { id: 'i1' }), grpcWeb('GetItem', { id: 'i1' }));
    const item = { id: 'i1', name: 'Lamp', qty: 3, tags: ['home', 'light'], unitCents: 1250 };
    // gRPC: GetItemResponse { Item item = 1; }, the item's fields under their proto names; Connect
    // and gRPC-Web the same message, in proto3 JSON (its lowerCamelCase names).
    expect(outcomes).toEqual([{ ok: true, value: item }, { ok: true, value: item }, { ok: true, value: { item: onTheWire(item) } }, { ok: true, value: { item } }, { ok: true, value: { item } }]);
  });

  it('runs the operation middleware and the handler with the verified user on every protocol', async () => {
    const input = { name: 'Desk', qty: 2, tags: ['office'], unitCents: 4000 };
    // The gRPC client sends `unit_cents`, as the proto names it; the handler reads `unitCents` on every protocol.
    const outcomes = await all(
      rest('POST', '/items', input, 'admin'),
      graphql(addItemMutation, { input }, 'admin'),
      rpc('AddItem', { name: 'Desk', qty: 2, tags: ['office'], unit_cents: 4000 }, 'admin'),
      connect('AddItem', input, 'admin'),
      grpcWeb('AddItem', input, 'admin'),
    );
    const item = { id: 'desk-2-admin', name: 'Desk', qty: 2, tags: ['office'], unitCents: 4000 };
    expect(outcomes).toEqual([{ ok: true, value: item }, { ok: true, value: item }, { ok: true, value: { item: onTheWire(item) } }, { ok: true, value: { item } }, { ok: true, value: { item } }]);
  });

  it('refuses a call without a token with 401 / UNAUTHENTICATED', async () => {
    const input = { name: 'Desk', qty: 2 };
    const outcomes = await all(rest('POST', '/items', input), graphql(addItemMutation, { input }), rpc('AddItem', input), connect('AddItem', input), grpcWeb('AddItem', input));
    const expected = { ok: false, status: 401, message: 'Authentication required' };
    expect(outcomes).toEqual(Array(5).fill(expected));
  });

  it('refuses a token without the role with 403 / PERMISSION_DENIED', async () => {
    const input = { name: 'Desk', qty: 2 };
    const outcomes = await all(
      rest('POST', '/items', input, 'reader'),
      graphql(addItemMutation, { input }, 'reader'),
      rpc('AddItem', input, 'reader'),
      connect('AddItem', input, 'reader'),
      grpcWeb('AddItem', input, 'reader'),
    );
    const expected = { ok: false, status: 403, message: 'Insufficient permissions' };
    expect(outcomes).toEqual(Array(5).fill(expected));
  });

  it('refuses invalid input with the same field list: 400 / BAD_USER_INPUT / INVALID_ARGUMENT with BadRequest', async () => {
    const input = { name: '', qty: 11, unitCents: -1 };
    // gRPC's BadRequest names a field by the schema's key (`unitCents`, the proto JSON name), as REST and GraphQL do.
    const outcomes = await all(
      rest('POST', '/items', input, 'admin'),
      graphql(addItemMutation, { input }, 'admin'),
      rpc('AddItem', { name: '', qty: 11, unit_cents: -1 }, 'admin'),
      connect('AddItem', input, 'admin'),
      grpcWeb('AddItem', input, 'admin'),
    );
    expect(outcomes[0]).toEqual({
      ok: false,
      status: 400,
      message: 'Validation failed',
      fields: [
        { field: 'name', message: 'Too small: expected string to have >=1 characters' },
        { field: 'qty', message: 'Too big: expected number to be <=10' },
        { field: 'unitCents', message: 'Too small: expected number to be >=0' },
      ],
    });
    for (const outcome of outcomes.slice(1)) expect(outcome).toEqual(outcomes[0]);
  });

  it('names where each invalid field came from on REST (params, body) and the argument path on GraphQL and gRPC', async () => {
    const [viaRest, viaGraphQL, viaGrpc] = await Promise.all([rest('GET', '/items/x', undefined), graphql(getItemQuery, { id: 'x' }), rpc('GetItem', { id: 'x' })]);
    const field = (o: Outcome) => (o.ok ? undefined : o.fields?.map((f) => f.field));
    expect([field(viaRest), field(viaGraphQL), field(viaGrpc)]).toEqual([['params.id'], ['id'], ['id']]);
  });

  it('maps an HTTPError 404 thrown by the handler to 404 / NOT_FOUND with its message', async () => {
    const outcomes = await all(rest('GET', '/items/nope', undefined), graphql(getItemQuery, { id: 'nope' }), rpc('GetItem', { id: 'nope' }), connect('GetItem', { id: 'nope' }), grpcWeb('GetItem', { id: 'nope' }));
    const expected = { ok: false, status: 404, message: 'No item nope' };
    expect(outcomes).toEqual(Array(5).fill(expected));
  });

  it('applies the operation rate limit on every protocol: the second call is 429 / RESOURCE_EXHAUSTED', async () => {
    const round = () =>
      all(
        rest('GET', '/ping?word=hi', undefined),
        graphql('query($word: String!) { ping(word: $word) { echo } }', { word: 'hi' }),
        rpc('Ping', { word: 'hi' }),
        connect('Ping', { word: 'hi' }),
        grpcWeb('Ping', { word: 'hi' }),
      );
    const first = await round();
    expect(first).toEqual(Array(5).fill({ ok: true, value: { echo: 'hi' } }));
    const second = await round();
    expect(second).toEqual(Array(5).fill({ ok: false, status: 429, message: 'Too many requests, please try again later' }));
  });
});

describe('one runtime for an operation on REST, GraphQL and gRPC: the same span, the same short-circuit (real sockets)', () => {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  /** The protocols the handler ran on. */
  const ran: string[] = [];

  // Lets the call through, refuses it with a 401, or ends without calling next, as `x-gate` says.
  const gate: Middleware<RequestContext> = async (ctx, next) => {
    const mode = ctx.headers['x-gate'];
    if (mode === 'refuse') throw new HTTPError(401, 'Sign in first');
    if (mode === 'stop') return;
    await next();
  };
  const whoAmI = defineOperation({
    name: 'whoAmI',
    input: z.object({ name: z.string() }),
    output: z.object({ name: z.string(), protocol: z.string() }),
    middleware: [gate],
    handler: ({ name }, ctx) => {
      ran.push(ctx.protocol);
      return { name, protocol: ctx.protocol };
    },
    rest: { method: 'GET', path: '/who' },
    graphql: { type: 'query' },
    grpc: { service: 'desk.Desk' },
  });

  let app: App;
  let base: string;
  let client: grpc.Client & Record<string, Unary>;
  let protoDir: string;

  beforeAll(async () => {
    app = createApp({
      onLog: () => undefined,
      observability: { tracing: { enabled: true, serviceName: 'desk', tracerProvider: provider } },
      protocols: { graphql: {}, grpc: { port: 0, host: '127.0.0.1' } },
    });
    app.operation(whoAmI);
    protoDir = await mkdtemp(join(tmpdir(), 'fw-ops-runtime-'));
    await writeProtos(protoDir, app.getProtocolManager()!.grpc!.generateProtos());
    base = (await app.listen(0, '127.0.0.1')).url;
    const definition = protoLoader.loadSync(join(protoDir, 'desk', 'desk.proto'), { keepCase: true, defaults: true });
    const pkg = grpc.loadPackageDefinition(definition) as unknown as { desk: { Desk: grpc.ServiceClientConstructor } };
    client = new pkg.desk.Desk(app.getProtocolManager()!.getGrpcAddress()!.target, grpc.credentials.createInsecure()) as never;
  });

  afterAll(async () => {
    client?.close();
    await app?.close();
    await provider.shutdown();
    if (protoDir) await rm(protoDir, { recursive: true, force: true });
  });

  beforeEach(() => {
    exporter.reset();
    ran.length = 0;
  });

  /** What a protocol answered: the result, or the HTTP status of the refusal. */
  type Answer = { ok: true; value: unknown } | { ok: false; status: number; message: string };

  async function viaRest(gate: string): Promise<Answer> {
    const res = await fetch(`${base}/who?name=ada`, { headers: { 'x-gate': gate } });
    const json = (await res.json()) as { message: string };
    return res.ok ? { ok: true, value: json } : { ok: false, status: res.status, message: json.message };
  }

  async function viaGraphQL(gate: string): Promise<Answer> {
    const res = await fetch(`${base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', 'x-gate': gate },
      body: JSON.stringify({ query: '{ whoAmI(name: "ada") { name protocol } }' }),
    });
    const json = (await res.json()) as { data?: { whoAmI: unknown } | null; errors?: Array<{ message: string; extensions: { status: number } }> };
    const error = json.errors?.[0];
    return error === undefined ? { ok: true, value: json.data!.whoAmI } : { ok: false, status: error.extensions.status, message: error.message };
  }

  function viaGrpc(gate: string): Promise<Answer> {
    const metadata = new grpc.Metadata();
    metadata.set('x-gate', gate);
    return new Promise((resolve) => {
      client.WhoAmI!({ name: 'ada' }, metadata, (err, reply) => {
        resolve(err === null ? { ok: true, value: reply } : { ok: false, status: GRPC_TO_HTTP[err.code] ?? (err.code === grpc.status.INTERNAL ? 500 : err.code), message: err.details });
      });
    });
  }

  /** The `operation whoAmI` spans, once the three calls' server spans have ended too, each with the server span it is a child of. */
  async function operationSpans(): Promise<Array<{ span: ReadableSpan; parent: ReadableSpan | undefined }>> {
    for (let i = 0; i < 100 && exporter.getFinishedSpans().filter((s) => s.kind === SpanKind.SERVER).length < 3; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    const spans = exporter.getFinishedSpans();
    return spans
      .filter((s) => s.name === 'operation whoAmI')
      .map((span) => ({ span, parent: spans.find((s) => s.spanContext().spanId === span.parentSpanContext?.spanId) }));
  }

  it('runs the operation in a child span "operation <name>" of the request span on every protocol', async () => {
    const answers = await Promise.all([viaRest('open'), viaGraphQL('open'), viaGrpc('open')]);
    expect(answers).toEqual(['http', 'graphql', 'grpc'].map((protocol) => ({ ok: true, value: { name: 'ada', protocol } })));
    const spans = await operationSpans();
    expect(spans).toHaveLength(3);
    for (const { span, parent } of spans) {
      expect(span.attributes).toEqual({ 'fw.operation.name': 'whoAmI' });
      expect(span.status.code).toBe(SpanStatusCode.UNSET);
      expect(parent?.kind).toBe(SpanKind.SERVER);
      expect(parent?.spanContext().traceId).toBe(span.spanContext().traceId);
    }
    expect(new Set(spans.map(({ span }) => span.spanContext().traceId)).size).toBe(3);
  });

  it('answers 401 / UNAUTHENTICATED when the middleware refuses, without running the handler, the span failed', async () => {
    const answers = await Promise.all([viaRest('refuse'), viaGraphQL('refuse'), viaGrpc('refuse')]);
    expect(answers).toEqual(Array(3).fill({ ok: false, status: 401, message: 'Sign in first' }));
    expect(ran).toEqual([]);
    const spans = await operationSpans();
    expect(spans.map(({ span }) => span.status)).toEqual(Array(3).fill({ code: SpanStatusCode.ERROR, message: 'Sign in first' }));
  });

  it('fails the call as an internal error when the middleware ends without calling next, on every protocol', async () => {
    const answers = await Promise.all([viaRest('stop'), viaGraphQL('stop'), viaGrpc('stop')]);
    expect(answers.map((answer) => (answer.ok ? answer : answer.status))).toEqual([500, 500, 500]);
    expect(ran).toEqual([]);
    const spans = await operationSpans();
    expect(spans.map(({ span }) => span.status)).toEqual(
      Array(3).fill({ code: SpanStatusCode.ERROR, message: 'Operation "whoAmI": its middleware ended the request without running the handler' }),
    );
  });
});
