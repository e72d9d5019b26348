import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
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

  describe('takes the options programs written for the spec pass', () => {
    /** A port nothing listens on right now. */
    const freePort = async (): Promise<number> => {
      const probe = createServer();
      await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
      const { port } = probe.address() as AddressInfo;
      await new Promise<void>((resolve) => probe.close(() => resolve()));
      return port;
    };

    it('listens on the port and host given to createApp when listen() has no arguments', async () => {
      const port = await freePort();
      const app = createApp({ port, host: '127.0.0.1' });
      app.get('/ping', (ctx) => ctx.text('pong'));
      const info = await app.listen();
      try {
        expect([info.port, info.host]).toEqual([port, '127.0.0.1']);
        expect(await (await fetch(`http://127.0.0.1:${port}/ping`)).text()).toBe('pong');
      } finally {
        await app.close();
      }
    });

    it("lets listen()'s own port and host win over createApp's", async () => {
      const app = createApp({ port: 1, host: '0.0.0.0' });
      const info = await app.listen(0, '127.0.0.1');
      try {
        expect(info.host).toBe('127.0.0.1');
        expect(info.port).not.toBe(1);
      } finally {
        await app.close();
      }
    });

    it('installs cors() first for cors: true, before the middleware option, which runs in order', async () => {
      const seen: string[] = [];
      const app = createApp({
        cors: true,
        middleware: [
          async (ctx, next) => {
            seen.push('first');
            await next();
          },
          async (ctx, next) => {
            seen.push('second');
            if (ctx.headers.authorization === undefined) throw new HTTPError(401, 'Authentication required');
            await next();
          },
        ],
      });
      app.get('/me', (ctx) => ctx.json({ me: true }));
      const preflight = await app.inject({ method: 'OPTIONS', url: '/me', headers: { origin: 'https://shop.example', 'access-control-request-method': 'GET' } });
      expect(preflight.statusCode).toBe(204);
      expect(preflight.headers['access-control-allow-origin']).toBe('*');
      expect(seen).toEqual([]);
      const denied = await app.inject({ method: 'GET', url: '/me', headers: { origin: 'https://shop.example' } });
      expect([denied.statusCode, denied.headers['access-control-allow-origin']]).toEqual([401, '*']);
      expect(seen).toEqual(['first', 'second']);
      const allowed = await app.inject({ method: 'GET', url: '/me', headers: { authorization: 'Bearer x' } });
      expect(allowed.json()).toEqual({ me: true });
    });

    it('passes a CorsConfig to cors()', async () => {
      const app = createApp({ cors: { origin: ['https://shop.example'], credentials: true } });
      app.get('/x', (ctx) => ctx.text('x'));
      const res = await app.inject({ method: 'GET', url: '/x', headers: { origin: 'https://shop.example' } });
      expect([res.headers['access-control-allow-origin'], res.headers['access-control-allow-credentials']]).toEqual(['https://shop.example', 'true']);
      const other = await app.inject({ method: 'GET', url: '/x', headers: { origin: 'https://evil.example' } });
      expect(other.headers['access-control-allow-origin']).toBeUndefined();
    });

    it('installs nothing for cors: false', async () => {
      const app = createApp({ cors: false });
      app.get('/x', (ctx) => ctx.text('x'));
      const res = await app.inject({ method: 'GET', url: '/x', headers: { origin: 'https://shop.example' } });
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
    });

    it('sets the error handler from onError and the 404 handler from onNotFound', async () => {
      const app = createApp({
        onError: (error, ctx) => ctx.json({ failed: (error.cause as Error).message }, error.statusCode),
        onNotFound: (ctx) => ctx.json({ nothing: ctx.path }, 404),
      });
      app.get('/boom', () => {
        throw new Error('kaput');
      });
      const boom = await app.inject('/boom');
      expect([boom.statusCode, boom.json()]).toEqual([500, { failed: 'kaput' }]);
      const missing = await app.inject('/nowhere');
      expect([missing.statusCode, missing.json()]).toEqual([404, { nothing: '/nowhere' }]);
    });

    it.each([
      ['port', 'eighty', /port must be an integer from 0 to 65535, got "eighty"/],
      ['port', 70000, /port must be an integer from 0 to 65535, got 70000/],
      ['host', 42, /host must be a string, got number/],
      ['cors', 'yes', /createApp: cors must be true, false or a CorsConfig object/],
      ['middleware', 'globall', /createApp: middleware must be an array of middleware functions/],
      ['middleware', [() => undefined, 'logger'], /createApp: middleware\[1\] must be a function, got string/],
      ['onError', 'log', /createApp: onError must be a function \(error, ctx\)/],
      ['onNotFound', {}, /createApp: onNotFound must be a function \(ctx\)/],
    ])('refuses %s: %p', (key, value, message) => {
      expect(() => createApp(foreign({ [key]: value }))).toThrow(message);
    });
  });

  describe('refuses options it does not know instead of ignoring them', () => {
    it.each([
      ['hostname', 'localhost', /"hostname".*did you mean "host"/],
      ['middlewares', [], /"middlewares".*did you mean "middleware"/],
      ['errorHandler', () => undefined, /"errorHandler".*onError/],
      ['notFound', () => undefined, /"notFound".*onNotFound/],
      ['graphql', {}, /"graphql".*protocols: \{ graphql/],
      ['tracing', {}, /"tracing".*observability: \{ tracing/],
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

    it('throws for an unknown key inside observability, listing tracing and metrics', () => {
      expect(() => createApp({ observability: foreign({ logs: true }) as AppOptions['observability'] })).toThrow(/unknown option "observability\.logs".*tracing, metrics/);
    });

    it('throws for a misspelt key inside observability.tracing instead of leaving tracing off, without loading @fw/tracing', () => {
      expect(() => createApp({ observability: { tracing: foreign({ enabeld: true, serviceName: 'shop' }) as never } })).toThrow(
        /unknown option "observability\.tracing\.enabeld"; did you mean "enabled"\? The accepted keys of observability\.tracing are: enabled, serviceName, exporter/,
      );
      expect(() => createApp({ observability: { tracing: foreign({ enabled: false, serviceName: 'shop', exprter: 'none' }) as never } })).toThrow(
        /unknown option "observability\.tracing\.exprter"; did you mean "exporter"\?/,
      );
    });

    it('refuses a misspelt exporter or OTLP protocol even with tracing off, without loading @fw/tracing', () => {
      expect(() => createApp({ observability: { tracing: { enabled: false, serviceName: 'shop', exporter: 'nonee' as 'none' } } })).toThrow(
        /createApp: observability\.tracing\.exporter must be 'otlp', 'console', 'none' or a span exporter, got "nonee"; did you mean "none"\?/,
      );
      expect(() => createApp({ observability: { tracing: { enabled: false, serviceName: 'shop', otlpProtocol: 'grpc' as 'http/json' } } })).toThrow(
        /createApp: observability\.tracing\.otlpProtocol must be 'http\/protobuf' or 'http\/json', got "grpc"/,
      );
      expect(() => createApp({ observability: { tracing: { enabled: false, serviceName: 42 as unknown as string } } })).toThrow(/createApp: observability\.tracing\.serviceName must be a non-empty string/);
    });

    it('refuses observability.tracing without a boolean enabled', () => {
      expect(() => createApp({ observability: { tracing: foreign({ serviceName: 'shop' }) as never } })).toThrow(/createApp: observability\.tracing\.enabled must be true or false/);
      expect(() => createApp({ observability: { tracing: foreign({ enabled: 'yes', serviceName: 'shop' }) as never } })).toThrow(/createApp: observability\.tracing\.enabled must be true or false/);
    });

    it('refuses a misspelt gRPC option or a wrong middleware mode before anything is served', () => {
      expect(() => createApp({ protocols: { grpc: foreign({ prot: 50052 }) as never } })).toThrow(/gRPC config: unknown option "prot"; did you mean "port"\?/);
      expect(() => createApp({ protocols: { grpc: foreign({ middlewares: 'global' }) as never } })).toThrow(/gRPC config: unknown option "middlewares"; did you mean "middleware"\?/);
      expect(() => createApp({ protocols: { grpc: foreign({ middleware: 'globall' }) as never } })).toThrow(/gRPC config: `middleware` must be 'global' or an array/);
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
        port: 0,
        host: '127.0.0.1',
        cors: false,
        middleware: [],
        onError: (error, ctx) => ctx.json({ error: true }, 500),
        onNotFound: (ctx) => ctx.json({ missing: true }, 404),
      });
      expect(app.getProtocolManager()).toBeUndefined();
    });

    it('refuses options that are not an object', () => {
      expect(() => createApp(null as unknown as AppOptions)).toThrow(/createApp: options must be an object/);
    });
  });
});
