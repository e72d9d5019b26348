import { Readable } from 'node:stream';
import { Application, type ApplicationConfig } from './application.js';
import type { Context } from './context.js';
import type { AnyMiddleware, QueryRecord } from './types.js';

/** An application whose logged errors are collected instead of printed. */
function createApp(config: ApplicationConfig = {}): { app: Application; logged: unknown[] } {
  const logged: unknown[] = [];
  const app = new Application({ onLog: (message, error) => logged.push(error ?? message), ...config });
  return { app, logged };
}

const echoQuery: AnyMiddleware = (ctx) => ctx.json(ctx.query);
const echoBody: AnyMiddleware = (ctx) => ctx.json({ body: ctx.body === undefined ? '<undefined>' : ctx.body });

describe('Context request fields', () => {
  it('exposes method, url, path and lower-case headers', async () => {
    const { app } = createApp();
    app.post('/items/:id', (ctx) =>
      ctx.json({ method: ctx.method, url: ctx.url, path: ctx.path, custom: ctx.headers['x-custom'], protocol: ctx.protocol }),
    );
    const res = await app.inject({ method: 'post', url: '/items/1?a=b', headers: { 'X-Custom': 'yes' } });
    expect(res.json()).toEqual({ method: 'POST', url: '/items/1?a=b', path: '/items/1', custom: 'yes', protocol: 'http' });
  });

  it('types body, query and params through its generic parameters', async () => {
    type Body = { name: string };
    type Query = { page: string };
    type Params = { id: string };
    const { app } = createApp();
    app.post('/typed/:id', (ctx: Context<Body, Query, Params>) => {
      const name: string = ctx.body.name;
      const page: string = ctx.query.page;
      const id: string = ctx.params.id;
      ctx.json({ name, page, id });
    });
    const res = await app.inject({ method: 'POST', url: '/typed/9?page=2', body: { name: 'n' } });
    expect(res.json()).toEqual({ name: 'n', page: '2', id: '9' });
  });
});

describe('Context.query', () => {
  it('parses the query string into a null-prototype object', async () => {
    const { app } = createApp();
    let proto: unknown = 'unset';
    app.get('/q', (ctx) => {
      proto = Object.getPrototypeOf(ctx.query);
      ctx.json(ctx.query);
    });
    expect((await app.inject('/q?a=1&b=two&empty=&flag')).json()).toEqual({ a: '1', b: 'two', empty: '', flag: '' });
    expect(proto).toBeNull();
    expect((await app.inject('/q')).json()).toEqual({});
  });

  it('turns repeated keys into arrays', async () => {
    const { app } = createApp();
    app.get('/q', echoQuery);
    expect((await app.inject('/q?tag=a&tag=b&tag=c&one=1')).json()).toEqual({ tag: ['a', 'b', 'c'], one: '1' });
  });

  it('decodes + as a space and percent-escapes', async () => {
    const { app } = createApp();
    app.get('/q', echoQuery);
    expect((await app.inject('/q?name=John+Smith&plus=%2B&utf=caf%C3%A9&key+with+space=x')).json()).toEqual({
      name: 'John Smith',
      plus: '+',
      utf: 'café',
      'key with space': 'x',
    });
  });

  it('keeps __proto__ and constructor as plain keys', async () => {
    const { app } = createApp();
    app.get('/q', (ctx) => {
      const q = ctx.query as Record<string, unknown>;
      ctx.json({ proto: q['__proto__'], ctor: q['constructor'], polluted: ({} as Record<string, unknown>)['x'] ?? null });
    });
    expect((await app.inject('/q?__proto__[x]=1&__proto__=a&constructor=b')).json()).toEqual({ proto: 'a', ctor: 'b', polluted: null });
  });

  it('is parsed only when read, so a route that ignores it ignores bad encoding', async () => {
    const { app } = createApp();
    app.get('/ignores', (ctx) => ctx.text('fine'));
    app.get('/reads', echoQuery);
    expect((await app.inject('/ignores?bad=%E0%A4%A')).statusCode).toBe(200);
    const res = await app.inject('/reads?bad=%E0%A4%A');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: true, message: 'Invalid percent-encoding in query string', code: 400 });
  });

  it('answers 400 when the query has more keys than maxQueryKeys', async () => {
    const { app } = createApp({ maxQueryKeys: 3 });
    app.get('/q', echoQuery);
    expect((await app.inject('/q?a=1&b=2&c=3')).statusCode).toBe(200);
    const res = await app.inject('/q?a=1&b=2&c=3&d=4');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: true, message: 'Too many parameters in query string (limit 3)', code: 400 });
  });

  it('can be replaced', async () => {
    const { app } = createApp();
    app.get('/q', (ctx) => {
      ctx.query = { replaced: 'yes' };
      ctx.json(ctx.query);
    });
    expect((await app.inject('/q?a=1')).json()).toEqual({ replaced: 'yes' });
  });
});

