import * as grpc from '@grpc/grpc-js';
import { HTTPError } from '@fw/core';
import { GRPC_STATUS } from '../src/index.js';
import {
  GrpcError,
  type GrpcContext,
  INTERNAL_DETAILS,
  type GrpcClientStreamHandler,
  type GrpcServerStreamHandler,
  type GrpcUnaryHandler,
} from '../src/index.js';
import { client, collect, failure, start, streams, unary, type EchoReply, type EchoRequest, type Started } from './helpers.js';

/** Values whose every property read throws: mapping them must not throw in turn. */
function hostile(kind: string): unknown {
  switch (kind) {
    case 'getter':
      return {
        get code(): number {
          throw new Error('code getter');
        },
      };
    case 'proxy':
      return new Proxy(
        {},
        {
          get() {
            throw new Error('proxy get');
          },
        },
      );
    case 'revoked': {
      const { proxy, revoke } = Proxy.revocable({}, {});
      revoke();
      return proxy;
    }
    default:
      throw new Error(`unknown kind ${kind}`);
  }
}

/** Errors from elsewhere that happen to carry a numeric `code` in 1–16. */
function incidental(kind: string): unknown {
  switch (kind) {
    case 'dom':
      // DOMException's legacy code for NotFoundError is 8 (RESOURCE_EXHAUSTED in gRPC).
      return new DOMException('Node /srv/db/users was not found', 'NotFoundError');
    case 'driver':
      // A MongoDB-style server error: code 13 is "Unauthorized" there, INTERNAL in gRPC.
      return Object.assign(new Error('not authorized on admin to execute command { dropDatabase: 1 }'), { code: 13, codeName: 'Unauthorized' });
    case 'code-only':
      return Object.assign(new Error('ECONNRESET on 10.0.0.7:5432'), { code: 14 });
    default:
      throw new Error(`unknown kind ${kind}`);
  }
}

