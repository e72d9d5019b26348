import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { z } from 'zod';
import { createApp, ERROR_CODE_STATUS, errorCodeOf, HTTPError, type App, type ErrorCode } from '@fw/app';
import { GRAPHQL_CODE_OF_CODE, graphqlErrorCode } from '@fw/app/graphql';
import { GRPC_STATUS, GRPC_STATUS_OF_CODE, grpcStatusOf, httpStatusFromGrpc } from '@fw/app/grpc';
import { defineOperation } from '@fw/app/validate';

// The one error table: every ErrorCode on every protocol — its HTTP status, GraphQL's
// extensions.code and the gRPC status — as the packages document it. An operation served on the
// three protocols throws `new HTTPError(status, message, undefined, { code })`; the whole table is
// checked in-process (app.inject through the real HTTP and GraphQL pipelines, and the gRPC
// column the runner answers with), and a few codes through real sockets: a fetch, a GraphQL POST
// and a grpc-js client of the generated .proto.

type GrpcName = Exclude<keyof typeof GRPC_STATUS, 'OK'>;

/** code, its default HTTP status, whether it is that status's default code, extensions.code, gRPC status. */
const TABLE: ReadonlyArray<readonly [ErrorCode, number, boolean, string, GrpcName]> = [
  ['cancelled', 499, true, 'CANCELLED', 'CANCELLED'],
  ['unknown', 500, false, 'UNKNOWN', 'UNKNOWN'],
  ['invalid_argument', 400, true, 'BAD_REQUEST', 'INVALID_ARGUMENT'],
  ['deadline_exceeded', 504, true, 'GATEWAY_TIMEOUT', 'DEADLINE_EXCEEDED'],
  ['not_found', 404, true, 'NOT_FOUND', 'NOT_FOUND'],
  ['already_exists', 409, false, 'ALREADY_EXISTS', 'ALREADY_EXISTS'],
  ['permission_denied', 403, true, 'FORBIDDEN', 'PERMISSION_DENIED'],
  ['resource_exhausted', 429, false, 'RESOURCE_EXHAUSTED', 'RESOURCE_EXHAUSTED'],
  ['failed_precondition', 400, false, 'FAILED_PRECONDITION', 'FAILED_PRECONDITION'],
  ['aborted', 409, false, 'ABORTED', 'ABORTED'],
  ['out_of_range', 400, false, 'OUT_OF_RANGE', 'OUT_OF_RANGE'],
  ['unimplemented', 501, false, 'UNIMPLEMENTED', 'UNIMPLEMENTED'],
  ['internal', 500, true, 'INTERNAL_SERVER_ERROR', 'INTERNAL'],
  ['unavailable', 503, true, 'SERVICE_UNAVAILABLE', 'UNAVAILABLE'],
  ['data_loss', 500, false, 'DATA_LOSS', 'DATA_LOSS'],
  ['unauthenticated', 401, true, 'UNAUTHENTICATED', 'UNAUTHENTICATED'],
  ['method_not_allowed', 405, true, 'METHOD_NOT_ALLOWED', 'UNIMPLEMENTED'],
  ['request_timeout', 408, true, 'REQUEST_TIMEOUT', 'DEADLINE_EXCEEDED'],
  ['conflict', 409, true, 'CONFLICT', 'ALREADY_EXISTS'],
  ['payload_too_large', 413, true, 'PAYLOAD_TOO_LARGE', 'RESOURCE_EXHAUSTED'],
  ['unsupported_media_type', 415, true, 'UNSUPPORTED_MEDIA_TYPE', 'INVALID_ARGUMENT'],
  ['unprocessable_entity', 422, true, 'UNPROCESSABLE_ENTITY', 'INVALID_ARGUMENT'],
  ['too_many_requests', 429, true, 'TOO_MANY_REQUESTS', 'RESOURCE_EXHAUSTED'],
  ['not_implemented', 501, true, 'NOT_IMPLEMENTED', 'UNIMPLEMENTED'],
];

/** The codes also sent through real sockets: two a 409 or 400 alone cannot tell apart, and a 5xx. */
const OVER_THE_WIRE: readonly ErrorCode[] = ['already_exists', 'failed_precondition', 'data_loss'];

/** Throws the HTTPError of `code` with its default status; `plain:<code>` throws it without the code option. */
const fail = defineOperation({
  name: 'fail',
  input: z.object({ code: z.string() }),
  output: z.object({ ok: z.boolean() }),
  handler: ({ code }) => {
    const plain = code.startsWith('plain:');
    const name = (plain ? code.slice('plain:'.length) : code) as ErrorCode;
    throw new HTTPError(ERROR_CODE_STATUS[name], `failed as ${name}`, undefined, plain ? undefined : { code: name });
  },
  rest: { method: 'GET', path: '/fail/:code' },
  graphql: { type: 'query' },
  grpc: { service: 'errors.Codes' },
});

const QUERY = 'query($code: String!) { fail(code: $code) { ok } }';

interface GraphQLAnswer {
  data: unknown;
  errors?: Array<{ message: string; extensions: { code: string; status: number } }>;
}

