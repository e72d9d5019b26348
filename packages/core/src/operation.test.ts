import { send } from '../test/http-client.js';
import { Application } from './application.js';
import { isHttpContext } from './context.js';
import { HTTPError } from './http-error.js';
import { isOperation, observeOperations, OPERATION_BRAND, runOperation, type InputOrigin, type ObjectShape, type Operation } from './operation.js';
import type { PluginHost } from './plugin-host.js';
import { ContextVariables, OPERATION_NAME, type RequestContext, type TraceAttributes, type TraceSpan } from './request-context.js';
import { ROUTE_SCHEMA, withMeta } from './route-meta.js';
import type { Middleware } from './types.js';

const EMPTY: ObjectShape = { kind: 'object', name: undefined, fields: [], source: {} };

interface Call {
  raw: unknown;
  origin: InputOrigin | undefined;
}

/** A hand-built operation whose `execute` records its calls and answers `answer(raw)`. */
function operation(
  name: string,
  options: { middleware?: Array<Middleware<RequestContext>>; answer?: (raw: unknown, ctx: RequestContext) => unknown; rest?: Operation['rest'] } = {},
): Operation & { calls: Call[] } {
  const calls: Call[] = [];
  const answer = options.answer ?? ((raw: unknown) => ({ echo: raw }));
  return {
    [OPERATION_BRAND]: true,
    name,
    input: EMPTY,
    output: EMPTY,
    rest: options.rest,
    middleware: options.middleware ?? [],
    schemas: { input: undefined, output: undefined },
    calls,
    execute(raw, ctx, origin) {
      calls.push({ raw, origin });
      return Promise.resolve(answer(raw, ctx));
    },
  };
}

/** A protocol-neutral context, as the gRPC package makes one; tracing members only when given. */
function context(extra: Partial<RequestContext> = {}): RequestContext {
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
    setHeader: () => undefined,
    get: (key) => variables.get(key),
    set: (key, value) => variables.set(key, value),
    ...extra,
  };
}

/** Registers a plugin that hands its host out. */
function hostOf(app: Application): PluginHost {
  let host: PluginHost | undefined;
  app.register({ name: 'probe', setup: (h) => (host = h) });
  return host!;
}

describe('isOperation()', () => {
  it('tells a branded operation from look-alikes', () => {
    expect(isOperation(operation('getBook'))).toBe(true);
    const { [OPERATION_BRAND]: _brand, ...lookAlike } = operation('getBook');
    expect(isOperation(lookAlike)).toBe(false);
    expect(isOperation({ ...lookAlike, [OPERATION_BRAND]: 'yes' })).toBe(false);
    expect(isOperation(null)).toBe(false);
    expect(isOperation('getBook')).toBe(false);
  });
});