describe('Context.body', () => {
  it('parses JSON, including +json media types', async () => {
    const { app } = createApp();
    app.post('/b', echoBody);
    const json = await app.inject({ method: 'POST', url: '/b', body: { a: [1, 2], b: { c: null } } });
    expect(json.json()).toEqual({ body: { a: [1, 2], b: { c: null } } });
    const vendor = await app.inject({ method: 'POST', url: '/b', headers: { 'content-type': 'application/vnd.api+json; charset=utf-8' }, body: '{"x":1}' });
    expect(vendor.json()).toEqual({ body: { x: 1 } });
    const scalar = await app.inject({ method: 'POST', url: '/b', headers: { 'content-type': 'application/json' }, body: '42' });
    expect(scalar.json()).toEqual({ body: 42 });
  });

  it('parses URL-encoded forms with repeated keys', async () => {
    const { app } = createApp();
    app.post('/b', echoBody);
    const res = await app.inject({
      method: 'POST',
      url: '/b',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'name=Jane+Doe&tag=a&tag=b&city=K%C3%B6ln',
    });
    expect(res.json()).toEqual({ body: { name: 'Jane Doe', tag: ['a', 'b'], city: 'Köln' } });
  });

  it('reads text/* as a string', async () => {
    const { app } = createApp();
    app.put('/b', echoBody);
    const res = await app.inject({ method: 'PUT', url: '/b', headers: { 'content-type': 'text/csv' }, body: 'a,b\n1,2 ✓' });
    expect(res.json()).toEqual({ body: 'a,b\n1,2 ✓' });
  });

  it('leaves the body undefined and the stream unread for other content types', async () => {
    const { app } = createApp();
    app.post('/upload', async (ctx) => {
      const before = ctx.body;
      const chunks: Buffer[] = [];
      for await (const chunk of ctx.req) chunks.push(chunk as Buffer);
      ctx.json({ before: before === undefined, raw: Buffer.concat(chunks).toString('hex') });
    });
    const res = await app.inject({ method: 'POST', url: '/upload', headers: { 'content-type': 'application/octet-stream' }, body: Buffer.from([1, 2, 255]) });
    expect(res.json()).toEqual({ before: true, raw: '0102ff' });
    const none = await app.inject({ method: 'POST', url: '/upload', headers: { 'content-type': undefined }, body: Buffer.from('x') });
    expect(none.statusCode).toBe(200);
  });

  it('is undefined for requests without a body and for an empty JSON body', async () => {
    const { app } = createApp();
    app.all('/b', echoBody);
    expect((await app.inject('/b')).json()).toEqual({ body: '<undefined>' });
    const empty = await app.inject({ method: 'POST', url: '/b', headers: { 'content-type': 'application/json' }, body: '' });
    expect(empty.json()).toEqual({ body: '<undefined>' });
  });

  it('answers 400 for malformed JSON without reaching the handler', async () => {
    const { app } = createApp();
    const handler = jest.fn(echoBody);
    app.post('/b', handler);
    const res = await app.inject({ method: 'POST', url: '/b', headers: { 'content-type': 'application/json' }, body: '{"a":' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: true, message: 'Malformed JSON in request body', code: 400 });
    expect(handler).not.toHaveBeenCalled();
  });

  it('answers 400 for malformed URL-encoding and for too many form fields', async () => {
    const { app } = createApp({ maxQueryKeys: 2 });
    app.post('/b', echoBody);
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const bad = await app.inject({ method: 'POST', url: '/b', headers: form, body: 'a=%zz' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json<{ message: string }>().message).toBe('Invalid percent-encoding in request body');
    const many = await app.inject({ method: 'POST', url: '/b', headers: form, body: 'a=1&b=2&c=3' });
    expect(many.statusCode).toBe(400);
  });

  it('refuses JSON bodies that carry __proto__ or constructor.prototype keys', async () => {
    const { app } = createApp();
    app.post('/b', echoBody);
    for (const body of ['{"__proto__":{"admin":true}}', '{"a":[{"constructor":{"prototype":{"x":1}}}]}']) {
      const res = await app.inject({ method: 'POST', url: '/b', headers: { 'content-type': 'application/json' }, body });
      expect(res.statusCode).toBe(400);
    }
    const escaped = await app.inject({ method: 'POST', url: '/b', headers: { 'content-type': 'application/json' }, body: '{"\\u005f_proto__":{"admin":true}}' });
    expect(escaped.statusCode).toBe(400);
    const harmless = await app.inject({ method: 'POST', url: '/b', body: { constructor: 'fine', text: '"__proto__": no' } });
    expect(harmless.json()).toEqual({ body: { constructor: 'fine', text: '"__proto__": no' } });
  });

  it('checks a deeply nested JSON body for forbidden keys without a server error when maxJsonDepth allows it', async () => {
    const { app } = createApp({ maxJsonDepth: 200_000 });
    app.post('/b', (ctx) => ctx.json({ ok: Array.isArray(ctx.body) }));
    const depth = 100_000;
    // The escaped string makes the body take the full walk for forbidden keys.
    const nested = (inner: string): string => `${'['.repeat(depth)}${inner}${']'.repeat(depth)}`;
    const json = { 'content-type': 'application/json' };
    const fine = await app.inject({ method: 'POST', url: '/b', headers: json, body: nested('"\\u0041"') });
    expect(fine.statusCode).toBe(200);
    expect(fine.json()).toEqual({ ok: true });
    const bad = await app.inject({ method: 'POST', url: '/b', headers: json, body: nested('{"\\u005f_proto__":1}') });
    expect(bad.statusCode).toBe(400);
  });

  it('answers 413 for a body over bodyLimit', async () => {
    const { app } = createApp({ bodyLimit: 10 });
    app.post('/b', echoBody);
    const big = await app.inject({ method: 'POST', url: '/b', body: { text: 'more than ten bytes' } });
    expect(big.statusCode).toBe(413);
    expect(big.json()).toEqual({ error: true, message: 'Request body is larger than 10 bytes', code: 413 });
    const fits = await app.inject({ method: 'POST', url: '/b', body: { a: 1 } });
    expect(fits.statusCode).toBe(200);
  });

  it('is read before route middleware, and global middleware can read it early with parseBody()', async () => {
    const { app } = createApp();
    const seen: unknown[] = [];
    app.use(async (ctx, next) => {
      seen.push(ctx.body);
      seen.push(await ctx.parseBody());
      await next();
    });
    app.post('/b', (ctx, next) => {
      seen.push(ctx.body);
      return next();
    }, echoBody);
    const res = await app.inject({ method: 'POST', url: '/b', body: { n: 1 } });
    expect(res.json()).toEqual({ body: { n: 1 } });
    expect(seen).toEqual([undefined, { n: 1 }, { n: 1 }]);
  });

  it('stays undefined, without waiting, when middleware already consumed the raw stream', async () => {
    const { app } = createApp();
    app.use(async (ctx, next) => {
      const chunks: Buffer[] = [];
      for await (const chunk of ctx.req) chunks.push(chunk as Buffer);
      ctx.state['raw'] = Buffer.concat(chunks).toString();
      await next();
    });
    app.post('/hook', (ctx) => ctx.json({ raw: ctx.state['raw'], body: ctx.body ?? null }));
    const res = await app.inject({ method: 'POST', url: '/hook', body: { a: 1 } });
    expect(res.json()).toEqual({ raw: '{"a":1}', body: null });
  });

  it('can be replaced by middleware', async () => {
    const { app } = createApp();
    app.post('/b', (ctx, next) => {
      ctx.body = { replaced: true };
      return next();
    }, echoBody);
    expect((await app.inject({ method: 'POST', url: '/b', body: { n: 1 } })).json()).toEqual({ body: { replaced: true } });
  });
});

describe('Context response methods', () => {
  it('sends JSON with status 200, a JSON content type and the byte Content-Length', async () => {
    const { app } = createApp();
    app.get('/j', (ctx) => ctx.json({ word: 'größe ✓' }));
    const res = await app.inject('/j');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['content-length']).toBe(String(Buffer.byteLength('{"word":"größe ✓"}')));
    expect(res.json()).toEqual({ word: 'größe ✓' });
  });

  it('takes the status as the second argument of json and text', async () => {
    const { app } = createApp();
    app.post('/j', (ctx) => ctx.json({ created: true }, 201));
    app.post('/t', (ctx) => ctx.text('accepted', 202));
    expect((await app.inject({ method: 'POST', url: '/j' })).statusCode).toBe(201);
    expect((await app.inject({ method: 'POST', url: '/t' })).statusCode).toBe(202);
  });

  it('chains status() into json(): ctx.status(201).json(x) answers 201', async () => {
    const { app } = createApp();
    app.post('/j', (ctx) => ctx.status(201).json({ id: 1 }));
    const res = await app.inject({ method: 'POST', url: '/j' });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({ id: 1 });
  });

  it('sends JSON null for undefined data', async () => {
    const { app } = createApp();
    app.get('/j', (ctx) => ctx.json(undefined));
    expect((await app.inject('/j')).body).toBe('null');
  });

  it('sends text as text/plain with its byte length', async () => {
    const { app } = createApp();
    app.get('/t', (ctx) => ctx.text('héllo'));
    const res = await app.inject('/t');
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(res.headers['content-length']).toBe('6');
    expect(res.body).toBe('héllo');
  });

  it('sends a Buffer or string as it is with send()', async () => {
    const { app } = createApp();
    app.get('/s', (ctx) => ctx.setHeader('content-type', 'image/png').send(Buffer.from([137, 80, 78, 71]), 200));
    const res = await app.inject('/s');
    expect(res.headers['content-type']).toBe('image/png');
    expect(res.rawBody).toEqual(Buffer.from([137, 80, 78, 71]));
  });

  it('keeps a content type the handler set, and uses the last json/text call’s own type', async () => {
    const { app } = createApp();
    app.get('/problem', (ctx) => ctx.setHeader('Content-Type', 'application/problem+json').json({ title: 'x' }, 422));
    app.get('/changed-mind', (ctx) => {
      ctx.text('first');
      ctx.json({ second: true });
    });
    expect((await app.inject('/problem')).headers['content-type']).toBe('application/problem+json');
    const changed = await app.inject('/changed-mind');
    expect(changed.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(changed.json()).toEqual({ second: true });
  });

  it('sends no body, Content-Type or Content-Length with 204', async () => {
    const { app } = createApp();
    app.delete('/x', (ctx) => ctx.status(204));
    app.delete('/y', (ctx) => ctx.status(204).json({ ignored: true }));
    for (const url of ['/x', '/y']) {
      const res = await app.inject({ method: 'DELETE', url });
      expect(res.statusCode).toBe(204);
      expect(res.body).toBe('');
      expect(res.headers['content-type']).toBeUndefined();
      expect(res.headers['content-length']).toBeUndefined();
    }
  });

  it('sends an empty body for a status without data', async () => {
    const { app } = createApp();
    app.post('/accepted', (ctx) => ctx.status(202));
    const res = await app.inject({ method: 'POST', url: '/accepted' });
    expect(res.statusCode).toBe(202);
    expect(res.body).toBe('');
    expect(res.headers['content-length']).toBe('0');
  });

  it('rejects an invalid status code', async () => {
    const { app } = createApp();
    app.get('/bad', (ctx) => ctx.status(99));
    const res = await app.inject('/bad');
    expect(res.statusCode).toBe(500);
  });

  it('sets headers with a chainable setHeader', async () => {
    const { app } = createApp();
    app.get('/h', (ctx) => ctx.setHeader('X-One', '1').setHeader('x-many', ['a', 'b']).setHeader('x-num', 3).json({}));
    const res = await app.inject('/h');
    expect(res.headers['x-one']).toBe('1');
    expect(res.headers['x-many']).toEqual(['a', 'b']);
    expect(res.headers['x-num']).toBe('3');
  });

  it('sends status and headers that middleware changes after `await next()`', async () => {
    const { app } = createApp();
    app.use(async (ctx, next) => {
      await next();
      ctx.setHeader('x-after', `saw ${ctx.statusCode}`);
      if (ctx.statusCode === 200) ctx.status(203);
    });
    app.get('/x', (ctx) => ctx.json({ x: 1 }));
    const res = await app.inject('/x');
    expect(res.statusCode).toBe(203);
    expect(res.headers['x-after']).toBe('saw 200');
    expect(res.json()).toEqual({ x: 1 });
  });

  it('lets middleware replace the body after `await next()`', async () => {
    const { app } = createApp();
    app.use(async (ctx, next) => {
      await next();
      ctx.json({ wrapped: true });
    });
    app.get('/x', (ctx) => ctx.text('inner'));
    const res = await app.inject('/x');
    expect(res.json()).toEqual({ wrapped: true });
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
  });

  it('answers 404 with the standard body when the matched handler answers nothing', async () => {
    const { app } = createApp();
    app.get('/silent', () => undefined);
    const res = await app.inject('/silent');
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: true, message: 'Not Found', code: 404 });
  });

  it('answers the same JSON 404 for a handler that answers nothing, with or without middleware around it', async () => {
    const { app } = createApp();
    const typed = (ctx: Context): void => void ctx.setHeader('content-type', 'text/html');
    app.get('/bare', typed);
    app.get('/behind', async (_ctx, next) => next(), typed);
    const wrapped = createApp().app;
    wrapped.use(async (_ctx, next) => next());
    wrapped.get('/bare', typed);
    for (const [on, url] of [[app, '/bare'], [app, '/behind'], [wrapped, '/bare']] as const) {
      const res = await on.inject(url);
      expect([res.statusCode, res.headers['content-type'], res.json()]).toEqual([404, 'application/json; charset=utf-8', { error: true, message: 'Not Found', code: 404 }]);
    }
  });

  it('reports statusCode and responded as the response takes shape', async () => {
    const { app } = createApp();
    const seen: Array<[number, boolean]> = [];
    app.get('/x', (ctx) => {
      seen.push([ctx.statusCode, ctx.responded]);
      ctx.status(201);
      seen.push([ctx.statusCode, ctx.responded]);
      ctx.json({});
      seen.push([ctx.statusCode, ctx.responded]);
    });
    app.get('/y', (ctx) => {
      ctx.json({});
      seen.push([ctx.statusCode, ctx.responded]);
    });
    await app.inject('/x');
    await app.inject('/y');
    expect(seen).toEqual([[0, false], [201, true], [201, true], [200, true]]);
  });
});

