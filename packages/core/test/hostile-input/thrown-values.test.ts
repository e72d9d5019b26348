import { HTTPError, type Application } from '../../src/index.js';
import { errorOf, exchange, fetchRaw, start, type Started } from '../hostile/support.js';

// Values thrown by handlers that fight back: getters and Proxy traps that throw, conversions that
// throw, error details that cannot be serialised. Each is answered promptly (no socket left open)
// and logged, and the server keeps serving.

const GET = (path: string): string => `GET ${path} HTTP/1.1\r\nHost: t\r\n\r\n`;
const INTERNAL = { error: true, code: 500, message: 'Internal Server Error' };
const trap = (): never => {
  throw new Error('trap');
};

const nasty: Array<[string, () => unknown]> = [
  ['an object whose statusCode getter throws', () => ({ get statusCode(): number { return trap(); } })],
  ['an object whose status and message getters throw', () => ({ statusCode: 'x', get status(): number { return trap(); }, get message(): string { return trap(); } })],
  ['a Proxy whose traps all throw', () => new Proxy({}, { get: trap, getPrototypeOf: trap, has: trap, ownKeys: trap, getOwnPropertyDescriptor: trap })],
  ['a Proxy of an Error whose traps all throw', () => new Proxy(new Error('x'), { get: trap, getPrototypeOf: trap, has: trap, ownKeys: trap, getOwnPropertyDescriptor: trap })],
  ['an object whose toString and Symbol.toPrimitive throw', () => ({ toString: trap, [Symbol.toPrimitive]: trap, valueOf: trap })],
  ['an Error whose stack, name and message getters throw', () => {
    const err = new Error('x');
    for (const key of ['stack', 'name', 'message']) Object.defineProperty(err, key, { get: trap });
    return err;
  }],
  ['an HTTPError look-alike whose fields throw after the first read', () => {
    const err = new Error('x');
    let reads = 0;
    Object.defineProperty(err, 'name', { get: () => 'HTTPError' });
    Object.defineProperty(err, 'statusCode', { get: () => (reads++ === 0 ? 400 : trap()) });
    for (const key of ['expose', 'headers', 'details', 'message', 'stack']) Object.defineProperty(err, key, { get: trap });
    return err;
  }],
  ['an HTTPError with a headers object whose entries throw', () => new HTTPError(400, 'bad', undefined, { headers: new Proxy({}, { ownKeys: trap, get: trap }) })],
  ['an Error whose cause is a throwing Proxy', () => new Error('outer', { cause: new Proxy({}, { get: trap, getPrototypeOf: trap, ownKeys: trap }) })],
];

