import { z } from 'zod';
import { createApp, HTTPError, type AppOptions, type GrpcUnaryHandler } from '@fw/app';
import { defineOperation } from '@fw/app/validate';
import { SHOP_PROTO } from './support.js';

// `protocols.connect` as createApp wires it: the operations' gRPC methods on the HTTP port, the
// option names checked once, CORS preflights that admit Connect's headers.

const getThing = defineOperation({
  name: 'getThing',
  input: z.object({ id: z.string() }),
  output: z.object({ id: z.string(), count: z.number().int() }),
  rest: { method: 'GET', path: '/things/:id' },
  grpc: { service: 'things.v1.Things' },
  handler: ({ id }) => {
    if (id === 'none') throw new HTTPError(404, 'No such thing');
    return { id, count: 3 };
  },
});

describe('createApp with protocols.connect', () => {
  it('serves an operation over Connect on the HTTP port, beside REST', async () => {
    const app = createApp({ protocols: { connect: true }, shutdown: false });
    app.operation(getThing);
    const connect = await app.inject({ method: 'POST', url: '/things.v1.Things/GetThing', body: { id: 't1' } });
    expect(connect.statusCode).toBe(200);
    expect(connect.json()).toEqual({ id: 't1', count: '3' });
    const missing = await app.inject({ method: 'POST', url: '/things.v1.Things/GetThing', body: { id: 'none' } });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ code: 'not_found', message: 'No such thing' });
    expect((await app.inject('/things/t2')).json()).toEqual({ id: 't2', count: 3 });
    expect(app.getProtocolManager()?.getProtocols()).toEqual(['http', 'connect']);
    await app.close();
  });

  it('refuses an unknown option of protocols.connect, naming the nearest', () => {
    expect(() => createApp({ protocols: { connect: { maxMessageByte: 10 } as never } })).toThrow(/unknown option "protocols\.connect\.maxMessageByte"; did you mean "maxMessageBytes"\?/);
    expect(() => createApp({ protocols: { connect: 'yes' as never } })).toThrow(/protocols\.connect must be true, false or an object/);
    expect(() => createApp({ protocols: { rest: true } as AppOptions['protocols'] })).toThrow(/graphql, grpc, connect/);
  });

  it('admits a browser preflight with the Connect and gRPC-Web headers when cors is on', async () => {
    const app = createApp({ cors: true, protocols: { connect: true }, shutdown: false });
    app.operation(getThing);
    const res = await app.inject({
      method: 'OPTIONS',
      url: '/things.v1.Things/GetThing',
      headers: { origin: 'https://web.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,connect-protocol-version,connect-timeout-ms' },
    });
    expect(res.statusCode).toBeLessThan(300);
    const allowed = String(res.headers['access-control-allow-headers']).toLowerCase();
    for (const header of ['content-type', 'connect-protocol-version', 'connect-timeout-ms', 'x-grpc-web', 'grpc-timeout']) expect(allowed).toContain(header);
    const call = await app.inject({ method: 'POST', url: '/things.v1.Things/GetThing', body: { id: 't1' }, headers: { origin: 'https://web.example' } });
    expect(String(call.headers['access-control-expose-headers']).toLowerCase()).toContain('grpc-status');
    await app.close();
  });

  it('serves the hand-written services of protocols.grpc over Connect too, with its gRPC middleware', async () => {
    let grpcMiddleware = 0;
    const counted = async (_ctx: unknown, next: () => Promise<void>): Promise<void> => {
      grpcMiddleware++;
      await next();
    };
    const Get: GrpcUnaryHandler<{ id: string }, { id: string; owner: string }> = async (call) => ({ id: call.request.id, owner: 'ada' });
    const app = createApp({
      protocols: { grpc: { port: 0, host: '127.0.0.1', health: false, protoPath: SHOP_PROTO, services: { 'shop.Items': { Get } }, middleware: [counted] }, connect: true },
      shutdown: false,
    });
    const call = await app.inject({ method: 'POST', url: '/shop.Items/Get', body: { id: 'i1' } });
    expect([call.statusCode, call.json()]).toEqual([200, { id: 'i1', owner: 'ada' }]);
    expect(grpcMiddleware).toBe(1);
    // Stream is declared but not implemented: answered as the gRPC port answers it.
    const stream = await app.inject({ method: 'POST', url: '/shop.Items/Stream', body: enveloped('{}'), headers: { 'content-type': 'application/connect+json' } });
    expect(stream.body).toContain('The server does not implement the method /shop.Items/Stream');
    await app.close();
  });
});

/** One Connect envelope: a flags byte, the length, the payload. */
function enveloped(text: string): Buffer {
  const payload = Buffer.from(text);
  const prefix = Buffer.alloc(5);
  prefix.writeUInt32BE(payload.length, 1);
  return Buffer.concat([prefix, payload]);
}
