import { createApp, HTTPError, Router, type AppOptions } from '@fw/app';

/** Options as code written for another framework passes them: keys `AppOptions` does not have. */
const foreign = (options: Record<string, unknown>): AppOptions => options;

describe('createApp', () => {
  it('serves REST routes registered on the app', async () => {
    const app = createApp();
    app.get('/hello', (ctx) => ctx.json({ hello: 'world' }));
    const res = await app.inject({ method: 'GET', url: '/hello' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ hello: 'world' });
  });

  it('re-exports Router and HTTPError from core', async () => {
    const app = createApp();
    const users = new Router({ prefix: '/users' });
    users.get('/:id', (ctx) => {
      if (ctx.params.id === '0') throw new HTTPError(404, 'No such user');
      ctx.json({ id: ctx.params.id });
    });
    app.use(users);
    expect((await app.inject('/users/7')).json()).toEqual({ id: '7' });
    const missing = await app.inject('/users/0');
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ error: true, message: 'No such user', code: 404 });
  });

  it('has no protocol manager when no protocols are configured', () => {
    expect(createApp().getProtocolManager()).toBeFalsy();
  });

  it('rejects an adapter without a type', () => {
    expect(() => createApp({ adapter: {} as { type: string } })).toThrow(/adapter must be an object with a string "type"/);
  });

  it('listens on a real port and closes', async () => {
    const app = createApp();
    app.get('/ping', (ctx) => ctx.text('pong'));
    const info = await app.listen(0, '127.0.0.1');
    try {
      const res = await fetch(`${info.url}/ping`);
      expect(res.status).toBe(200);
      expect(await res.text()).toBe('pong');
    } finally {
      await app.close();
    }
  });

  describe('refuses options it does not know instead of ignoring them', () => {
    it.each([
      ['port', 3000, /"port".*app\.listen\(port/],
      ['host', '0.0.0.0', /"host".*app\.listen\(port, host\)/],
      ['cors', true, /"cors".*app\.use\(cors\(/],
      ['middleware', [() => undefined], /"middleware".*app\.use\(/],
      ['onError', () => undefined, /"onError".*app\.onError\(/],
      ['onNotFound', () => undefined, /"onNotFound".*app\.notFound\(/],
    ])('throws for "%s", naming the fw way to do it', (key, value, message) => {
      expect(() => createApp(foreign({ [key]: value }))).toThrow(message);
    });

    it('throws for any other unknown key, listing the accepted keys', () => {
      let thrown: unknown;
      try {
        createApp(foreign({ bodyLimit: 1024, colour: 'blue' }));
      } catch (err) {
        thrown = err;
      }
      expect(thrown).toBeInstanceOf(TypeError);
      const message = (thrown as Error).message;
      expect(message).toMatch(/unknown option "colour"/);
      for (const key of ['protocols', 'adapter', 'observability', 'bodyLimit', 'maxQueryKeys', 'maxUrlLength', 'trustProxy', 'timeouts', 'closeTimeout', 'onLog']) {
        expect(message).toContain(key);
      }
    });

    it('throws for an unknown key inside protocols, listing graphql and grpc', () => {
      expect(() => createApp({ protocols: foreign({ rest: true }) as AppOptions['protocols'] })).toThrow(/unknown option "protocols\.rest".*graphql, grpc/);
    });

    it('throws for an unknown key inside observability, listing tracing', () => {
      expect(() => createApp({ observability: foreign({ metrics: true }) as AppOptions['observability'] })).toThrow(/unknown option "observability\.metrics".*tracing/);
    });

    it('still accepts every documented option', () => {
      const app = createApp({
        adapter: { type: 'node-http' },
        protocols: {},
        observability: {},
        bodyLimit: 2048,
        maxQueryKeys: 10,
        maxUrlLength: 1024,
        trustProxy: false,
        timeouts: { headers: 1000 },
        closeTimeout: 1000,
        onLog: () => undefined,
        logUnhandledRejections: false,
        methodNotAllowed: true,
      });
      expect(app.getProtocolManager()).toBeUndefined();
    });

    it('refuses options that are not an object', () => {
      expect(() => createApp(null as unknown as AppOptions)).toThrow(/createApp: options must be an object/);
    });
  });
});
