import { Application } from './application.js';
import { HTTPError } from './http-error.js';
import { observeOperations, OPERATION_BRAND, runOperation, runStreamOperation, type ObjectShape, type Operation } from './operation.js';
import { ContextVariables, OPERATION_NAME, type RequestContext, type TraceAttributes, type TraceSpan } from './request-context.js';
import { toStreamEvent, tracked, type StreamEvent } from './stream.js';
import type { Middleware } from './types.js';
import { ValidationError } from './validation-error.js';

const EMPTY: ObjectShape = { kind: 'object', name: undefined, fields: [], source: {} };

/**
 * A hand-built streaming operation, as a schema package makes one: `open` refuses an input without
 * `ok`, then yields `values` (a value `'fail'` throws instead), recording when its finally ran.
 */
function streamOperation(
  name: string,
  values: unknown[],
  options: { middleware?: Array<Middleware<RequestContext>>; rest?: Operation['rest'] } = {},
): Operation & { finished: number } {
  const op = {
    [OPERATION_BRAND]: true as const,
    name,
    input: EMPTY,
    output: EMPTY,
    rest: options.rest,
    middleware: options.middleware ?? [],
    schemas: { input: undefined, output: undefined },
    stream: true,
    finished: 0,
    execute: () => Promise.reject(new TypeError('a stream')),
    open(raw: unknown): Promise<AsyncIterableIterator<StreamEvent<unknown>>> {
      if ((raw as { ok?: string }).ok === undefined) return Promise.reject(new ValidationError([{ field: 'query.ok', message: 'Required' }]));
      return Promise.resolve(
        (async function* () {
          try {
            for (const value of values) {
              if (value === 'fail') throw new HTTPError(409, 'Order was cancelled');
              yield toStreamEvent(value);
            }
          } finally {
            op.finished++;
          }
        })(),
      );
    },
  };
  return op;
}

function context(extra: Partial<RequestContext> = {}): RequestContext {
  const variables = new ContextVariables();
  return {
    protocol: 'custom',
    method: 'POST',
    path: '/orders',
    headers: {},
    ip: '127.0.0.1',
    state: {},
    statusCode: 0,
    signal: new AbortController().signal,
    setHeader: () => undefined,
    get: (key) => variables.get(key),
    set: (key, value) => variables.set(key, value),
    ...extra,
  };
}

async function collect<T>(events: AsyncIterable<T>): Promise<T[]> {
  const seen: T[] = [];
  for await (const event of events) seen.push(event);
  return seen;
}