describe('Context and the raw response', () => {
  it('does not touch a response the handler wrote with writeHead/write/end', async () => {
    const { app, logged } = createApp();
    app.use(async (ctx, next) => {
      await next();
      ctx.setHeader('x-late', 'ignored');
    });
    app.get('/raw', (ctx) => {
      ctx.res.writeHead(201, { 'content-type': 'text/x-raw' });
      ctx.res.write('part1 ');
      ctx.res.end('part2');
    });
    const res = await app.inject('/raw');
    expect(res.statusCode).toBe(201);
    expect(res.headers['content-type']).toBe('text/x-raw');
    expect(res.headers['x-late']).toBeUndefined();
    expect(res.body).toBe('part1 part2');
    expect(logged).toEqual([]);
  });

  it('does not break a stream piped into ctx.res', async () => {
    const { app, logged } = createApp();
    app.use(async (ctx, next) => {
      await next();
      ctx.setHeader('x-after-pipe', 'yes');
    });
    app.get('/pipe', (ctx) => {
      ctx.res.setHeader('content-type', 'text/plain');
      Readable.from(['a', 'b', 'c']).pipe(ctx.res);
    });
    app.get('/pipe-later', (ctx) => {
      ctx.setHeader('content-type', 'text/plain');
      const stream = new Readable({ read() {} });
      stream.pipe(ctx.res);
      setTimeout(() => {
        stream.push('late ');
        stream.push('data');
        stream.push(null);
      }, 20);
    });
    const res = await app.inject('/pipe');
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('abc');
    const later = await app.inject('/pipe-later');
    expect(later.statusCode).toBe(200);
    expect(later.body).toBe('late data');
    expect(logged).toEqual([]);
  });

  it('ignores a second response after the raw response was sent, without logging an error', async () => {
    const { app, logged } = createApp();
    app.get('/twice', (ctx) => {
      ctx.res.end('first');
      ctx.json({ second: true });
      ctx.text('third', 500);
      ctx.setHeader('x-too-late', '1');
    });
    const res = await app.inject('/twice');
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('first');
    expect(logged).toEqual([]);
  });

  it('ignores a response sent after the framework already answered', async () => {
    const { app, logged } = createApp();
    let late: Promise<void> = Promise.resolve();
    app.get('/late', (ctx) => {
      ctx.json({ first: true });
      late = new Promise((resolve) =>
        setTimeout(() => {
          ctx.json({ late: true });
          ctx.setHeader('x-late', '1');
          resolve();
        }, 5),
      );
    });
    const res = await app.inject('/late');
    await late;
    expect(res.json()).toEqual({ first: true });
    expect(logged).toEqual([]);
  });
});