describe('runOperation()', () => {
  it('runs the middleware in order, then execute with the raw input and origin, and resolves with its result', async () => {
    const order: string[] = [];
    const op = operation('getBook', {
      middleware: [
        async (_ctx, next) => {
          order.push('first:in');
          await next();
          order.push('first:out');
        },
        async (_ctx, next) => {
          order.push('second');
          await next();
        },
      ],
      answer: (raw) => {
        order.push('execute');
        return { got: raw };
      },
    });
    const origin: InputOrigin = () => 'body';
    await expect(runOperation(op, context(), { id: '1' }, origin)).resolves.toEqual({ got: { id: '1' } });
    expect(order).toEqual(['first:in', 'second', 'execute', 'first:out']);
    expect(op.calls).toEqual([{ raw: { id: '1' }, origin }]);
  });

  it('rejects with what a middleware throws, without running execute', async () => {
    const refused = new HTTPError(401, 'Unauthorized');
    const op = operation('getBook', { middleware: [() => Promise.reject(refused)] });
    await expect(runOperation(op, context(), {})).rejects.toBe(refused);
    expect(op.calls).toEqual([]);
  });

  it('is an error when a middleware ends the request without calling next()', async () => {
    const op = operation('getBook', { middleware: [() => undefined] });
    await expect(runOperation(op, context(), {})).rejects.toThrow(
      'Operation "getBook": its middleware ended the request without running the handler',
    );
    expect(op.calls).toEqual([]);
  });

  it('names the operation on the context for tracing and logs', async () => {
    let seen: string | undefined;
    const op = operation('getBook', { answer: (_raw, ctx) => (seen = ctx.get(OPERATION_NAME)) });
    const ctx = context();
    await runOperation(op, ctx, {});
    expect(seen).toBe('getBook');
    expect(ctx.get(OPERATION_NAME)).toBe('getBook');
  });

  it('keeps the GraphQL operation name on a GraphQL request that already has one', async () => {
    const ctx = context({ protocol: 'graphql' });
    ctx.set(OPERATION_NAME, 'BookPage');
    await runOperation(operation('getBook'), ctx, {});
    expect(ctx.get(OPERATION_NAME)).toBe('BookPage');
  });

  it('runs inside a child span named for the operation, ended with the error when it fails', async () => {
    const span = { name: 'span' } as unknown as TraceSpan;
    const started: Array<[string, TraceAttributes | undefined]> = [];
    const ended: Array<[TraceSpan | undefined, unknown]> = [];
    const ctx = context({
      startSpan: (name, attributes) => (started.push([name, attributes]), span),
      endSpan: (s, error) => void ended.push([s, error]),
    });
    await runOperation(operation('getBook'), ctx, {});
    expect(started).toEqual([['operation getBook', { 'fw.operation.name': 'getBook' }]]);
    expect(ended).toEqual([[span, undefined]]);

    const failure = new Error('store down');
    await expect(runOperation(operation('listBooks', { answer: () => Promise.reject(failure) }), ctx, {})).rejects.toBe(failure);
    expect(started[1]).toEqual(['operation listBooks', { 'fw.operation.name': 'listBooks' }]);
    expect(ended[1]).toEqual([span, failure]);
  });

  it('with no middleware and no tracing, names the operation and turns a throw of execute into a rejection', async () => {
    const failure = new Error('thrown');
    const op = { ...operation('getBook'), execute: () => { throw failure; } } as unknown as Operation;
    const ctx = context();
    const pending = runOperation(op, ctx, {});
    expect(ctx.get(OPERATION_NAME)).toBe('getBook');
    await expect(pending).rejects.toBe(failure);
  });

  it('keeps the input and result of operations running at once on one context apart', async () => {
    // GraphQL resolves sibling fields concurrently on the request's one context.
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slow = operation('slow', {
      middleware: [
        async (_ctx, next) => {
          await gate;
          await next();
        },
      ],
      answer: (raw) => ({ slow: raw }),
    });
    const fast = operation('fast', { answer: (raw) => ({ fast: raw }) });
    const ctx = context({ protocol: 'graphql' });
    const first = runOperation(slow, ctx, { n: 1 });
    const second = runOperation(fast, ctx, { n: 2 });
    await expect(second).resolves.toEqual({ fast: { n: 2 } });
    release();
    await expect(first).resolves.toEqual({ slow: { n: 1 } });
  });
});

