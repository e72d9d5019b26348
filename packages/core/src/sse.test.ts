import { Application, type ApplicationConfig } from './application.js';
import { HTTPError } from './http-error.js';
import { tracked } from './stream.js';

/** An app whose log is collected. */
function appWith(config: ApplicationConfig = {}): { app: Application; logged: Array<[string, unknown]> } {
  const logged: Array<[string, unknown]> = [];
  return { app: new Application({ onLog: (message, error) => logged.push([message, error]), ...config }), logged };
}

/** The events of a `text/event-stream` body: each block's fields, comments left out. */
function events(body: string): Array<Record<string, string>> {
  return body
    .split('\n\n')
    .filter((block) => block !== '')
    .map((block) => {
      const fields: Record<string, string> = {};
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const name = line.slice(0, colon);
        const value = line.slice(colon + 2);
        fields[name] = fields[name] === undefined ? value : `${fields[name]}\n${value}`;
      }
      return fields;
    })
    .filter((fields) => Object.keys(fields).length > 0);
}

describe('ctx.sse()', () => {
  it('answers text/event-stream: a retry hint, then one event per value, with the id of tracked() values', async () => {
    const { app } = appWith();
    app.get('/events', (ctx) =>
      ctx.sse(
        (async function* () {
          yield { n: 1 };
          yield tracked('b-2', { n: 2 });
          yield 'three';
        })(),
      ),
    );
    const res = await app.inject('/events');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.body).toBe('retry: 3000\n\ndata: {"n":1}\n\nid: b-2\ndata: {"n":2}\n\ndata: "three"\n\n');
  });

  it('sends the configured retry and splits a value with line breaks over several data lines', async () => {
    const { app } = appWith({ streams: { retry: 1500 } });
    app.get('/text', (ctx) => ctx.sse((async function* () { yield 'one\ntwo\r\nthree'; })(), { serialize: String }));
    const res = await app.inject('/text');
    expect(res.body).toBe('retry: 1500\n\ndata: one\ndata: two\ndata: three\n\n');
    expect(events(res.body)).toEqual([{ retry: '1500' }, { data: 'one\ntwo\nthree' }]);
  });

  it('opens the stream at once, so a throw before the first event is an error event; a refusal before sse() keeps its status', async () => {
    const { app } = appWith();
    app.get('/guarded', () => {
      throw new HTTPError(404, 'No such order');
    });
    app.get('/refused', (ctx) =>
      ctx.sse(
        // eslint-disable-next-line require-yield -- a handler that refuses before its first event
        (async function* () {
          throw new HTTPError(404, 'No such order');
        })(),
      ),
    );
    const res = await app.inject('/refused');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(res.body).toBe('retry: 3000\n\nevent: error\ndata: {"error":true,"message":"No such order","code":404}\n\n');
    const refused = await app.inject('/guarded');
    expect(refused.statusCode).toBe(404);
    expect(refused.json()).toEqual({ error: true, message: 'No such order', code: 404 });
  });

  it('ends with an error event carrying the error body when the source throws after an event, and runs its finally', async () => {
    const { app, logged } = appWith();
    let finished = false;
    app.get('/fails', (ctx) =>
      ctx.sse(
        (async function* () {
          try {
            yield 1;
            throw new HTTPError(409, 'Order was cancelled', { orderId: 'o1' });
          } finally {
            finished = true;
          }
        })(),
      ),
    );
    const res = await app.inject('/fails');
    expect(res.statusCode).toBe(200);
    expect(events(res.body).slice(1)).toEqual([
      { data: '1' },
      { event: 'error', data: JSON.stringify({ error: true, message: 'Order was cancelled', code: 409, details: { orderId: 'o1' } }) },
    ]);
    expect(finished).toBe(true);
    expect(logged).toEqual([]);
  });

  it('masks an unexpected error in the error event (no message, no stack) and logs it', async () => {
    const { app, logged } = appWith();
    const failure = new Error('database password is hunter2');
    app.get('/crash', (ctx) =>
      ctx.sse(
        (async function* () {
          yield 1;
          throw failure;
        })(),
      ),
    );
    const res = await app.inject('/crash');
    expect(events(res.body).at(-1)).toEqual({ event: 'error', data: '{"error":true,"message":"Internal Server Error","code":500}' });
    expect(res.body).not.toContain('hunter2');
    expect(logged).toEqual([['Error in the stream of GET /crash', failure]]);
  });

  it('ends the stream with an internal error when an event is larger than streams.maxEventBytes', async () => {
    const { app, logged } = appWith({ streams: { maxEventBytes: 64 } });
    app.get('/big', (ctx) =>
      ctx.sse(
        (async function* () {
          yield 'small';
          yield 'x'.repeat(100);
          yield 'never sent';
        })(),
      ),
    );
    const res = await app.inject('/big');
    expect(events(res.body).slice(1)).toEqual([{ data: '"small"' }, { event: 'error', data: '{"error":true,"message":"Internal Server Error","code":500}' }]);
    expect(String(logged[0]?.[1])).toContain('larger than streams.maxEventBytes (64)');
  });

  it('answers HEAD with the stream headers and no body, without running the source', async () => {
    const { app } = appWith();
    let ran = false;
    app.get('/events', (ctx) =>
      ctx.sse(
        (async function* () {
          ran = true;
          yield 1;
        })(),
      ),
    );
    const res = await app.inject({ method: 'HEAD', url: '/events' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(res.body).toBe('');
    expect(ran).toBe(false);
  });

  it('answers 500 and logs a TypeError when given something that is not an async iterable', async () => {
    const { app, logged } = appWith();
    app.get('/array', (ctx) => ctx.sse([1, 2] as unknown as AsyncIterable<number>));
    expect((await app.inject('/array')).statusCode).toBe(500);
    expect(String(logged[0]?.[1])).toBe('TypeError: ctx.sse() expects an async iterable (an async generator, a subscription)');
  });

  it('reads Last-Event-ID as ctx.lastEventId', async () => {
    const { app } = appWith();
    app.get('/resume', (ctx) => ctx.json({ after: ctx.lastEventId ?? null }));
    expect((await app.inject({ url: '/resume', headers: { 'last-event-id': '41' } })).json()).toEqual({ after: '41' });
    expect((await app.inject('/resume')).json()).toEqual({ after: null });
  });

  it('refuses a stream past streams.maxPerClient with 429, before the source runs', async () => {
    const { app } = appWith({ streams: { maxPerClient: 1 } });
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    let started = 0;
    app.get('/held', (ctx) =>
      ctx.sse(
        (async function* () {
          started++;
          yield 'first';
          await held;
        })(),
      ),
    );
    const first = app.inject('/held');
    await new Promise((resolve) => setTimeout(resolve, 20));
    const second = await app.inject('/held');
    expect(second.statusCode).toBe(429);
    expect(second.json()).toEqual({ error: true, message: 'Too many open streams for this client (at most 1)', code: 429 });
    release();
    expect((await first).statusCode).toBe(200);
    expect(started).toBe(1);
  });

  it('aborts ctx.signal when the stream is over', async () => {
    const { app } = appWith();
    let signal: AbortSignal | undefined;
    app.get('/once', (ctx) => {
      signal = ctx.signal;
      return ctx.sse((async function* () { yield 1; })());
    });
    await app.inject('/once');
    expect(signal?.aborted).toBe(true);
  });

  it('ends a stream that reaches streams.maxDuration with a retry hint, and aborts ctx.signal with the reason', async () => {
    const { app } = appWith({ streams: { maxDuration: 50, retry: 700 } });
    let reason: unknown;
    app.get('/long', (ctx) =>
      ctx.sse(
        (async function* () {
          yield 'first';
          await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve()));
          reason = ctx.signal.reason;
        })(),
      ),
    );
    const res = await app.inject('/long');
    expect(res.body).toBe('retry: 700\n\ndata: "first"\n\nretry: 700\n\n');
    expect(reason).toMatchObject({ statusCode: 503, message: 'The stream reached its maximum duration (50 ms); reconnect to continue' });
  });
});
