import { z } from 'zod';
import { createApp, HTTPError, type AppOptions } from '@fw/app';
import { defineOperation } from '@fw/app/validate';

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
});