describe('observeOperations()', () => {
  type Told = [string, boolean, unknown];
  const observer = (told: Told[]) => (op: Operation, _ctx: RequestContext, failed: boolean, error: unknown) => void told.push([op.name, failed, error]);

  it('tells of each call once it has ended, by the name of the definition, whatever name the request gave itself', async () => {
    const told: Told[] = [];
    const ctx = context({ protocol: 'graphql' });
    ctx.set(OPERATION_NAME, 'transfer');
    observeOperations(ctx, observer(told));
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slow = runOperation(operation('getBook', { answer: () => gate.then(() => ({})) }), ctx, {});
    await runOperation(operation('listBooks'), ctx, {});
    // One call ended, the other still runs: only the ended one is told.
    expect(told).toEqual([['listBooks', false, undefined]]);
    release();
    await slow;
    expect(told).toEqual([
      ['listBooks', false, undefined],
      ['getBook', false, undefined],
    ]);
  });

  it('tells a failure with what was thrown, the handler run or not', async () => {
    const told: Told[] = [];
    const ctx = context();
    observeOperations(ctx, observer(told));
    const refused = new HTTPError(401, 'Unauthorized');
    const failure = new Error('store down');
    await expect(runOperation(operation('addBook', { middleware: [() => Promise.reject(refused)] }), ctx, {})).rejects.toBe(refused);
    await expect(runOperation(operation('getBook', { answer: () => Promise.reject(failure) }), ctx, {})).rejects.toBe(failure);
    expect(told).toEqual([
      ['addBook', true, refused],
      ['getBook', true, failure],
    ]);
  });

  it('tells every observer of the request, in order, once each, and ignores one that throws', async () => {
    const first: Told[] = [];
    const second: Told[] = [];
    const ctx = context();
    const once = observer(first);
    observeOperations(ctx, () => {
      throw new Error('a broken observer');
    });
    observeOperations(ctx, once);
    observeOperations(ctx, once);
    observeOperations(ctx, observer(second));
    await expect(runOperation(operation('getBook'), ctx, {})).resolves.toEqual({ echo: {} });
    expect([first, second]).toEqual([[['getBook', false, undefined]], [['getBook', false, undefined]]]);
    expect(() => observeOperations(ctx, 'no' as never)).toThrow('observeOperations expects a function');
  });

  it('keeps requests that share an observer apart: a second observer on one request is not told of the other', async () => {
    const shared: Told[] = [];
    const extra: Told[] = [];
    const common = observer(shared);
    const one = context();
    const other = context();
    observeOperations(one, common);
    observeOperations(other, common);
    observeOperations(one, observer(extra));
    await runOperation(operation('getBook'), other, {});
    await runOperation(operation('listBooks'), one, {});
    expect(shared.map(([name]) => name)).toEqual(['getBook', 'listBooks']);
    expect(extra.map(([name]) => name)).toEqual(['listBooks']);
  });

  it("tells a REST call whose middleware answered the request itself with the status it answered", async () => {
    const app = new Application();
    const told: Told[] = [];
    hostOf(app).onRequest((ctx) => observeOperations(ctx, observer(told)));
    app.operation(operation('getBook', { rest: { method: 'GET', path: '/books' }, middleware: [(ctx) => void (ctx as unknown as { json(v: unknown, s: number): void }).json({ error: true }, 401)] }));
    app.operation(operation('listBooks', { rest: { method: 'GET', path: '/shelf' } }));
    expect((await app.inject('/books')).statusCode).toBe(401);
    expect((await app.inject('/shelf')).statusCode).toBe(200);
    expect(told.map(([name, failed, error]) => [name, failed, (error as HTTPError | undefined)?.statusCode])).toEqual([
      ['getBook', true, 401],
      ['listBooks', false, undefined],
    ]);
  });
});

describe('app.operation()', () => {
  it('serves an operation with a REST binding on its route, op middleware first', async () => {
    const app = new Application();
    const order: string[] = [];
    const op = operation('getBook', {
      rest: { method: 'GET', path: '/books/:id' },
      middleware: [(ctx, next) => (order.push(`mw:${ctx.protocol}`), next())],
      answer: (raw) => (order.push('execute'), { ...(raw as object) }),
    });
    app.operation(op);
    const res = await app.inject('/books/7?lang=en');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ id: '7', lang: 'en' });
    expect(order).toEqual(['mw:http', 'execute']);
    expect(op.calls[0]!.origin!('id')).toBe('params');
    expect(op.calls[0]!.origin!('lang')).toBe('query');
    expect(app.getRoutes().map((r) => [r.method, r.path, r.meta?.operation])).toEqual([['GET', '/books/:id', op]]);
  });

  it('runs the REST route through runOperation: the span, the name, and no result when the middleware ends without next', async () => {
    const app = new Application({ onLog: () => undefined });
    const started: string[] = [];
    app.use((ctx, next) => {
      ctx.startSpan = (name) => (started.push(name), undefined);
      return next();
    });
    let named: string | undefined;
    const op = operation('getBook', {
      rest: { method: 'GET', path: '/books/:id' },
      middleware: [(ctx, next) => (ctx.headers['x-stop'] === undefined ? next() : undefined)],
      answer: (_raw, ctx) => ({ named: (named = ctx.get(OPERATION_NAME)) }),
    });
    app.operation(op);
    expect((await app.inject('/books/1')).json()).toEqual({ named: 'getBook' });
    expect(started).toEqual(['operation getBook']);
    const stopped = await app.inject({ url: '/books/1', headers: { 'x-stop': '1' } });
    expect([stopped.statusCode, op.calls.length]).toEqual([500, 1]);
    expect(named).toBe('getBook');
  });

  it('keeps the answer of a REST middleware that answered itself without calling next (the conventional 401)', async () => {
    const app = new Application({ onLog: () => undefined });
    const op = operation('getBook', {
      rest: { method: 'GET', path: '/books/:id' },
      middleware: [(ctx, next) => (ctx.headers.authorization === undefined && isHttpContext(ctx) ? void ctx.json({ error: 'login first' }, 401) : next())],
    });
    app.operation(op);
    const refused = await app.inject('/books/1');
    expect([refused.statusCode, refused.json(), op.calls.length]).toEqual([401, { error: 'login first' }, 0]);
    expect((await app.inject({ url: '/books/1', headers: { authorization: 'Bearer t' } })).statusCode).toBe(200);
  });

  it("reports the route meta and schemas of the operation's middleware on its route", () => {
    const app = new Application();
    const auth = withMeta((_ctx: RequestContext, next: () => Promise<void>) => next(), { auth: true, tags: ['first'] });
    const tagged = Object.assign(withMeta((_ctx: RequestContext, next: () => Promise<void>) => next(), { tags: ['second'], description: 'Get a book' }), { [ROUTE_SCHEMA]: { query: 'schema' } });
    app.operation(operation('getBook', { rest: { method: 'GET', path: '/books/:id' }, middleware: [auth, tagged] }));
    const [route] = app.getRoutes();
    expect(route!.meta).toMatchObject({ auth: true, tags: ['first'], description: 'Get a book' });
    expect(route!.schema).toEqual({ query: 'schema' });
  });

  it('serves a route without params: the JSON body as the input, an empty object for no body', async () => {
    const app = new Application();
    const op = operation('addBook', { rest: { method: 'POST', path: '/books' }, answer: (raw) => ({ ...(raw as object) }) });
    app.operation(op);
    const res = await app.inject({ method: 'POST', url: '/books', body: { title: 'Dune' } });
    expect(res.json()).toEqual({ title: 'Dune' });
    expect(op.calls[0]!.origin!('title')).toBe('body');
    const empty = await app.inject({ method: 'POST', url: '/books' });
    expect(empty.statusCode).toBe(200);
    expect(op.calls[1]!.raw).toEqual({});
    const list = await app.inject({ method: 'POST', url: '/books', body: [1] });
    expect(list.json()).toEqual({ 0: 1 });
    expect(op.calls[2]!.raw).toEqual([1]);
  });

  it('refuses what is not an operation, and a second operation of the same name', () => {
    const app = new Application();
    expect(() => app.operation({ name: 'getBook' } as unknown as Operation)).toThrow(TypeError);
    app.operation(operation('getBook'));
    expect(() => app.operation(operation('getBook'))).toThrow('An operation named "getBook" is already registered');
  });
});