describe('thrown values whose getters, traps or conversions throw', () => {
  const servers: Started[] = [];
  afterAll(async () => {
    for (const s of servers) await s.app.close();
  });

  async function serve(config: Parameters<typeof start>[0], extra?: (app: Application) => void): Promise<Started> {
    const server = await start(config, (app) => {
      app.get('/ok', (ctx) => ctx.text('ok'));
      nasty.forEach(([, make], i) => {
        app.get(`/sync/${i}`, () => {
          throw make();
        });
        app.get(`/async/${i}`, async () => {
          await Promise.resolve();
          throw make();
        });
      });
      extra?.(app);
    });
    servers.push(server);
    return server;
  }

  let plain: Started;
  let custom: Started;
  let loggerThrows: Started;
  const consoleErrors: unknown[][] = [];
  let spy: jest.SpyInstance;

  beforeAll(async () => {
    spy = jest.spyOn(console, 'error').mockImplementation((...args: unknown[]) => void consoleErrors.push(args));
    plain = await serve({});
    custom = await serve({}, (app) => app.onError((err, ctx) => ctx.json({ custom: String(err.cause) }, err.statusCode)));
    loggerThrows = await serve({ onLog: (message, error) => {
      throw new Error(`${message} ${String(error)}`);
    } });
  });

  afterAll(() => spy.mockRestore());

  const cases = nasty.flatMap(([name], i) => [[`${name} (thrown synchronously)`, `/sync/${i}`], [`${name} (rejected)`, `/async/${i}`]]);

  it.each(cases)('answers %s with a prompt 500 and keeps serving', async (_name, path) => {
    const before = plain.logged.length;
    const res = await exchange(plain.port, GET(path), 2000);
    expect(res.status).toBe(500);
    expect(errorOf(res.body)).toEqual(INTERNAL);
    expect(plain.logged.length).toBeGreaterThan(before);
    expect((await fetchRaw(plain.port, '/ok')).text).toBe('ok');
  });

  it.each(cases)('answers %s with a 500 through a custom onError that stringifies it', async (_name, path) => {
    const res = await exchange(custom.port, GET(path), 2000);
    expect(res.status).toBe(500);
    expect((await fetchRaw(custom.port, '/ok')).text).toBe('ok');
  });

  it.each(cases)('answers %s with a 500 when the logger throws too', async (_name, path) => {
    const res = await exchange(loggerThrows.port, GET(path), 2000);
    expect(res.status).toBe(500);
    expect((await fetchRaw(loggerThrows.port, '/ok')).text).toBe('ok');
  });

  it('logs through console.error without throwing when no onLog is given', async () => {
    const server = await start({ onLog: undefined }, (app) => {
      nasty.forEach(([, make], i) => app.get(`/sync/${i}`, () => {
        throw make();
      }));
    });
    servers.push(server);
    const before = consoleErrors.length;
    for (let i = 0; i < nasty.length; i++) expect((await exchange(server.port, GET(`/sync/${i}`), 2000)).status).toBe(500);
    expect(consoleErrors.length).toBeGreaterThanOrEqual(before + nasty.length);
  });
});

describe('error details and response bodies that cannot be serialised', () => {
  let server: Started;
  const circular: Record<string, unknown> = { a: 1 };
  circular['self'] = circular;

  beforeAll(async () => {
    server = await start({}, (app) => {
      app.get('/ok', (ctx) => ctx.text('ok'));
      app.get('/bigint', () => {
        throw new HTTPError(400, 'bad', { n: 1n });
      });
      app.get('/circular', () => {
        throw new HTTPError(422, 'bad input', circular);
      });
      app.get('/to-json', () => {
        throw new HTTPError(409, 'taken', { toJSON: trap });
      });
      app.get('/json-bigint', (ctx) => ctx.json({ n: 1n }));
      app.get('/json-circular', (ctx) => ctx.json(circular));
      app.get('/json-after-next', (ctx) => ctx.text('replaced'));
      app.use(async (ctx, next) => {
        await next();
        if (ctx.path === '/json-after-next') ctx.json({ toJSON: trap });
      });
    });
  });

  afterAll(async () => {
    await server.app.close();
  });

  it.each([
    ['/bigint', 400, 'bad'],
    ['/circular', 422, 'bad input'],
    ['/to-json', 409, 'taken'],
  ])('answers %s with its status and message but without details, and logs why', async (path, status, message) => {
    const before = server.logged.length;
    const res = await exchange(server.port, GET(path), 2000);
    expect(res.status).toBe(status);
    expect(errorOf(res.body)).toEqual({ error: true, message, code: status });
    expect(server.logged.slice(before).map((l) => l.message)).toEqual([`Error details could not be serialised on GET ${path}; answered without them`]);
    expect((await fetchRaw(server.port, '/ok')).text).toBe('ok');
  });

  it.each(['/json-bigint', '/json-circular', '/json-after-next'])('answers ctx.json() with an unserialisable value on %s with a logged 500', async (path) => {
    const before = server.logged.length;
    const res = await exchange(server.port, GET(path), 2000);
    expect(res.status).toBe(500);
    expect(errorOf(res.body)).toEqual(INTERNAL);
    expect(server.logged.slice(before).map((l) => l.message)).toEqual([`Error on GET ${path}`]);
  });
});
