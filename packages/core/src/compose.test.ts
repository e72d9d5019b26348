import { compose } from './compose.js';
import type { Middleware } from './types.js';

interface Log {
  calls: string[];
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('compose', () => {
  it('runs middleware in order and work after `await next()` after the inner chain', async () => {
    const ctx: Log = { calls: [] };
    const run = compose<Log>([
      async (c, next) => {
        c.calls.push('a:before');
        await next();
        c.calls.push('a:after');
      },
      async (c, next) => {
        c.calls.push('b:before');
        await tick();
        await next();
        await tick();
        c.calls.push('b:after');
      },
      (c) => {
        c.calls.push('handler');
      },
    ]);
    await run(ctx);
    expect(ctx.calls).toEqual(['a:before', 'b:before', 'handler', 'b:after', 'a:after']);
  });

  it('stops the chain where a middleware does not call next', async () => {
    const ctx: Log = { calls: [] };
    const run = compose<Log>([
      (c, next) => {
        c.calls.push('a');
        return next();
      },
      (c) => {
        c.calls.push('b');
      },
      (c) => {
        c.calls.push('never');
      },
    ]);
    await run(ctx);
    expect(ctx.calls).toEqual(['a', 'b']);
  });

  it('calls the outer next after the last middleware, and lets the chain wrap it', async () => {
    const ctx: Log = { calls: [] };
    const run = compose<Log>([
      async (c, next) => {
        c.calls.push('in');
        await next();
        c.calls.push('out');
      },
    ]);
    await run(ctx, async () => {
      ctx.calls.push('outer');
    });
    expect(ctx.calls).toEqual(['in', 'outer', 'out']);

    const many = compose<Log>([(_c, next) => next(), (_c, next) => next()]);
    const seen: string[] = [];
    await many(ctx, async () => {
      seen.push('outer');
    });
    expect(seen).toEqual(['outer']);
  });

  it('rejects when next() is called twice in one middleware', async () => {
    const run = compose<Log>([
      async (_c, next) => {
        await next();
        await next();
      },
      () => undefined,
    ]);
    await expect(run({ calls: [] })).rejects.toThrow('next() called multiple times');
  });

  it('rejects a second next() in a chain of one middleware, with or without an outer next', async () => {
    const twice: Middleware<Log> = async (_c, next) => {
      await next();
      await next();
    };
    await expect(compose<Log>([twice])({ calls: [] })).rejects.toThrow('next() called multiple times');
    await expect(compose<Log>([twice])({ calls: [] }, async () => undefined)).rejects.toThrow('next() called multiple times');

    const outer = compose<Log>([
      async (_c, next) => {
        await next();
      },
      compose<Log>([
        async (_c, next) => {
          await next();
          await next();
        },
      ]),
    ]);
    await expect(outer({ calls: [] })).rejects.toThrow('next() called multiple times');
  });

  it('rejects non-functions when composing, not when a request comes', () => {
    expect(() => compose<Log>([() => undefined, 'nope' as unknown as Middleware<Log>])).toThrow(
      'Middleware at position 1 must be a function, got string',
    );
    expect(() => compose<Log>([null as unknown as Middleware<Log>])).toThrow('got null');
    expect(() => compose<Log>('x' as unknown as Middleware<Log>[])).toThrow('compose expects an array');
  });

  it('turns a synchronous throw into a rejection at every position', async () => {
    const boom = (): never => {
      throw new Error('boom');
    };
    await expect(compose<Log>([boom])({ calls: [] })).rejects.toThrow('boom');
    await expect(compose<Log>([(_c, next) => next(), boom])({ calls: [] })).rejects.toThrow('boom');
  });

  it('lets an outer middleware catch an error thrown below it', async () => {
    const ctx: Log = { calls: [] };
    const run = compose<Log>([
      async (c, next) => {
        try {
          await next();
        } catch (err) {
          c.calls.push(`caught ${(err as Error).message}`);
        }
      },
      async () => {
        await tick();
        throw new Error('late');
      },
    ]);
    await run(ctx);
    expect(ctx.calls).toEqual(['caught late']);
  });

  it('awaits promises and other thenables returned by middleware written without async', async () => {
    const ctx: Log = { calls: [] };
    const run = compose<Log>([
      (c, next) =>
        next().then(() => {
          c.calls.push('after');
        }),
      (c) => ({
        then(resolve: () => void) {
          setImmediate(() => {
            c.calls.push('handler');
            resolve();
          });
        },
      }),
    ]);
    await run(ctx);
    expect(ctx.calls).toEqual(['handler', 'after']);
  });

  it('is a pass-through for an empty list', async () => {
    const ctx: Log = { calls: [] };
    await compose<Log>([])(ctx, async () => {
      ctx.calls.push('outer');
    });
    await compose<Log>([])(ctx);
    expect(ctx.calls).toEqual(['outer']);
  });

  it('does not share state between concurrent runs of the same chain', async () => {
    const run = compose<Log>([
      async (c, next) => {
        await tick();
        await next();
      },
      (c) => {
        c.calls.push('done');
      },
    ]);
    const a: Log = { calls: [] };
    const b: Log = { calls: [] };
    await Promise.all([run(a), run(b)]);
    expect(a.calls).toEqual(['done']);
    expect(b.calls).toEqual(['done']);
  });
});
