import { compose, type ComposedMiddleware } from './compose.js';
import type { Middleware, Next } from './types.js';

/** What compose takes: a middleware or a list of them. */
type Entry<C> = Middleware<C> | ReadonlyArray<Middleware<C>>;

interface Log {
  calls: Array<string | number>;
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
const wait = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Composes with NODE_ENV set as given: compose reads it when composing. */
function withEnv<T>(env: string | undefined, fn: () => T): T {
  const before = process.env.NODE_ENV;
  if (env === undefined) delete process.env.NODE_ENV;
  else process.env.NODE_ENV = env;
  try {
    return fn();
  } finally {
    if (before === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = before;
  }
}

// The Koa semantics hold in production (the slim chain) and outside it (the checked chain).
describe.each([['production'], ['development'], ['test']])('compose with NODE_ENV=%s', (env) => {
  const composeIn = <C, R = void>(...args: Array<Entry<C>>): ComposedMiddleware<C, R> => withEnv(env, () => compose<C, R>(...args));

  it('runs middleware in order and work after `await next()` after the inner chain', async () => {
    const ctx: Log = { calls: [] };
    const run = composeIn<Log>([
      async (c, next) => {
        c.calls.push('a:before');
        await next();
        c.calls.push('a:after');
      },
      async (c, next) => {
        c.calls.push('b:before');
        await wait(1);
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

  it('can be run again, each run starting from the first middleware', async () => {
    const run = composeIn<Log>([
      async (c, next) => {
        c.calls.push(1);
        await wait(1);
        await next();
        c.calls.push(4);
      },
      async (c, next) => {
        c.calls.push(2);
        await next();
        c.calls.push(3);
      },
    ]);
    const first: Log = { calls: [] };
    const second: Log = { calls: [] };
    await run(first);
    await run(second);
    expect(first.calls).toEqual([1, 2, 3, 4]);
    expect(second.calls).toEqual([1, 2, 3, 4]);
  });

  it('does not share state between concurrent runs of the same chain', async () => {
    const run = composeIn<Log>([
      async (_c, next) => {
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

  it('hands every middleware a next() that returns a promise, even at the end of the chain', async () => {
    const returned: unknown[] = [];
    const recordNext: Middleware<Log> = (_c, next) => {
      const result = next();
      returned.push(result);
      return result;
    };
    await composeIn<Log>([recordNext, recordNext, recordNext])({ calls: [] });
    await composeIn<Log>([recordNext])({ calls: [] });
    expect(returned).toHaveLength(4);
    for (const result of returned) expect(result).toBeInstanceOf(Promise);
  });

  it('resolves when composed from nothing, from an empty list, or from empty lists', async () => {
    await expect(composeIn<Log>()({ calls: [] })).resolves.toBeUndefined();
    await expect(composeIn<Log>([])({ calls: [] })).resolves.toBeUndefined();
    await expect(composeIn<Log>([], [])({ calls: [] })).resolves.toBeUndefined();
  });

  it('takes middleware as arguments or lists, flattened one level, in order', async () => {
    const ctx: Log = { calls: [] };
    const push =
      (n: number): Middleware<Log> =>
      (c, next) => {
        c.calls.push(n);
        return next();
      };
    await composeIn<Log>(push(1), [push(2), push(3)], [], push(4))(ctx);
    expect(ctx.calls).toEqual([1, 2, 3, 4]);
  });

  it('rejects non-functions when composing, naming the position, not when a request comes', () => {
    const bad: unknown[] = [1, true, 'string', {}, undefined, null, Symbol('test')];
    for (const value of bad) {
      expect(() => composeIn<Log>([value as Middleware<Log>])).toThrow(TypeError);
      expect(() => composeIn<Log>(value as Middleware<Log>)).toThrow(TypeError);
    }
    // Lists are flattened one level only: a list inside a list is not a middleware.
    expect(() => composeIn<Log>([[] as unknown as Middleware<Log>])).toThrow(TypeError);
    expect(() => composeIn<Log>([() => undefined, 'nope' as unknown as Middleware<Log>])).toThrow(
      'Middleware at position 1 must be a function, got string',
    );
    expect(() => composeIn<Log>([null as unknown as Middleware<Log>])).toThrow('got null');
  });

  it('runs the code after `await next()` in the last middleware when no outer next is given', async () => {
    let called = false;
    await composeIn<Log>([
      async (_c, next) => {
        await next();
        called = true;
      },
    ])({ calls: [] });
    expect(called).toBe(true);
  });

  it('hands every middleware the same context object', async () => {
    const ctx: Log = { calls: [] };
    const seen: Log[] = [];
    const record: Middleware<Log> = async (c, next) => {
      await next();
      seen.push(c);
    };
    await composeIn<Log>([record, record, record])(ctx);
    expect(seen).toHaveLength(3);
    for (const c of seen) expect(c).toBe(ctx);
  });

  it('turns a synchronous throw into a rejection at every position', async () => {
    const boom = (): never => {
      throw new Error('boom');
    };
    await expect(composeIn<Log>([boom])({ calls: [] })).rejects.toThrow('boom');
    await expect(composeIn<Log>([(_c, next) => next(), boom])({ calls: [] })).rejects.toThrow('boom');
    await expect(composeIn<Log>([(_c, next) => next()])({ calls: [] }, boom)).rejects.toThrow('boom');
    await expect(composeIn<Log>([])({ calls: [] }, boom)).rejects.toThrow('boom');
  });

  it('rejects an async middleware that throws', async () => {
    await expect(
      composeIn<Log>([
        async () => {
          throw new Error('async boom');
        },
      ])({ calls: [] }),
    ).rejects.toThrow('async boom');
  });

  it('lets an outer middleware catch an error thrown below it, and go on', async () => {
    const ctx: Log = { calls: [] };
    const run = composeIn<Log>([
      async (c, next) => {
        c.calls.push(1);
        try {
          await next();
          c.calls.push('never');
        } catch (err) {
          c.calls.push(`caught ${(err as Error).message}`);
        }
        c.calls.push(3);
      },
      async (c) => {
        c.calls.push(2);
        await tick();
        throw new Error('late');
      },
    ]);
    await run(ctx);
    expect(ctx.calls).toEqual([1, 2, 'caught late', 3]);
  });

  it('calls the outer next after the last middleware, and lets the chain wrap it', async () => {
    for (const size of [0, 1, 3]) {
      const ctx: Log = { calls: [] };
      const pass: Middleware<Log> = async (c, next) => {
        c.calls.push('in');
        await next();
        c.calls.push('out');
      };
      const run = composeIn<Log>(Array.from({ length: size }, () => pass));
      await run(ctx, async () => {
        ctx.calls.push('outer');
      });
      expect(ctx.calls).toEqual([...Array<string>(size).fill('in'), 'outer', ...Array<string>(size).fill('out')]);
    }
  });

  it('calls the outer next as it calls any middleware: with the context and a next of its own', async () => {
    for (const size of [0, 1, 3]) {
      const ctx: Log = { calls: [] };
      const pass: Middleware<Log> = (_c, next) => next();
      const run = composeIn<Log>(Array.from({ length: size }, () => pass));
      let received: { ctx: Log; next: Next } | undefined;
      await run(ctx, (c, next) => {
        received = { ctx: c, next };
        c.calls.push('outer');
        return next();
      });
      expect(received?.ctx).toBe(ctx);
      expect(typeof received?.next).toBe('function');
      expect(ctx.calls).toEqual(['outer']);
    }
  });

  it('composes chains inside chains, in order', async () => {
    const ctx: Log = { calls: [] };
    const push =
      (n: number): Middleware<Log> =>
      (c, next) => {
        c.calls.push(n);
        return next();
      };
    await composeIn<Log>([composeIn<Log>([push(1), push(2)]), push(3), composeIn<Log>([push(4)])])(ctx);
    expect(ctx.calls).toEqual([1, 2, 3, 4]);
  });

  it('resolves to what the outermost middleware returned, and `await next()` to what the inner one returned', async () => {
    const seen: unknown[] = [];
    const run = composeIn<Log, number>([
      async (_c, next) => {
        seen.push(await next());
        return 1;
      },
      async (_c, next) => {
        seen.push(await next());
        return 2;
      },
      (_c, next) => next().then((value) => (seen.push(value), 3)),
    ]);
    await expect(run({ calls: [] }, () => 0)).resolves.toBe(1);
    expect(seen).toEqual([0, 3, 2]);
  });

  it('passes return values through a chain of one, and a synchronous value too', async () => {
    await expect(composeIn<Log, string>([() => 'sync'])({ calls: [] })).resolves.toBe('sync');
    await expect(composeIn<Log, string>([(_c, next) => next()])({ calls: [] }, () => 'outer')).resolves.toBe('outer');
    await expect(composeIn<Log, string>([])({ calls: [] }, () => 'outer')).resolves.toBe('outer');
    await expect(composeIn<Log, string>([(_c, next) => next(), () => 'last'])({ calls: [] })).resolves.toBe('last');
  });

  it('awaits promises and other thenables returned by middleware written without async', async () => {
    const ctx: Log = { calls: [] };
    const run = composeIn<Log, string>([
      (c, next) =>
        next().then(() => {
          c.calls.push('after');
          return 'done';
        }),
      (c) => ({
        then(resolve: (value: string) => void) {
          setImmediate(() => {
            c.calls.push('handler');
            resolve('thenable');
          });
        },
      }),
    ]);
    await expect(run(ctx)).resolves.toBe('done');
    expect(ctx.calls).toEqual(['handler', 'after']);
  });

  it('stops the chain where a middleware does not call next', async () => {
    const ctx: Log = { calls: [] };
    const outer = jest.fn();
    const run = composeIn<Log>([
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
    await run(ctx, outer);
    expect(ctx.calls).toEqual(['a', 'b']);
    expect(outer).not.toHaveBeenCalled();
  });

  it('does not change the list it was given', () => {
    const first: Middleware<Log> = (_c, next) => next();
    const list = [first];
    composeIn<Log>(list);
    expect(list).toEqual([first]);
    expect(list).toHaveLength(1);
  });

  it('uses the middleware as they were when composed, not as the list changes later', async () => {
    const ctx: Log = { calls: [] };
    const list: Middleware<Log>[] = [
      (c) => {
        c.calls.push('composed');
      },
    ];
    const run = composeIn<Log>(list);
    list[0] = (c) => {
      c.calls.push('changed');
    };
    await run(ctx);
    expect(ctx.calls).toEqual(['composed']);
  });

  it('rejects when next() is called twice in one middleware, at every chain length', async () => {
    const twice: Middleware<Log> = async (_c, next) => {
      await next();
      await next();
    };
    await expect(composeIn<Log>([twice, () => undefined])({ calls: [] })).rejects.toThrow('next() called multiple times');
    await expect(composeIn<Log>([twice])({ calls: [] })).rejects.toThrow('next() called multiple times');
    await expect(composeIn<Log>([twice])({ calls: [] }, async () => undefined)).rejects.toThrow('next() called multiple times');
    await expect(composeIn<Log>([(_c, next) => next(), composeIn<Log>([twice])])({ calls: [] })).rejects.toThrow(
      'next() called multiple times',
    );
  });

  it('rejects an outer next that is not a function when the chain reaches it', async () => {
    const notAFunction = 'not a function' as unknown as Middleware<Log>;
    await expect(composeIn<Log>([])({ calls: [] }, notAFunction)).rejects.toThrow(TypeError);
    await expect(composeIn<Log>([(_c, next) => next()])({ calls: [] }, notAFunction)).rejects.toThrow(TypeError);
    await expect(composeIn<Log>([(_c, next) => next(), (_c, next) => next()])({ calls: [] }, notAFunction)).rejects.toThrow(TypeError);
  });

  it('does not report correct chains as disconnected: await next(), return next(), next().then()', async () => {
    const slow: Middleware<Log> = async (c) => {
      await wait(1);
      c.calls.push('slow');
    };
    const ctx: Log = { calls: [] };
    await composeIn<Log>([
      async (_c, next) => {
        await next();
      },
      (_c, next) => next(),
      async (_c, next) => next(),
      (_c, next) => next().then(() => undefined),
      slow,
    ])(ctx);
    expect(ctx.calls).toEqual(['slow']);
    // A synchronous middleware whose inner chain finished synchronously is connected too.
    await expect(
      composeIn<Log>([
        (_c, next) => {
          void next();
        },
        () => undefined,
      ])({ calls: [] }),
    ).resolves.toBeUndefined();
  });
});

describe('compose outside production', () => {
  const dev = <C>(...args: Array<Entry<C>>): ComposedMiddleware<C> => withEnv('development', () => compose<C>(...args));
  const slow: Middleware<Log> = async (c) => {
    await wait(2);
    c.calls.push('slow');
  };

  it('rejects a middleware that settles before the next() it called, naming its position', async () => {
    const run = dev<Log>([
      (_c, next) => next(),
      function forgetful(_c, next) {
        void next();
      },
      slow,
    ]);
    await expect(run({ calls: [] })).rejects.toThrow(/Middleware at position 1 \(forgetful\) resolved before downstream: it settled before the next\(\) it called/);
  });

  it('rejects an async middleware that forgot to await next()', async () => {
    const run = dev<Log>([
      async (_c, next) => {
        void next();
      },
      slow,
    ]);
    await expect(run({ calls: [] })).rejects.toThrow(/Middleware at position 0 resolved before downstream: it settled before the next\(\) it called.*disconnected promise chain/s);
  });

  it('checks a chain of one middleware against the outer next it calls', async () => {
    const run = dev<Log>([
      (_c, next) => {
        void next();
      },
    ]);
    await expect(run({ calls: [] }, () => wait(2))).rejects.toThrow(/Middleware at position 0 resolved before downstream/);
  });

  it('keeps the error a middleware threw rather than reporting the chain', async () => {
    const run = dev<Log>([
      async (_c, next) => {
        void next();
        throw new Error('own error');
      },
      slow,
    ]);
    await expect(run({ calls: [] })).rejects.toThrow('own error');
  });

  it('is on when NODE_ENV is not set', async () => {
    const run = withEnv(undefined, () =>
      compose<Log>([
        (_c, next) => {
          void next();
        },
        slow,
      ]),
    );
    await expect(run({ calls: [] })).rejects.toThrow('disconnected promise chain');
  });
});

describe('compose in production', () => {
  it('does not check for disconnected chains: the forgotten await goes unreported, as in Koa', async () => {
    const ctx: Log = { calls: [] };
    const run = withEnv('production', () =>
      compose<Log>([
        (_c, next) => {
          void next();
        },
        async (c) => {
          await wait(1);
          c.calls.push('late');
        },
      ]),
    );
    await expect(run(ctx)).resolves.toBeUndefined();
    expect(ctx.calls).toEqual([]);
    await wait(5);
    expect(ctx.calls).toEqual(['late']);
  });
});

describe('the compose example of the README', () => {
  it('resolves to what the first middleware returned, built on what the next one returned', async () => {
    // --- README example starts
    const timed = compose<{ log: string[] }, number>([
      async (ctx, next) => {
        const inner = (await next()) as unknown as number;
        ctx.log.push(`inner answered ${inner}`);
        return inner + 1;
      },
      () => 41,
    ]);
    // --- README example ends
    const ctx = { log: [] as string[] };
    await expect(timed(ctx)).resolves.toBe(42);
    expect(ctx.log).toEqual(['inner answered 41']);
  });
});