describe("an operation's REST route and the request body's media type", () => {
  const FORM = 'application/x-www-form-urlencoded';

  function served(rest: Operation['rest'], middleware: Array<Middleware<RequestContext>> = []): { app: Application; op: ReturnType<typeof operation> } {
    const app = new Application();
    const op = operation('addBook', { rest, middleware, answer: (raw) => ({ ...(raw as object) }) });
    app.operation(op);
    return { app, op };
  }

  it('answers 415 to a form body, which a cross-site HTML form can send, before the middleware or the handler run', async () => {
    const seen: string[] = [];
    const { app, op } = served({ method: 'POST', path: '/books' }, [
      async (_ctx, next) => {
        seen.push('middleware');
        await next();
      },
    ]);
    const res = await app.inject({ method: 'POST', url: '/books', headers: { 'content-type': FORM }, body: 'title=Dune' });
    expect(res.statusCode).toBe(415);
    expect(res.json()).toEqual({
      error: true,
      code: 415,
      message: 'POST /books takes a JSON body (Content-Type: application/json), not application/x-www-form-urlencoded',
    });
    expect(seen).toEqual([]);
    expect(op.calls).toEqual([]);
  });

  it('answers 415 to a form content type even with an empty body, and to text or a body without a content type', async () => {
    const { app, op } = served({ method: 'PUT', path: '/books/:id' });
    const emptyForm = await app.inject({ method: 'PUT', url: '/books/1', headers: { 'content-type': FORM, 'content-length': '0' } });
    expect(emptyForm.statusCode).toBe(415);
    const text = await app.inject({ method: 'PUT', url: '/books/1', headers: { 'content-type': 'text/plain' }, body: '{"title":"Dune"}' });
    expect(text.statusCode).toBe(415);
    expect(text.json<{ message: string }>().message).toBe('PUT /books/:id takes a JSON body (Content-Type: application/json), not text/plain');
    // Over a socket: inject gives every body a content type.
    const { port } = await app.listen(0, '127.0.0.1');
    try {
      const untyped = await send(port, { method: 'PUT', path: '/books/1', body: '{"title":"Dune"}' });
      expect(untyped.status).toBe(415);
      expect((JSON.parse(untyped.text) as { message: string }).message).toBe(
        'PUT /books/:id takes a JSON body (Content-Type: application/json), and this one has no Content-Type',
      );
    } finally {
      await app.close();
    }
    expect(op.calls).toEqual([]);
  });

  it('takes JSON (with a charset, or a +json type) and a request with no body and no content type', async () => {
    const { app, op } = served({ method: 'PATCH', path: '/books' });
    const json = await app.inject({ method: 'PATCH', url: '/books', headers: { 'content-type': 'application/json; charset=utf-8' }, body: '{"a":1}' });
    expect(json.json()).toEqual({ a: 1 });
    const plusJson = await app.inject({ method: 'PATCH', url: '/books', headers: { 'content-type': 'application/merge-patch+json' }, body: '{"b":2}' });
    expect(plusJson.json()).toEqual({ b: 2 });
    const bodiless = await app.inject({ method: 'PATCH', url: '/books' });
    expect(bodiless.statusCode).toBe(200);
    expect(op.calls.map((call) => call.raw)).toEqual([{ a: 1 }, { b: 2 }, {}]);
  });

  it('takes a form body when the definition opts in with rest.accepts', async () => {
    const { app, op } = served({ method: 'POST', path: '/books', accepts: ['json', 'form'] });
    const form = await app.inject({ method: 'POST', url: '/books', headers: { 'content-type': FORM }, body: 'title=Dune' });
    expect(form.json()).toEqual({ title: 'Dune' });
    const json = await app.inject({ method: 'POST', url: '/books', body: { title: 'Emma' } });
    expect(json.json()).toEqual({ title: 'Emma' });
    const text = await app.inject({ method: 'POST', url: '/books', headers: { 'content-type': 'text/plain' }, body: 'x' });
    expect(text.json<{ message: string }>().message).toBe(
      'POST /books takes a JSON or form body (Content-Type: application/json or application/x-www-form-urlencoded), not text/plain',
    );
    expect(op.calls).toHaveLength(2);
  });

  it('answers 415 over a socket to a text or form type whose parameters mention JSON, and to JSON in a charset other than UTF-8', async () => {
    const { app, op } = served({ method: 'POST', path: '/books' });
    const { port } = await app.listen(0, '127.0.0.1');
    try {
      for (const type of ['text/plain;application/json', 'text/plain; charset=application/json', `${FORM}; x=application/json`, 'application/json; charset=latin1']) {
        const res = await send(port, { method: 'POST', path: '/books', headers: { 'content-type': type }, body: '{"title":"Dune"}' });
        expect(res.status).toBe(415);
        expect((JSON.parse(res.text) as { code: number }).code).toBe(415);
      }
      const json = await send(port, { method: 'POST', path: '/books', headers: { 'content-type': 'Application/JSON; Charset="UTF-8"' }, body: '{"title":"Dune"}' });
      expect(json.status).toBe(200);
    } finally {
      await app.close();
    }
    expect(op.calls).toHaveLength(1);
  });

  it('lets routes that read the query (GET, DELETE) ignore the content type, as they ignore the body', async () => {
    const { app } = served({ method: 'DELETE', path: '/books/:id' });
    const res = await app.inject({ method: 'DELETE', url: '/books/1?soft=yes', headers: { 'content-type': FORM }, body: 'x=1' });
    expect(res.json()).toEqual({ id: '1', soft: 'yes' });
  });

  it('answers 415 to a multipart body unless the route takes one: a cross-site form can send it too', async () => {
    const { app, op } = served({ method: 'POST', path: '/books' });
    const form = new FormData();
    form.append('title', 'Dune');
    const request = new Request('http://localhost/', { method: 'POST', body: form });
    const res = await app.inject({ method: 'POST', url: '/books', headers: { 'content-type': request.headers.get('content-type')! }, body: Buffer.from(await request.arrayBuffer()) });
    expect(res.statusCode).toBe(415);
    expect(res.json<{ message: string }>().message).toBe('POST /books takes a JSON body (Content-Type: application/json), not multipart/form-data');
    expect(op.calls).toEqual([]);
  });

  it('takes multipart by default for an input with a file field: fields as strings, files as Files, a list field always a list', async () => {
    const app = new Application();
    const file = { kind: 'scalar', scalar: 'file' } as const;
    const input: ObjectShape = {
      kind: 'object',
      name: undefined,
      source: {},
      fields: [
        { name: 'title', type: { kind: 'scalar', scalar: 'string' }, optional: false },
        { name: 'cover', type: file, optional: false },
        { name: 'pages', type: { kind: 'list', of: file }, optional: true },
      ],
    };
    const seen: unknown[] = [];
    const op = { ...operation('upload', { rest: { method: 'POST', path: '/upload', multipart: { fileSize: 100 } } }), input };
    op.execute = async (raw) => {
      const value = raw as { title: string; cover: File; pages: File[] };
      seen.push({ title: value.title, cover: [value.cover instanceof File, value.cover.name, value.cover.type, await value.cover.text()], pages: value.pages.length });
      return {};
    };
    app.operation(op);
    const post = async (form: FormData) => {
      const request = new Request('http://localhost/', { method: 'POST', body: form });
      return app.inject({ method: 'POST', url: '/upload', headers: { 'content-type': request.headers.get('content-type')! }, body: Buffer.from(await request.arrayBuffer()) });
    };
    const form = new FormData();
    form.append('title', 'Dune');
    form.append('cover', new Blob(['png bytes'], { type: 'image/png' }), 'cover.png');
    form.append('pages', new Blob(['p1']), 'p1.txt');
    expect((await post(form)).statusCode).toBe(200);
    expect(seen).toEqual([{ title: 'Dune', cover: [true, 'cover.png', 'image/png', 'png bytes'], pages: 1 }]);
    const json = await app.inject({ method: 'POST', url: '/upload', body: { title: 'Dune' } });
    expect(json.statusCode).toBe(415);
    expect(json.json<{ message: string }>().message).toBe('POST /upload takes a multipart form body (Content-Type: multipart/form-data), not application/json');
    // rest.multipart sets the route's limits.
    const big = new FormData();
    big.append('cover', new Blob(['x'.repeat(101)]), 'big.png');
    const tooBig = await post(big);
    expect([tooBig.statusCode, tooBig.json<{ message: string }>().message]).toEqual([413, 'File "big.png" larger than multipart.fileSize (100 bytes)']);
  });

  it('refuses an accepts list with anything but json, form and multipart when the operation is registered', () => {
    const app = new Application();
    expect(() => app.operation(operation('a', { rest: { method: 'POST', path: '/a', accepts: ['xml' as 'json'] } }))).toThrow(
      'Operation "a": rest.accepts may hold "json", "form" and "multipart", got "xml"',
    );
    expect(() => app.operation(operation('b', { rest: { method: 'POST', path: '/b', accepts: [] } }))).toThrow('Operation "b": rest.accepts');
  });
});

