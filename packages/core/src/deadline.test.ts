import { send } from '../test/http-client.js';
import { Application } from './application.js';
import type { Context } from './context.js';
import { deadlineExceeded, timeRemaining, withDeadline } from './deadline.js';
import { ERROR_CODE_STATUS } from './error-code.js';
import { HTTPError } from './http-error.js';
import { OPERATION_BRAND, runOperation, type ObjectShape, type Operation } from './operation.js';
import { ContextVariables, type RequestContext } from './request-context.js';

const EMPTY: ObjectShape = { kind: 'object', name: undefined, fields: [], source: {} };

/** Resolves after `ms`, or rejects with the signal's reason once it aborts. */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(signal.reason as Error);
    });
  });
}

/** What a handler saw of its deadline and signal. */
interface Seen {
  deadline: number | undefined;
  remaining: number;
  aborted?: unknown;
  lateAnswer?: boolean;
}

function quiet(config: ConstructorParameters<typeof Application>[0] = {}): Application {
  return new Application({ onLog: () => undefined, ...config });
}

/** A handler that waits `ms` on its signal, recording what it saw in `seen`. */
function waiting(ms: number, seen: Seen[]) {
  return async (ctx: Context): Promise<void> => {
    const entry: Seen = { deadline: ctx.deadline, remaining: ctx.timeRemaining() };
    seen.push(entry);
    try {
      await sleep(ms, ctx.signal);
    } catch (reason) {
      entry.aborted = reason;
      // Answering after the deadline is ignored: the 504 went out already.
      ctx.json({ late: true });
      entry.lateAnswer = true;
      return;
    }
    ctx.json({ ok: true });
  };
}

describe('a route timeout', () => {
  it('answers 504 deadline_exceeded when the handler is still running at the deadline, aborting ctx.signal with that error', async () => {
    const app = quiet();
    const seen: Seen[] = [];
    app.route({ method: 'GET', path: '/slow', timeout: 50, handler: waiting(10_000, seen) });
    const started = Date.now();
    const res = await app.inject('/slow');
    expect(res.statusCode).toBe(504);
    expect(ERROR_CODE_STATUS.deadline_exceeded).toBe(504);
    expect(res.json()).toEqual({ error: true, message: 'The deadline of 50 ms passed', code: 504 });
    expect(seen).toHaveLength(1);
    const [entry] = seen;
    expect(entry!.deadline).toBeGreaterThanOrEqual(started + 50);
    expect(entry!.remaining).toBeGreaterThan(0);
    expect(entry!.remaining).toBeLessThanOrEqual(50);
    expect(entry!.aborted).toBeInstanceOf(HTTPError);
    expect((entry!.aborted as HTTPError).code).toBe('deadline_exceeded');
    await app.close();
  });

  it('leaves a request that finishes in time alone, with ctx.deadline set', async () => {
    const app = quiet();
    const seen: Seen[] = [];
    app.route({ method: 'GET', path: '/quick', timeout: 10_000, handler: waiting(0, seen) });
    const res = await app.inject('/quick');
    expect(res.statusCode).toBe(200);
    expect(seen[0]!.deadline).toBeGreaterThan(Date.now());
    expect(seen[0]!.aborted).toBeUndefined();
    await app.close();
  });

  it('gives routes without a timeout no deadline: ctx.deadline undefined, timeRemaining() Infinity', async () => {
    const app = quiet();
    const seen: Seen[] = [];
    app.get('/plain', waiting(0, seen));
    expect((await app.inject('/plain')).statusCode).toBe(200);
    expect(seen[0]).toEqual({ deadline: undefined, remaining: Infinity });
    expect(timeRemaining({ deadline: undefined })).toBe(Infinity);
    expect(timeRemaining({ deadline: Date.now() - 5 })).toBe(0);
    await app.close();
  });

  it("applies the app's default timeout to every route without its own, and timeout: 0 opts a route out", async () => {
    const app = quiet({ timeout: 40 });
    const seen: Seen[] = [];
    app.get('/default', waiting(10_000, seen));
    app.route({ method: 'GET', path: '/exempt', timeout: 0, handler: waiting(80, seen) });
    expect((await app.inject('/default')).statusCode).toBe(504);
    expect((await app.inject('/exempt')).statusCode).toBe(200);
    expect(seen[1]!.deadline).toBeUndefined();
    await app.close();
  });

  it('counts the body read in the deadline and lets error middleware see the 504', async () => {
    const app = quiet();
    const statuses: number[] = [];
    app.use(async (ctx, next) => {
      try {
        await next();
      } catch (err) {
        statuses.push((err as HTTPError).statusCode);
        throw err;
      }
    });
    app.route({ method: 'POST', path: '/echo', timeout: 60, handler: waiting(10_000, []) });
    const res = await app.inject({ method: 'POST', url: '/echo', body: { a: 1 } });
    expect(res.statusCode).toBe(504);
    expect(statuses).toEqual([504]);
    await app.close();
  });

  it('refuses a timeout that is not a number of milliseconds', () => {
    const app = quiet();
    expect(() => app.route({ method: 'GET', path: '/x', timeout: -1, handler: () => undefined })).toThrow(/timeout of route "\/x" must be a number of milliseconds/);
    expect(() => new Application({ timeout: Number.NaN })).toThrow(/timeout must be a number of milliseconds/);
  });

  it('answers 504 over a real socket, with the late answer ignored', async () => {
    const app = quiet();
    const seen: Seen[] = [];
    app.route({ method: 'GET', path: '/slow', timeout: 50, handler: waiting(10_000, seen) });
    const { port } = await app.listen(0, '127.0.0.1');
    try {
      const res = await send(port, { path: '/slow' });
      expect(res.status).toBe(504);
      expect(JSON.parse(res.text)).toMatchObject({ message: 'The deadline of 50 ms passed', code: 504 });
      expect(seen[0]!.lateAnswer).toBe(true);
    } finally {
      await app.close();
    }
  });
});