describe('Context.state and Context.user', () => {
  it('shares state and user between middleware and handler within one request only', async () => {
    const { app } = createApp();
    app.use(async (ctx, next) => {
      ctx.state['requestId'] = `r-${(ctx.query as QueryRecord)['n'] as string}`;
      ctx.user = { sub: 'u1' };
      await next();
    });
    app.get('/s', (ctx) => ctx.json({ state: ctx.state, user: ctx.user }));
    expect((await app.inject('/s?n=1')).json()).toEqual({ state: { requestId: 'r-1' }, user: { sub: 'u1' } });
    expect((await app.inject('/s?n=2')).json()).toEqual({ state: { requestId: 'r-2' }, user: { sub: 'u1' } });
  });

  it('starts every request with empty state and no user', async () => {
    const { app } = createApp();
    app.get('/s', (ctx) => ctx.json({ state: ctx.state, hasUser: ctx.user !== undefined }));
    expect((await app.inject('/s')).json()).toEqual({ state: {}, hasUser: false });
  });
});

describe('Context.ip', () => {
  async function ipFor(config: ApplicationConfig, forwarded: string | undefined, remoteAddress = '10.0.0.1'): Promise<string> {
    const { app } = createApp(config);
    app.get('/ip', (ctx) => ctx.text(ctx.ip));
    const res = await app.inject({ url: '/ip', remoteAddress, headers: { 'x-forwarded-for': forwarded } });
    return res.body;
  }

  it('is the socket address when trustProxy is false (the default)', async () => {
    expect(await ipFor({}, '1.1.1.1')).toBe('10.0.0.1');
    expect(await ipFor({ trustProxy: false }, '1.1.1.1, 2.2.2.2')).toBe('10.0.0.1');
  });

  it('is the client end of X-Forwarded-For when trustProxy is true', async () => {
    expect(await ipFor({ trustProxy: true }, '1.1.1.1, 2.2.2.2')).toBe('1.1.1.1');
    expect(await ipFor({ trustProxy: true }, undefined)).toBe('10.0.0.1');
  });

  it('believes that many proxy hops when trustProxy is a number', async () => {
    expect(await ipFor({ trustProxy: 1 }, '1.1.1.1, 2.2.2.2, 3.3.3.3')).toBe('3.3.3.3');
    expect(await ipFor({ trustProxy: 2 }, '1.1.1.1, 2.2.2.2, 3.3.3.3')).toBe('2.2.2.2');
    expect(await ipFor({ trustProxy: 0 }, '1.1.1.1')).toBe('10.0.0.1');
    expect(await ipFor({ trustProxy: 9 }, '1.1.1.1, 2.2.2.2')).toBe('1.1.1.1');
  });

  it('skips trusted proxy addresses from the right when trustProxy is a list', async () => {
    const trustProxy = ['10.0.0.1', '3.3.3.3'];
    expect(await ipFor({ trustProxy }, '1.1.1.1, 2.2.2.2, 3.3.3.3')).toBe('2.2.2.2');
    expect(await ipFor({ trustProxy }, '1.1.1.1')).toBe('1.1.1.1');
    // A request that does not come through a trusted proxy keeps its socket address.
    expect(await ipFor({ trustProxy }, '1.1.1.1', '192.168.1.9')).toBe('192.168.1.9');
    // Everything trusted: the left-most address is the best guess.
    expect(await ipFor({ trustProxy }, '3.3.3.3')).toBe('3.3.3.3');
  });
});

