import * as grpc from '@grpc/grpc-js';
import { HTTPError } from '@fw/core';
import { ERROR_DETAILS_KEY, INTERNAL_DETAILS, type GrpcServerStreamHandler, type GrpcUnaryHandler } from '../src/index.js';
import { client, collect, failure, start, streams, unary, type EchoReply, type EchoRequest, type Started } from './helpers.js';

interface FailRequest {
  status: number;
  mode: string;
  message: string;
}

// The (call, callback) form: most failures are thrown synchronously, some go through the callback
// or a rejected promise, so every path of a handler is covered.
const Fail: GrpcUnaryHandler<FailRequest, EchoReply> = (call, callback) => {
  const { status, mode, message } = call.request;
  switch (mode) {
    case 'callback':
      callback(new HTTPError(status, message));
      return;
    case 'rejected':
      return Promise.reject(new HTTPError(status, message));
    case 'grpc':
      callback({ code: grpc.status.FAILED_PRECONDITION, details: message });
      return;
    case 'grpc-thrown':
      throw Object.assign(new Error('ignored when details is set'), { code: grpc.status.ABORTED, details: message });
    case 'plain':
      throw new Error('connection string postgres://admin:secret@db leaked');
    case 'details':
      throw new HTTPError(400, 'Validation failed', { errors: [{ path: ['name'], code: 'too_small' }] });
    case 'headers':
      throw new HTTPError(401, 'Token expired', undefined, { headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' } });
    default:
      throw new HTTPError(status, message);
  }
};

const ServerStream: GrpcServerStreamHandler<EchoRequest, Partial<EchoReply>> = (call) => {
  call.write({ message: 'first' });
  if (call.request.message === 'throw') throw new HTTPError(404, 'Stream source not found');
  if (call.request.message === 'emit') {
    call.emit('error', new HTTPError(403, 'Not your stream'));
    return;
  }
  call.end();
};

const Bidi = async (): Promise<void> => {
  throw new HTTPError(409, 'Conversation already exists');
};

describe('error mapping over gRPC', () => {
  let server: Started;
  let echo: grpc.Client;

  beforeAll(async () => {
    server = await start({ services: { 'fwtest.Echo': { Fail, ServerStream, Bidi } } });
    echo = client(server.target);
  });

  afterAll(async () => {
    echo.close();
    await server.app.close();
  });

  const table: Array<[number, number, string]> = [
    [404, grpc.status.NOT_FOUND, 'NOT_FOUND'],
    [401, grpc.status.UNAUTHENTICATED, 'UNAUTHENTICATED'],
    [403, grpc.status.PERMISSION_DENIED, 'PERMISSION_DENIED'],
    [400, grpc.status.INVALID_ARGUMENT, 'INVALID_ARGUMENT'],
    [422, grpc.status.INVALID_ARGUMENT, 'INVALID_ARGUMENT'],
    [409, grpc.status.ALREADY_EXISTS, 'ALREADY_EXISTS'],
    [429, grpc.status.RESOURCE_EXHAUSTED, 'RESOURCE_EXHAUSTED'],
    [503, grpc.status.UNAVAILABLE, 'UNAVAILABLE'],
    [500, grpc.status.INTERNAL, 'INTERNAL'],
    [418, grpc.status.INTERNAL, 'INTERNAL'],
    [502, grpc.status.INTERNAL, 'INTERNAL'],
  ];

  it.each(table)('maps a thrown HTTPError %i to %i (%s) with the message as details', async (status, code) => {
    const err = await failure(unary(echo, 'Fail', { status, message: `thrown ${status}` }));
    expect(err.code).toBe(code);
    expect(err.details).toBe(`thrown ${status}`);
  });

  it.each([
    ['callback', 404, grpc.status.NOT_FOUND],
    ['callback', 429, grpc.status.RESOURCE_EXHAUSTED],
    ['rejected', 422, grpc.status.INVALID_ARGUMENT],
    ['rejected', 503, grpc.status.UNAVAILABLE],
  ])('maps an HTTPError passed through the %s path (%i → %i)', async (mode, status, code) => {
    const err = await failure(unary(echo, 'Fail', { status, mode, message: 'via ' + mode }));
    expect(err.code).toBe(code);
    expect(err.details).toBe('via ' + mode);
  });

  it('passes a { code, details } error through unchanged', async () => {
    const err = await failure(unary(echo, 'Fail', { mode: 'grpc', message: 'Account locked' }));
    expect(err.code).toBe(grpc.status.FAILED_PRECONDITION);
    expect(err.details).toBe('Account locked');
  });

  it('passes a thrown Error carrying a gRPC code through, details first', async () => {
    const err = await failure(unary(echo, 'Fail', { mode: 'grpc-thrown', message: 'Try again' }));
    expect(err.code).toBe(grpc.status.ABORTED);
    expect(err.details).toBe('Try again');
  });

  it('answers any other error with INTERNAL and a generic message, logging the original in full', async () => {
    server.logs.length = 0;
    const err = await failure(unary(echo, 'Fail', { mode: 'plain' }));
    expect(err.code).toBe(grpc.status.INTERNAL);
    expect(err.details).toBe(INTERNAL_DETAILS);
    expect(err.details).not.toContain('secret');
    expect(server.logs).toHaveLength(1);
    expect(server.logs[0]!.message).toBe('Error on /fwtest.Echo/Fail');
    expect((server.logs[0]!.error as Error).message).toContain('secret');
  });

  it('does not log client errors', async () => {
    server.logs.length = 0;
    await failure(unary(echo, 'Fail', { status: 404, message: 'nope' }));
    expect(server.logs).toHaveLength(0);
  });

  it("sends an HTTPError's headers as trailing metadata", async () => {
    const err = await failure(unary(echo, 'Fail', { mode: 'headers' }));
    expect(err.code).toBe(grpc.status.UNAUTHENTICATED);
    expect(err.metadata.get('www-authenticate')).toEqual(['Bearer error="invalid_token"']);
  });

  it("sends an HTTPError's details as JSON in error-details-bin", async () => {
    const err = await failure(unary(echo, 'Fail', { mode: 'details' }));
    expect(err.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(err.details).toBe('Validation failed');
    const [raw] = err.metadata.get(ERROR_DETAILS_KEY);
    expect(JSON.parse((raw as Buffer).toString())).toEqual({ errors: [{ path: ['name'], code: 'too_small' }] });
  });

  it('answers UNIMPLEMENTED for a method the proto declares but the service does not implement', async () => {
    const err = await failure(unary(echo, 'Unary', { message: 'x' }));
    expect(err.code).toBe(grpc.status.UNIMPLEMENTED);
    expect(err.details).toBe('The server does not implement the method /fwtest.Echo/Unary');
  });

  it('ends a server stream whose handler throws with the mapped status, after what it wrote', async () => {
    const call = streams(echo).ServerStream({ message: 'throw' });
    const received: EchoReply[] = [];
    call.on('data', (item: EchoReply) => received.push(item));
    const err = await failure(collect(call));
    expect(received.map((r) => r.message)).toEqual(['first']);
    expect(err.code).toBe(grpc.status.NOT_FOUND);
    expect(err.details).toBe('Stream source not found');
  });

  it("maps an HTTPError a stream handler emits with call.emit('error')", async () => {
    const err = await failure(collect(streams(echo).ServerStream({ message: 'emit' })));
    expect(err.code).toBe(grpc.status.PERMISSION_DENIED);
    expect(err.details).toBe('Not your stream');
  });

  it('maps an error thrown by an async bidi handler', async () => {
    const call = streams(echo).Bidi();
    call.write({ message: 'hi' });
    const err = await failure(collect(call));
    expect(err.code).toBe(grpc.status.ALREADY_EXISTS);
    expect(err.details).toBe('Conversation already exists');
  });
});
