import * as grpc from '@grpc/grpc-js';
import { INTERNAL_DETAILS, type GrpcBidiHandler, type GrpcServerStreamHandler, type GrpcUnaryHandler } from '../src/index.js';
import { client, collect, failure, start, stop, streams, unary, type EchoReply, type EchoRequest, type Started } from './helpers.js';

interface FailRequest {
  status: number;
  mode: string;
  message: string;
}

class Outcome {
  constructor(
    readonly code: number,
    readonly message: string,
  ) {}
}

function trailers(): grpc.Metadata {
  const metadata = new grpc.Metadata();
  metadata.set('x-reason', 'maintenance');
  return metadata;
}

/** grpc-js's status shapes, each the way a grpc-js handler gives it. */
const Fail: GrpcUnaryHandler<FailRequest, EchoReply> = (call, callback) => {
  const { status: code, mode, message } = call.request;
  switch (mode) {
    case 'callback-message':
      callback({ code, message });
      return;
    case 'callback-metadata':
      callback({ code, message, metadata: trailers() });
      return;
    case 'thrown-details':
      throw { code, details: message };
    case 'thrown-message':
      throw { code, message };
    case 'both':
      throw { code, details: message, message: 'not this one' };
    case 'null-prototype':
      throw Object.assign(Object.create(null) as object, { code, message });
    case 'no-text':
      throw { code };
    case 'text-not-string':
      throw { code, message: 42 };
    case 'string-code':
      throw { code: String(code), message };
    case 'error-with-message':
      // An Error whose code only happens to be small: its message is not meant for clients.
      throw Object.assign(new Error(message), { code });
    case 'class-instance':
      throw new Outcome(code, message);
    default:
      throw new Error(`unknown mode ${mode}`);
  }
};

const ServerStream: GrpcServerStreamHandler<EchoRequest, Partial<EchoReply>> = (call) => {
  call.write({ message: 'first' });
  const code = call.request.count ?? 0;
  if (call.request.message === 'emit-details') call.emit('error', { code, details: 'emitted with details' });
  else call.emit('error', { code, message: 'emitted with message', metadata: trailers() });
};

const Bidi: GrpcBidiHandler<EchoRequest, Partial<EchoReply>> = async (call) => {
  for await (const request of call) {
    const { count, message } = request as EchoRequest;
    throw { code: count, message };
  }
};

describe('plain status objects, as grpc-js handlers give them', () => {
  let server: Started;
  let echo: grpc.Client;

  beforeAll(async () => {
    server = await start({ services: { 'fwtest.Echo': { Fail, ServerStream, Bidi } } });
    echo = client(server.target);
  });

  afterAll(() => stop(server, echo));
  beforeEach(() => void (server.logs.length = 0));

  it.each([
    ['callback-message', 'callback({ code, message })'],
    ['thrown-details', 'a thrown { code, details }'],
    ['thrown-message', 'a thrown { code, message }'],
    ['null-prototype', 'an object without a prototype'],
  ])('sends the status of %s (%s) with its text as details, and logs nothing', async (mode) => {
    const err = await failure(unary(echo, 'Fail', { mode, status: grpc.status.UNKNOWN, message: 'test status message' }));
    expect(err.code).toBe(grpc.status.UNKNOWN);
    expect(err.details).toBe('test status message');
    expect(server.logs).toEqual([]);
  });

  it('sends details rather than message when an object has both, as grpc-js does', async () => {
    const err = await failure(unary(echo, 'Fail', { mode: 'both', status: grpc.status.ABORTED, message: 'Retry' }));
    expect(err).toMatchObject({ code: grpc.status.ABORTED, details: 'Retry' });
  });

  it('sends the metadata of a status object as trailers', async () => {
    const err = await failure(unary(echo, 'Fail', { mode: 'callback-metadata', status: grpc.status.UNAVAILABLE, message: 'Come back later' }));
    expect(err).toMatchObject({ code: grpc.status.UNAVAILABLE, details: 'Come back later' });
    expect(err.metadata.get('x-reason')).toEqual(['maintenance']);
  });

  it('keeps whitespace and characters beyond ASCII in the message', async () => {
    const message = '\t\ntest with whitespace\r\nand Unicode BMP ☺ and non-BMP 😈\t\n';
    const err = await failure(unary(echo, 'Fail', { mode: 'thrown-message', status: grpc.status.UNKNOWN, message }));
    expect(err.details).toBe(message);
  });

  it.each([
    ['callback-message', 0, 'the code of OK'],
    ['callback-message', 17, 'a code past UNAUTHENTICATED'],
    ['string-code', 5, 'a code that is a string'],
    ['no-text', 5, 'neither details nor message'],
    ['text-not-string', 5, 'a message that is not a string'],
    ['error-with-message', 5, 'an Error with a code and only a message'],
    ['class-instance', 5, 'an instance of a class that is not Error'],
  ])('masks %s with code %i (%s) as INTERNAL and logs it', async (mode, status) => {
    const err = await failure(unary(echo, 'Fail', { mode, status, message: 'internal detail' }));
    expect(err).toMatchObject({ code: grpc.status.INTERNAL, details: INTERNAL_DETAILS });
    expect(server.logs.map((log) => log.message)).toEqual(['Error on /fwtest.Echo/Fail']);
  });

  it("ends a server stream with the status object emitted as 'error' (details)", async () => {
    const err = await failure(collect(streams(echo).ServerStream({ message: 'emit-details', count: grpc.status.NOT_FOUND })));
    expect(err).toMatchObject({ code: grpc.status.NOT_FOUND, details: 'emitted with details' });
  });

  it("ends a server stream with the status object emitted as 'error' (message and metadata)", async () => {
    const err = await failure(collect(streams(echo).ServerStream({ message: 'emit-message', count: grpc.status.DATA_LOSS })));
    expect(err).toMatchObject({ code: grpc.status.DATA_LOSS, details: 'emitted with message' });
    expect(err.metadata.get('x-reason')).toEqual(['maintenance']);
  });

  it('ends a bidi call with the status object its handler throws', async () => {
    const call = streams(echo).Bidi();
    const replies = collect(call);
    call.write({ count: grpc.status.UNKNOWN, message: 'test status message' });
    const err = await failure(replies);
    call.end();
    expect(err).toMatchObject({ code: grpc.status.UNKNOWN, details: 'test status message' });
  });
});