describe('Context.secure', () => {
  async function secureFor(config: ApplicationConfig, headers: Record<string, string | undefined>, remoteAddress = '10.0.0.1'): Promise<boolean> {
    const { app } = createApp(config);
    app.get('/s', (ctx) => ctx.json(ctx.secure));
    return (await app.inject({ url: '/s', remoteAddress, headers })).json<boolean>();
  }

  it('is false for a plain socket, and X-Forwarded-Proto is ignored without trustProxy', async () => {
    expect(await secureFor({}, {})).toBe(false);
    expect(await secureFor({}, { 'x-forwarded-proto': 'https' })).toBe(false);
    expect(await secureFor({ trustProxy: 0 }, { 'x-forwarded-proto': 'https' })).toBe(false);
  });

  it('believes X-Forwarded-Proto from trusted proxies, the front-most one of them deciding', async () => {
    expect(await secureFor({ trustProxy: true }, { 'x-forwarded-proto': 'https' })).toBe(true);
    expect(await secureFor({ trustProxy: true }, { 'x-forwarded-proto': 'HTTPS' })).toBe(true);
    expect(await secureFor({ trustProxy: true }, { 'x-forwarded-proto': 'http' })).toBe(false);
    expect(await secureFor({ trustProxy: 1 }, { 'x-forwarded-proto': 'https' })).toBe(true);
    // A value the client sent ahead of the one trusted proxy is not read.
    expect(await secureFor({ trustProxy: 1 }, { 'x-forwarded-proto': 'https, http' })).toBe(false);
    expect(await secureFor({ trustProxy: 1 }, { 'x-forwarded-proto': 'http, https' })).toBe(true);
    // Two trusted proxies: the front one ended TLS, the inner one appended what it saw.
    expect(await secureFor({ trustProxy: 2 }, { 'x-forwarded-proto': 'https, http' })).toBe(true);
    expect(await secureFor({ trustProxy: 1 }, { 'x-forwarded-proto': ' , ' })).toBe(false);
  });

  it('believes X-Forwarded-Proto only from listed proxy addresses when trustProxy is a list', async () => {
    const trustProxy = ['10.0.0.1', '10.0.0.2'];
    expect(await secureFor({ trustProxy }, { 'x-forwarded-proto': 'https' })).toBe(true);
    expect(await secureFor({ trustProxy }, { 'x-forwarded-proto': 'https' }, '192.168.1.9')).toBe(false);
    expect(await secureFor({ trustProxy }, { 'x-forwarded-proto': 'https, http', 'x-forwarded-for': '1.1.1.1, 10.0.0.2' })).toBe(true);
    expect(await secureFor({ trustProxy }, { 'x-forwarded-proto': 'https, http', 'x-forwarded-for': '1.1.1.1' })).toBe(false);
  });
});

