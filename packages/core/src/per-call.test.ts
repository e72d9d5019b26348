import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { Application } from './application.js';
import { Context } from './context.js';
import { HTTPError, isHTTPError } from './http-error.js';
import { isPerCall, markPerCall } from './per-call.js';
import type { PluginHost } from './plugin-host.js';
import type { Next } from './types.js';

function hostOf(): { app: Application; host: PluginHost } {
  const app = new Application({ onLog: () => undefined });
  let host: PluginHost | undefined;
  app.register({ name: 'probe', setup: (h) => (host = h) });
  return { app, host: host! };
}

/** A context as a connection's is made: from its upgrade request, with a response that is never written. */
function contextOf(host: PluginHost): Context {
  const req = new IncomingMessage(new Socket());
  req.url = '/graphql';
  req.method = 'GET';
  return new Context(req, new ServerResponse(req), host.contextSettings);
}

describe('per-call middleware', () => {
  it('leaves it out of the connection middleware and runs it alone, in order, for each call', async () => {
    const { app, host } = hostOf();
    const ran: string[] = [];
    const auth = (_ctx: Context, next: Next): Promise<void> => (ran.push('auth'), next());
    const quota = markPerCall((_ctx: Context, next: Next): Promise<void> => (ran.push('quota'), next()));
    const audit = markPerCall((_ctx: Context, next: Next): Promise<void> => (ran.push('audit'), next()));
    app.use(quota).use(auth).use(audit);
    expect(host.connectionMiddleware()).toEqual([auth]);
    expect(host.connectionMiddleware()).toBe(host.connectionMiddleware());
    expect(host.middleware()).toEqual([quota, auth, audit]);
    const ctx = contextOf(host);
    ran.length = 0;
    await host.perCall(ctx);
    await host.perCall(ctx);
    expect(ran).toEqual(['quota', 'audit', 'quota', 'audit']);
  });

  it('still runs it once per HTTP request, in its place among the global middleware', async () => {
    const { app } = hostOf();
    const ran: string[] = [];
    app.use(markPerCall((_ctx: Context, next: Next): Promise<void> => (ran.push('quota'), next())));
    app.use((_ctx, next) => (ran.push('auth'), next()));
    app.get('/', (ctx) => ctx.text('ok'));
    expect((await app.inject('/')).statusCode).toBe(200);
    expect(ran).toEqual(['quota', 'auth']);
  });

  it('rejects with what a per-call middleware threw, or with the status it set when it answered without next()', async () => {
    const { app, host } = hostOf();
    const ctx = contextOf(host);
    let answer: 'throw' | 'answer' | 'next' = 'throw';
    app.use(
      markPerCall(async (c: Context, next: Next): Promise<void> => {
        if (answer === 'throw') throw new HTTPError(429, 'Too many requests, please try again later');
        if (answer === 'answer') return void c.json({ no: true }, 402);
        await next();
      }),
    );
    await expect(host.perCall(ctx)).rejects.toMatchObject({ statusCode: 429, message: 'Too many requests, please try again later' });
    answer = 'answer';
    const refused: unknown = await host.perCall(ctx).catch((err: unknown) => err);
    expect(isHTTPError(refused) && refused.statusCode).toBe(402);
    answer = 'next';
    await expect(host.perCall(ctx)).resolves.toBeUndefined();
  });

  it('resolves at once when no global middleware is marked', async () => {
    const { app, host } = hostOf();
    app.use((_ctx, next) => next());
    const ctx = contextOf(host);
    await expect(host.perCall(ctx)).resolves.toBeUndefined();
    expect(host.connectionMiddleware()).toBe(host.middleware());
  });

  it('marks the same function, and rejects what is not one', () => {
    const mw = (_ctx: Context, next: Next): Promise<void> => next();
    expect(isPerCall(mw)).toBe(false);
    expect(markPerCall(mw)).toBe(mw);
    expect(isPerCall(mw)).toBe(true);
    expect(() => markPerCall('x' as unknown as () => void)).toThrow('markPerCall expects a middleware function');
  });
});