type Unary = (request: unknown, callback: (err: grpc.ServiceError | null, reply?: unknown) => void) => void;

describe('the error table, every code on every protocol', () => {
  let app: App;
  let base: string;
  let protoDir: string;
  let client: grpc.Client & Record<string, Unary>;

  beforeAll(async () => {
    app = createApp({ onLog: () => undefined, protocols: { graphql: {}, grpc: { port: 0, host: '127.0.0.1' } } });
    app.operation(fail);
    protoDir = await mkdtemp(join(tmpdir(), 'fw-error-codes-'));
    for (const { file, text } of app.getProtocolManager()!.grpc!.generateProtos()) {
      await mkdir(dirname(join(protoDir, file)), { recursive: true });
      await writeFile(join(protoDir, file), text);
    }
    base = (await app.listen(0, '127.0.0.1')).url;
    const definition = protoLoader.loadSync(join(protoDir, 'errors', 'errors.proto'), { keepCase: true, defaults: true });
    const pkg = grpc.loadPackageDefinition(definition) as unknown as { errors: { Codes: grpc.ServiceClientConstructor } };
    client = new pkg.errors.Codes(app.getProtocolManager()!.getGrpcAddress()!.target, grpc.credentials.createInsecure()) as never;
  });

  afterAll(async () => {
    client?.close();
    await app?.close();
    if (protoDir) await rm(protoDir, { recursive: true, force: true });
  });

  const graphqlInProcess = async (code: string): Promise<GraphQLAnswer> =>
    (await app.inject({ method: 'POST', url: '/graphql', headers: { accept: 'application/json' }, body: { query: QUERY, variables: { code } } })).json<GraphQLAnswer>();

  it('lists every ErrorCode once', () => {
    expect(TABLE.map(([code]) => code).sort()).toEqual(Object.keys(ERROR_CODE_STATUS).sort());
  });

  describe.each(TABLE)('%s', (code, status, isDefault, graphqlCode, grpcName) => {
    it(`is ${status} on HTTP`, async () => {
      expect(ERROR_CODE_STATUS[code]).toBe(status);
      const res = await app.inject(`/fail/${code}`);
      expect([res.statusCode, res.json()]).toEqual([status, { error: true, message: `failed as ${code}`, code: status }]);
    });

    it(`is ${graphqlCode} in GraphQL's extensions.code`, async () => {
      expect(GRAPHQL_CODE_OF_CODE[code]).toBe(graphqlCode);
      const { errors } = await graphqlInProcess(code);
      expect(errors).toEqual([expect.objectContaining({ message: `failed as ${code}`, extensions: { code: graphqlCode, status } })]);
    });

    it(`is ${grpcName} on gRPC`, () => {
      expect(GRPC_STATUS_OF_CODE[code]).toBe(GRPC_STATUS[grpcName]);
      expect(grpcStatusOf(new HTTPError(status, 'x', undefined, { code }))).toBe(GRPC_STATUS[grpcName]);
    });

    it(isDefault ? `is the code of a ${status} that names none` : `is not the default of ${status}: a ${status} alone is ${errorCodeOf(status)}`, async () => {
      const plain = new HTTPError(status);
      expect(plain.code === code).toBe(isDefault);
      if (!isDefault) return;
      expect(graphqlErrorCode(plain)).toBe(graphqlCode);
      expect(grpcStatusOf(plain)).toBe(GRPC_STATUS[grpcName]);
      expect((await graphqlInProcess(`plain:${code}`)).errors?.[0]?.extensions).toEqual({ code: graphqlCode, status });
    });
  });

  it('maps every gRPC error status back to the code of the same name and its HTTP status', () => {
    for (const [code, status, , , grpcName] of TABLE) {
      if (grpcName.toLowerCase() === code) expect(httpStatusFromGrpc(GRPC_STATUS[grpcName])).toBe(status);
    }
    expect(httpStatusFromGrpc(GRPC_STATUS.OK)).toBe(200);
  });

  describe.each(OVER_THE_WIRE)('%s through real sockets', (code) => {
    const [, status, , graphqlCode, grpcName] = TABLE.find(([c]) => c === code)!;

    it(`is ${status} to a REST request`, async () => {
      const res = await fetch(`${base}/fail/${code}`);
      expect([res.status, await res.json()]).toEqual([status, { error: true, message: `failed as ${code}`, code: status }]);
    });

    it(`is ${graphqlCode} to a GraphQL POST`, async () => {
      const res = await fetch(`${base}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ query: QUERY, variables: { code } }),
      });
      const { errors } = (await res.json()) as GraphQLAnswer;
      expect(errors).toEqual([expect.objectContaining({ message: `failed as ${code}`, extensions: { code: graphqlCode, status } })]);
    });

    it(`is ${grpcName} to a grpc-js client`, async () => {
      const err = await new Promise<grpc.ServiceError | null>((resolve) => client.Fail!({ code }, (error) => resolve(error)));
      expect([err?.code, err?.details]).toEqual([grpc.status[grpcName], `failed as ${code}`]);
    });
  });
});