describe('Context.responseBody', () => {
  it('is the recorded body after await next(): the JSON text, the text, the bytes as sent', async () => {
    const { app } = createApp();
    const seen: unknown[] = [];
    app.use(async (ctx, next) => {
      await next();
      seen.push(ctx.responseBody);
    });
    app.get('/json', (ctx) => ctx.json({ a: 1 }));
    app.get('/text', (ctx) => ctx.text('hi'));
    const bytes = Buffer.from([1, 2, 3]);
    app.get('/bytes', (ctx) => ctx.send(bytes));
    app.get('/none', (ctx) => ctx.status(204));
    for (const url of ['/json', '/text', '/bytes', '/none']) await app.inject(url);
    expect(seen).toEqual(['{"a":1}', 'hi', bytes, undefined]);
    expect(seen[2]).toBe(bytes);
  });

  it('is undefined when the handler took over the raw response (a piped stream, server-sent events)', async () => {
    const { app } = createApp();
    const seen: unknown[] = [];
    app.use(async (ctx, next) => {
      await next();
      seen.push(ctx.responseBody);
    });
    app.get('/piped', (ctx) => {
      ctx.text('recorded first');
      Readable.from(['streamed']).pipe(ctx.res);
    });
    app.get('/events', (ctx) => ctx.sse((async function* () {
      yield 1;
    })()));
    expect((await app.inject('/piped')).body).toBe('streamed');
    await app.inject('/events');
    expect(seen).toEqual([undefined, undefined]);
  });
});