describe("a route timeout and a stream served from the route", () => {
  it("leaves server-sent events alone: the app's timeout bounds the answer's start, not the stream", async () => {
    const app = quiet({ timeout: 60 });
    let ended = '';
    app.get('/ticks', (ctx) =>
      ctx.sse(
        (async function* () {
          try {
            for (let n = 1; n <= 4; n++) {
              yield { n };
              await sleep(50, ctx.signal);
            }
          } finally {
            ended = ctx.signal.aborted ? 'aborted' : 'done';
          }
        })(),
      ),
    );
    const { port } = await app.listen(0, '127.0.0.1');
    try {
      // 4 events 50 ms apart: the stream outlives the 60 ms deadline and ends by itself.
      const res = await send(port, { path: '/ticks' });
      expect(res.status).toBe(200);
      expect(res.text.match(/^data: /gm)).toHaveLength(4);
      expect(ended).toBe('done');
    } finally {
      await app.close();
    }
  });
});

/** A hand-built operation with a timeout, whose handler waits `ms` on its signal. */
function slowOperation(timeout: number | undefined, ms: number, seen: Seen[]): Operation {
  return {
    [OPERATION_BRAND]: true,
    name: 'slow',
    input: EMPTY,
    output: EMPTY,
    rest: { method: 'GET', path: '/op' },
    middleware: [],
    ...(timeout !== undefined ? { timeout } : {}),
    schemas: { input: undefined, output: undefined },
    async execute(_raw, ctx) {
      const entry: Seen = { deadline: ctx.deadline, remaining: ctx.timeRemaining?.() ?? timeRemaining(ctx) };
      seen.push(entry);
      try {
        await sleep(ms, ctx.signal);
      } catch (reason) {
        entry.aborted = reason;
        throw reason;
      }
      return {};
    },
  };
}

/** A protocol-neutral context, as a protocol with its own server makes one. */
function context(deadline?: number): RequestContext {
  const variables = new ContextVariables();
  return {
    protocol: 'grpc',
    method: 'POST',
    path: '/shop.Catalog/GetBook',
    headers: {},
    ip: '127.0.0.1',
    state: {},
    statusCode: 0,
    signal: new AbortController().signal,
    deadline,
    setHeader: () => undefined,
    get: (key) => variables.get(key),
    set: (key, value) => variables.set(key, value),
  };
}

describe("an operation's timeout", () => {
  it('is the REST route timeout: 504 from the route, one deadline', async () => {
    const app = quiet();
    const seen: Seen[] = [];
    app.operation(slowOperation(50, 10_000, seen));
    expect(app.getRoutes()[0]!.timeout).toBe(50);
    const res = await app.inject('/op');
    expect(res.statusCode).toBe(504);
    expect((seen[0]!.aborted as HTTPError).code).toBe('deadline_exceeded');
    await app.close();
  });

  it("on another protocol, gives the handler a view whose deadline is the earlier of its timeout and the caller's", async () => {
    const seen: Seen[] = [];
    const ctx = context();
    const before = Date.now();
    await expect(runOperation(slowOperation(40, 10_000, seen), ctx, {})).rejects.toMatchObject({ statusCode: 504, code: 'deadline_exceeded' });
    expect(seen[0]!.deadline).toBeGreaterThanOrEqual(before + 40);
    expect(seen[0]!.deadline).toBeLessThanOrEqual(Date.now());
    // The shared context is left as it was: other calls on it have their own deadlines.
    expect(ctx.deadline).toBeUndefined();
    expect(ctx.signal.aborted).toBe(false);

    // The caller's deadline comes first: the operation keeps it and adds no timer of its own.
    const early = Date.now() + 30;
    const withCaller = context(early);
    await runOperation(slowOperation(10_000, 0, seen), withCaller, {});
    expect(seen[1]!.deadline).toBe(early);
  });

  it('rejects with what the handler threw when it fails before the deadline', async () => {
    const failing: Operation = { ...slowOperation(1000, 0, []), execute: () => Promise.reject(new HTTPError(409, 'Taken')) };
    await expect(runOperation(failing, context(), {})).rejects.toMatchObject({ statusCode: 409 });
  });
});

describe('withDeadline()', () => {
  it('names the budget in its error and keeps the table as the status', () => {
    const error = deadlineExceeded(200);
    expect(error.statusCode).toBe(ERROR_CODE_STATUS.deadline_exceeded);
    expect(error.message).toBe('The deadline of 200 ms passed');
  });

  it('passes the context itself when its deadline is earlier already', async () => {
    const ctx = context(Date.now() + 10);
    let given: RequestContext | undefined;
    await withDeadline(ctx, 5000, async (scoped) => {
      given = scoped;
    });
    expect(given).toBe(ctx);
  });
});
