import { Application, HTTPError, isValidationError, tracked, type Middleware, type RequestContext } from '@fw/core';
import { ContextVariables, runStreamOperation } from '@fw/core/plugin';
import { z } from 'zod';
import { defineOperation } from '../src/index.js';

// Streaming operations: `stream: true`, an async generator handler, each event checked and shaped.

function context(): RequestContext {
  const variables = new ContextVariables();
  return {
    protocol: 'custom',
    method: 'POST',
    path: '/shop.Orders/OrderEvents',
    headers: {},
    ip: '127.0.0.1',
    state: {},
    statusCode: 0,
    signal: new AbortController().signal,
    setHeader: () => undefined,
    get: (key) => variables.get(key),
    set: (key, value) => variables.set(key, value),
  };
}

const OrderEvent = z.object({ orderId: z.string(), status: z.enum(['paid', 'shipped']), at: z.date() }).meta({ id: 'OrderEvent' });
const AT = new Date('2026-01-02T03:04:05.000Z');

/** An order-events operation yielding `events` (as the handler's values), recording when its finally ran. */
function orderEvents(events: unknown[]): { op: ReturnType<typeof define>; state: { finished: number; input: unknown } } {
  const state = { finished: 0, input: undefined as unknown };
  const op = define(events, state);
  return { op, state };
}

function define(events: unknown[], state: { finished: number; input: unknown }) {
  return defineOperation({
    name: 'orderEvents',
    input: z.object({ orderId: z.string().min(2), limit: z.coerce.number().default(10) }),
    output: OrderEvent,
    stream: true,
    handler: async function* (input) {
      state.input = input;
      try {
        for (const event of events) yield event as z.input<typeof OrderEvent>;
      } finally {
        state.finished++;
      }
    },
    rest: { path: '/orders/:orderId/events' },
    graphql: { type: 'subscription' },
  });
}

async function collect<T>(events: AsyncIterable<T>): Promise<T[]> {
  const seen: T[] = [];
  for await (const event of events) seen.push(event);
  return seen;
}

describe('defineOperation({ stream: true })', () => {
  it('is a stream served over GET by default, and refuses execute', async () => {
    const { op } = orderEvents([]);
    expect(op.stream).toBe(true);
    expect(op.rest).toEqual({ method: 'GET', path: '/orders/:orderId/events' });
    expect(op.graphql).toEqual({ type: 'subscription' });
    await expect(op.execute({}, context())).rejects.toThrow('Operation "orderEvents" is a stream: open it (runStreamOperation), not execute');
    const unary = defineOperation({ name: 'getOrder', input: z.object({}), output: z.string(), handler: () => 'x' });
    expect(unary.stream).toBe(false);
    expect('open' in unary).toBe(false);
  });

  it('validates the input before the first event, naming each field', async () => {
    const { op, state } = orderEvents([]);
    const refused = await op.open({ orderId: 'x' }, context()).catch((err: unknown) => err);
    expect(isValidationError(refused)).toBe(true);
    expect((refused as HTTPError).details).toEqual({
      errors: [{ field: 'orderId', message: 'Too small: expected string to have >=2 characters', code: 'too_small' }],
    });
    expect(state.input).toBeUndefined();
  });

  it('yields every event checked and shaped by the output, with the ids of tracked() values', async () => {
    const { op, state } = orderEvents([
      { orderId: 'o1', status: 'paid', at: AT, internal: 'dropped' },
      tracked('e-2', { orderId: 'o1', status: 'shipped', at: AT }),
    ]);
    const events = await op.open({ orderId: 'o1', limit: '3' }, context());
    expect(await collect(events)).toEqual([
      { id: undefined, data: { orderId: 'o1', status: 'paid', at: '2026-01-02T03:04:05.000Z' } },
      { id: 'e-2', data: { orderId: 'o1', status: 'shipped', at: '2026-01-02T03:04:05.000Z' } },
    ]);
    expect(state.input).toEqual({ orderId: 'o1', limit: 3 });
    expect(state.finished).toBe(1);
  });

  it("ends the stream with an internal error on an event that does not match the output, and runs the handler's finally", async () => {
    const { op, state } = orderEvents([
      { orderId: 'o1', status: 'paid', at: AT },
      { orderId: 'o1', status: 'lost', at: AT },
      { orderId: 'o1', status: 'shipped', at: AT },
    ]);
    const events = await op.open({ orderId: 'o1' }, context());
    await events.next();
    const failure = await events.next().catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(Error);
    expect(failure).not.toBeInstanceOf(HTTPError);
    expect((failure as Error).message).toContain('Operation "orderEvents" returned a value that does not match its output: status:');
    expect(state.finished).toBe(1);
  });

  it("runs the handler's finally when the transport returns the iterator early", async () => {
    const { op, state } = orderEvents([
      { orderId: 'o1', status: 'paid', at: AT },
      { orderId: 'o1', status: 'shipped', at: AT },
    ]);
    const events = await op.open({ orderId: 'o1' }, context());
    await events.next();
    await events.return?.();
    expect(state.finished).toBe(1);
  });

  it('refuses a handler that returns no async iterable', async () => {
    const op = defineOperation({
      name: 'notAStream',
      input: z.object({}),
      output: z.string(),
      stream: true,
      handler: (() => 'one') as never,
    });
    await expect(op.open({}, context())).rejects.toThrow('Operation "notAStream": a streaming handler must be an async generator function');
  });

  it('runs its middleware once at open through runStreamOperation', async () => {
    let runs = 0;
    const counted: Middleware<RequestContext> = (_ctx, next) => (runs++, next());
    const op = defineOperation({
      name: 'ticks',
      input: z.object({}),
      output: z.number(),
      stream: true,
      middleware: [counted],
      handler: async function* () {
        yield 1;
        yield 2;
      },
    });
    const events = await runStreamOperation(op, context(), {});
    expect(await collect(events)).toEqual([
      { id: undefined, data: 1 },
      { id: undefined, data: 2 },
    ]);
    expect(runs).toBe(1);
  });

  it('is served as server-sent events on its REST route, with 400 for a refused input', async () => {
    const { op } = orderEvents([tracked('1', { orderId: 'o1', status: 'paid', at: AT })]);
    const app = new Application().operation(op);
    const res = await app.inject('/orders/o1/events?limit=2');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(res.body).toBe('retry: 3000\n\nid: 1\ndata: {"orderId":"o1","status":"paid","at":"2026-01-02T03:04:05.000Z"}\n\n');
    const refused = await app.inject('/orders/x/events');
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ error: true, code: 400, details: { errors: [{ field: 'params.orderId', code: 'too_small' }] } });
  });
});