describe('host.operations() and host.onOperation()', () => {
  it('lists the operations in a frozen list that is a new one after each registration', () => {
    const app = new Application();
    const host = hostOf(app);
    const empty = host.operations();
    expect(empty).toEqual([]);
    expect(Object.isFrozen(empty)).toBe(true);
    const first = operation('getBook');
    app.operation(first);
    const one = host.operations();
    expect(one).toEqual([first]);
    expect(one).not.toBe(empty);
    expect(host.operations()).toBe(one);
    expect(Object.isFrozen(one)).toBe(true);
    const second = operation('listBooks');
    app.operation(second);
    expect(host.operations()).toEqual([first, second]);
    expect(host.operations()).not.toBe(one);
  });

  it('shows a hook the operations registered before it and each one registered after', () => {
    const app = new Application();
    const host = hostOf(app);
    const early = operation('getBook');
    app.operation(early);
    const seen: Operation[] = [];
    host.onOperation((op) => void seen.push(op));
    expect(seen).toEqual([early]);
    const late = operation('listBooks');
    app.operation(late);
    expect(seen).toEqual([early, late]);
  });

  it('refuses a registration a hook throws for: not listed, no route', async () => {
    const app = new Application();
    const host = hostOf(app);
    host.onOperation((op) => {
      if (op.name === 'bad') throw new Error('cannot serve "bad"');
    });
    const bad = operation('bad', { rest: { method: 'GET', path: '/bad' } });
    expect(() => app.operation(bad)).toThrow('cannot serve "bad"');
    expect(host.operations()).toEqual([]);
    expect(app.getRoutes()).toEqual([]);
    expect((await app.inject('/bad')).statusCode).toBe(404);
    expect(bad.calls).toEqual([]);
  });

  it('checks the hook type', () => {
    const host = hostOf(new Application());
    expect(() => host.onOperation('nope' as never)).toThrow('onOperation expects a function');
  });
});