describe('runStreamOperation()', () => {
  it("runs the operation's middleware once, at open, and yields its events", async () => {
    const order: string[] = [];
    const op = streamOperation('orderEvents', [tracked('1', 'a'), 'b'], {
      middleware: [
        async (_ctx, next) => {
          order.push('before');
          await next();
          order.push('after');
        },
      ],
    });
    const ctx = context();
    const events = await runStreamOperation(op, ctx, { ok: 'yes' });
    expect(order).toEqual(['before', 'after']);
    expect(ctx.get(OPERATION_NAME)).toBe('orderEvents');
    expect(await collect(events)).toEqual([
      { id: '1', data: 'a' },
      { id: undefined, data: 'b' },
    ]);
    expect(order).toEqual(['before', 'after']);
  });

  it('rejects with what the middleware threw, before the handler runs', async () => {
    const op = streamOperation('orderEvents', ['a'], {
      middleware: [
        () => {
          throw new HTTPError(401, 'Sign in first');
        },
      ],
    });
    await expect(runStreamOperation(op, context(), { ok: 'yes' })).rejects.toMatchObject({ statusCode: 401, message: 'Sign in first' });
    expect(op.finished).toBe(0);
  });

  it('rejects with the validation error before any event', async () => {
    await expect(runStreamOperation(streamOperation('orderEvents', ['a']), context(), {})).rejects.toBeInstanceOf(ValidationError);
  });

  it('is an error when the middleware ends without calling next, as for runOperation', async () => {
    const op = streamOperation('orderEvents', ['a'], { middleware: [() => undefined] });
    await expect(runStreamOperation(op, context(), { ok: 'yes' })).rejects.toThrow(
      'Operation "orderEvents": its middleware ended the request without running the handler',
    );
  });

  it('refuses a unary operation, and runOperation refuses a stream', async () => {
    const op = streamOperation('orderEvents', []);
    await expect(runStreamOperation({ ...op, stream: false }, context(), {})).rejects.toThrow('Operation "orderEvents" is not a stream: run it with runOperation');
    await expect(runOperation(op, context(), {})).rejects.toThrow(TypeError);
  });

  it("keeps the span open for the stream's life and records the number of events and the error it ended with", async () => {
    const span = { setAttributes: jest.fn() } as unknown as TraceSpan & { setAttributes: jest.Mock };
    const started: Array<[string, TraceAttributes | undefined]> = [];
    const ended: Array<[TraceSpan | undefined, unknown]> = [];
    const ctx = context({
      startSpan: (name, attributes) => (started.push([name, attributes]), span),
      endSpan: (s, error) => void ended.push([s, error]),
    });
    const events = await runStreamOperation(streamOperation('orderEvents', ['a', 'b', 'fail']), ctx, { ok: 'yes' });
    expect(started).toEqual([['operation orderEvents', { 'fw.operation.name': 'orderEvents' }]]);
    expect(ended).toEqual([]);
    await expect(collect(events)).rejects.toMatchObject({ statusCode: 409 });
    expect(span.setAttributes).toHaveBeenCalledWith({ 'fw.stream.events': 2 });
    expect(ended).toEqual([[span, expect.objectContaining({ message: 'Order was cancelled' })]]);
  });

  it("ends the span when the transport returns the iterator early, and the handler's finally runs", async () => {
    const ended: unknown[] = [];
    const span = { setAttributes: () => undefined } as unknown as TraceSpan;
    const op = streamOperation('orderEvents', ['a', 'b', 'c']);
    const ctx = context({ startSpan: () => span, endSpan: (_s, error) => void ended.push(error) });
    const events = await runStreamOperation(op, ctx, { ok: 'yes' });
    await events.next();
    await events.return?.();
    expect(op.finished).toBe(1);
    expect(ended).toEqual([undefined]);
  });

  it('tells the observers of the request once the stream is over, not when it opens, whether it ended, was left or failed', async () => {
    const told: Array<[string, boolean, unknown]> = [];
    const ctx = context();
    observeOperations(ctx, (op, _ctx, failed, error) => void told.push([op.name, failed, error]));
    const done = await runStreamOperation(streamOperation('orderEvents', ['a']), ctx, { ok: 'yes' });
    expect(told).toEqual([]);
    await collect(done);
    const left = await runStreamOperation(streamOperation('orderEvents', ['a', 'b']), ctx, { ok: 'yes' });
    await left.next();
    await left.return?.();
    const failing = await runStreamOperation(streamOperation('orderEvents', ['fail']), ctx, { ok: 'yes' });
    await expect(collect(failing)).rejects.toMatchObject({ statusCode: 409 });
    await expect(runStreamOperation(streamOperation('orderEvents', []), ctx, {})).rejects.toBeInstanceOf(ValidationError);
    expect(told.map(([name, failed, error]) => [name, failed, (error as { statusCode?: number } | undefined)?.statusCode])).toEqual([
      ['orderEvents', false, undefined],
      ['orderEvents', false, undefined],
      ['orderEvents', true, 409],
      ['orderEvents', true, 400],
    ]);
  });
});

describe("a streaming operation's REST route", () => {
  it('answers server-sent events', async () => {
    const app = new Application();
    app.operation(streamOperation('orderEvents', [tracked('7', { s: 'paid' })], { rest: { method: 'GET', path: '/orders/events' } }));
    const res = await app.inject('/orders/events?ok=1');
    expect(res.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(res.body).toBe('retry: 3000\n\nid: 7\ndata: {"s":"paid"}\n\n');
  });

  it('answers a refused input with 400 and the validation body, before any event', async () => {
    const app = new Application();
    app.operation(streamOperation('orderEvents', ['a'], { rest: { method: 'GET', path: '/orders/events' } }));
    const res = await app.inject('/orders/events');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: true, message: 'Validation failed', code: 400, details: { errors: [{ field: 'query.ok', message: 'Required' }] } });
  });

  it('answers a middleware refusal with its real status, and gives the stream slot back', async () => {
    const app = new Application({ streams: { maxPerClient: 1 } });
    let allowed = false;
    const guard: Middleware<RequestContext> = (_ctx, next) => {
      if (!allowed) throw new HTTPError(403, 'Not your orders');
      return next();
    };
    app.operation(streamOperation('orderEvents', ['a'], { middleware: [guard], rest: { method: 'GET', path: '/orders/events' } }));
    const refused = await app.inject('/orders/events?ok=1');
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toEqual({ error: true, message: 'Not your orders', code: 403 });
    allowed = true;
    expect((await app.inject('/orders/events?ok=1')).statusCode).toBe(200);
  });

  it('keeps the answer of a middleware that answered the request itself', async () => {
    const app = new Application();
    const answers: Middleware<RequestContext> = (ctx) => {
      (ctx as unknown as { json(body: unknown, status: number): void }).json({ message: 'sign in' }, 401);
    };
    app.operation(streamOperation('orderEvents', ['a'], { middleware: [answers], rest: { method: 'GET', path: '/orders/events' } }));
    const res = await app.inject('/orders/events?ok=1');
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ message: 'sign in' });
  });
});