describe('a streaming operation over server-sent events', () => {
  it('ends the stream with a 500 error event on an event that does not match the output, logs it, and runs the finally', async () => {
    const { op, state } = orderEvents([
      { orderId: 'o1', status: 'paid', at: AT },
      { orderId: 'o1', status: 'lost', at: AT },
      { orderId: 'o1', status: 'shipped', at: AT },
    ]);
    const logged: Array<[string, unknown]> = [];
    const app = new Application({ onLog: (message, error) => logged.push([message, error]) }).operation(op);
    const res = await app.inject('/orders/o1/events');
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe(
      'retry: 3000\n\n' +
        'data: {"orderId":"o1","status":"paid","at":"2026-01-02T03:04:05.000Z"}\n\n' +
        'event: error\ndata: {"error":true,"message":"Internal Server Error","code":500}\n\n',
    );
    expect(logged.map(([message]) => message)).toEqual(['Error in the stream of GET /orders/o1/events']);
    expect(String(logged[0]![1])).toContain('Operation "orderEvents" returned a value that does not match its output: status:');
    expect(state.finished).toBe(1);
  });

  it("sends an HTTPError the handler throws before its first event as an error event carrying its status", async () => {
    const op = defineOperation({
      name: 'orderEvents',
      input: z.object({ orderId: z.string() }),
      output: OrderEvent,
      stream: true,
      // eslint-disable-next-line require-yield -- refuses before its first event
      handler: async function* ({ orderId }) {
        throw new HTTPError(404, `No order ${orderId}`);
      },
      rest: { path: '/orders/:orderId/events' },
    });
    // The stream opens once middleware and validation passed: the handler's throw is an error event.
    const res = await new Application().operation(op).inject('/orders/o9/events');
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('retry: 3000\n\nevent: error\ndata: {"error":true,"message":"No order o9","code":404}\n\n');
  });
});

describe('the definition of a streaming operation', () => {
  const base = { name: 'orderEvents', input: z.object({}), output: z.string(), handler: async function* () {} };
  // Definitions the types refuse, as JavaScript callers can still write them.
  const untyped = defineOperation as (definition: unknown) => unknown;
  const refused = (extra: Record<string, unknown>, message: string): void => {
    expect(() => untyped({ ...base, ...extra })).toThrow(new TypeError(message));
  };

  it('takes stream as a boolean', () => {
    refused({ stream: 'yes' }, 'defineOperation("orderEvents"): stream must be true or false, got "yes"');
  });

  it('serves a stream on GraphQL as a subscription only', () => {
    refused({ stream: true, graphql: { type: 'query' } }, 'defineOperation("orderEvents"): graphql.type of a streaming operation must be "subscription", got "query"');
    refused(
      { handler: () => 'x', graphql: { type: 'subscription' } },
      'defineOperation("orderEvents"): graphql.type "subscription" is for streaming operations: add stream: true and make the handler an async generator',
    );
  });

  it('answers a stream with 200 only', () => {
    refused({ stream: true, rest: { path: '/events', status: 201 } }, 'defineOperation("orderEvents"): rest.status is not for streams: server-sent events are answered 200');
  });

  it('needs a handler', () => {
    refused({ stream: true, handler: undefined }, 'defineOperation("orderEvents"): handler must be an async generator function (async function* (input, ctx) { ... })');
  });
});