describe('error mapping never throws and masks what it does not recognise', () => {
  let server: Started;
  let echo: grpc.Client;
  let failLog = false;

  const Fail: GrpcUnaryHandler<{ mode: string; message: string }, EchoReply> = (call) => {
    const { mode, message } = call.request;
    if (mode.startsWith('hostile-')) throw hostile(mode.slice('hostile-'.length));
    if (mode.startsWith('incidental-')) throw incidental(mode.slice('incidental-'.length));
    if (mode === 'code') throw new HTTPError(409, message, undefined, { code: 'failed_precondition' });
    if (mode === 'grpc-error') throw new GrpcError(GRPC_STATUS.ABORTED, message);
    if (mode === 'service-error') {
      const metadata = new grpc.Metadata();
      metadata.set('x-upstream', 'inventory');
      throw Object.assign(new Error(`${GRPC_STATUS.UNAVAILABLE} UNAVAILABLE: ${message}`), { code: GRPC_STATUS.UNAVAILABLE, details: message, metadata });
    }
    throw new Error(`unknown mode ${mode}`);
  };

  const ServerStream: GrpcServerStreamHandler<EchoRequest, Partial<EchoReply>> = (call) => {
    call.write({ message: 'first' });
    throw hostile(call.request.message ?? 'proxy');
  };

  const ClientStream: GrpcClientStreamHandler<EchoRequest, Partial<EchoReply>> = async (call) => {
    for await (const _ of call) {
      // read until the client half-closes
    }
    throw hostile('getter');
  };

  beforeAll(async () => {
    server = await start(
      {
        services: { 'fwtest.Echo': { Fail, ServerStream, ClientStream }, 'fwtest.Admin': { WhoAmI: () => ({}) } },
        middleware: [
          (ctx: GrpcContext, next: () => Promise<void>) => {
            if (ctx.path === '/fwtest.Admin/WhoAmI') throw hostile(ctx.headers['x-hostile'] ?? 'proxy');
            return next();
          },
        ],
        onLog: (message, error) => {
          server.logs.push({ message, error });
          if (failLog) throw new Error('the log sink is down');
        },
      },
    );
    echo = client(server.target);
  });

  afterAll(async () => {
    echo.close();
    await server.app.close();
  });

  beforeEach(() => {
    server.logs.length = 0;
    failLog = false;
  });

  it.each(['getter', 'proxy', 'revoked'])('answers a unary call that throws a hostile value (%s) with INTERNAL and logs it', async (kind) => {
    const err = await failure(unary(echo, 'Fail', { mode: `hostile-${kind}` }, { deadlineMs: 3000 }));
    expect(err.code).toBe(grpc.status.INTERNAL);
    expect(err.details).toBe(INTERNAL_DETAILS);
    expect(server.logs.map((l) => l.message)).toEqual(['Error on /fwtest.Echo/Fail']);
  });

  it('still answers INTERNAL when the log sink itself throws, falling back to console.error', async () => {
    failLog = true;
    const consoleError = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    let err: grpc.ServiceError;
    try {
      err = await failure(unary(echo, 'Fail', { mode: 'hostile-proxy' }, { deadlineMs: 3000 }));
      expect(consoleError).toHaveBeenCalledTimes(1);
      expect(consoleError.mock.calls[0]![0]).toMatch(/^Error on \/fwtest\.Echo\/Fail .*\(onLog threw: Error: the log sink is down/s);
    } finally {
      consoleError.mockRestore();
    }
    expect(err.code).toBe(grpc.status.INTERNAL);
    expect(server.logs).toHaveLength(1);
    const next = await failure(unary(echo, 'Fail', { mode: 'grpc-error', message: 'still up' }, { deadlineMs: 3000 }));
    expect(next.details).toBe('still up');
  });

  it.each(['getter', 'proxy'])('ends a server stream whose handler throws a hostile value (%s) with INTERNAL', async (kind) => {
    const err = await failure(collect(streams(echo).ServerStream({ message: kind }).on('data', () => undefined)));
    expect(err.code).toBe(grpc.status.INTERNAL);
    expect(err.details).toBe(INTERNAL_DETAILS);
  });

  it('answers a client stream whose handler throws a hostile value with INTERNAL', async () => {
    const err = await failure(
      new Promise((resolve, reject) => {
        const call = streams(echo).ClientStream((error, reply) => (error ? reject(error) : resolve(reply)));
        call.write({ message: 'a' });
        call.end();
      }),
    );
    expect(err.code).toBe(grpc.status.INTERNAL);
    expect(err.details).toBe(INTERNAL_DETAILS);
  });

  it.each(['getter', 'proxy', 'revoked'])('answers INTERNAL when middleware throws a hostile value (%s)', async (kind) => {
    const admin = client(server.target, 'Admin');
    try {
      const err = await failure(unary(admin, 'WhoAmI', {}, { metadata: { 'x-hostile': kind }, deadlineMs: 3000 }));
      expect(err.code).toBe(grpc.status.INTERNAL);
      expect(err.details).toBe(INTERNAL_DETAILS);
      expect(server.logs.map((l) => l.message)).toEqual(['Error on /fwtest.Admin/WhoAmI']);
    } finally {
      admin.close();
    }
  });

  it.each(['dom', 'driver', 'code-only'])('masks an error that merely carries a numeric code (%s) as INTERNAL and logs it', async (kind) => {
    const err = await failure(unary(echo, 'Fail', { mode: `incidental-${kind}` }));
    expect(err.code).toBe(grpc.status.INTERNAL);
    expect(err.details).toBe(INTERNAL_DETAILS);
    expect(server.logs).toHaveLength(1);
    expect(server.logs[0]!.message).toBe('Error on /fwtest.Echo/Fail');
    expect(server.logs[0]!.error).toBeInstanceOf(kind === 'dom' ? DOMException : Error);
  });

  it('keeps the status and details of a GrpcError', async () => {
    const err = await failure(unary(echo, 'Fail', { mode: 'grpc-error', message: 'Retry the transaction' }));
    expect(err.code).toBe(grpc.status.ABORTED);
    expect(err.details).toBe('Retry the transaction');
    expect(server.logs).toHaveLength(0);
  });

  it("keeps the status, details and metadata of a grpc-js client's ServiceError", async () => {
    const err = await failure(unary(echo, 'Fail', { mode: 'service-error', message: 'inventory is down' }));
    expect(err.code).toBe(grpc.status.UNAVAILABLE);
    expect(err.details).toBe('inventory is down');
    expect(err.metadata.get('x-upstream')).toEqual(['inventory']);
  });

  it("answers with the gRPC status of an HTTPError's own code, keeping its message", async () => {
    const err = await failure(unary(echo, 'Fail', { mode: 'code', message: 'Not enough stock' }));
    expect(err.code).toBe(grpc.status.FAILED_PRECONDITION);
    expect(err.details).toBe('Not enough stock');
    expect(server.logs).toHaveLength(0);
  });
});
