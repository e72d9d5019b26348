import { hostOf } from './host.js';
import type { Application} from '../src/index.js';
import { HTTPError, Router, type ErrorHandler } from '../src/index.js';
import { errorOf, exchange, fetchRaw, start, type Started } from './hostile/support.js';

// HTTP conformance, each case through a real socket.

const servers: Started[] = [];
afterAll(async () => {
  for (const s of servers) await s.app.close();
});

async function serve(routes: (app: Application) => void, config: ConstructorParameters<typeof Application>[0] = {}): Promise<Started> {
  const server = await start(config, routes);
  servers.push(server);
  return server;
}

const raw = (method: string, target: string, extra = ''): string => `${method} ${target} HTTP/1.1\r\nHost: t\r\n${extra}\r\n`;

describe('answers given by global middleware after next() when no route answered', () => {
  it('sends ctx.json() with 200, not the 404 of the missing route', async () => {
    const { port } = await serve((app) => {
      app.use(async (ctx, next) => {
        await next();
        ctx.json({ ok: 1 });
      });
    });
    const res = await fetchRaw(port, '/unknown');
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text)).toEqual({ ok: 1 });
  });

  it('sends ctx.text() with 200 and still sees 404 before answering', async () => {
    const seen: number[] = [];
    const { port } = await serve((app) => {
      app.use(async (ctx, next) => {
        await next();
        seen.push(ctx.statusCode, ctx.res.statusCode);
        ctx.text('spa shell');
        seen.push(ctx.statusCode);
      });
      app.get('/silent', () => undefined);
    });
    expect(await fetchRaw(port, '/unknown')).toMatchObject({ status: 200, text: 'spa shell' });
    expect(await fetchRaw(port, '/silent')).toMatchObject({ status: 200, text: 'spa shell' });
    expect(seen).toEqual([404, 404, 200, 404, 404, 200]);
  });

  it('keeps a status the middleware sets itself, and the 404 when it only adds headers', async () => {
    const { port } = await serve((app) => {
      app.use(async (ctx, next) => {
        await next();
        if (ctx.path === '/gone') ctx.status(410).json({ gone: true });
        else ctx.setHeader('x-seen', '1');
      });
    });
    expect((await fetchRaw(port, '/gone')).status).toBe(410);
    const plain = await fetchRaw(port, '/other');
    expect(plain.status).toBe(404);
    expect(plain.headers['x-seen']).toBe('1');
    expect(errorOf(plain.text)).toEqual({ error: true, message: 'Not Found', code: 404 });
  });
});

describe('the status route middleware reads after next()', () => {
  it('is the 404 that will be sent when the route handler answers nothing, sync or async', async () => {
    const seen: number[] = [];
    const { port } = await serve((app) => {
      const record = async (ctx: { statusCode: number }, next: () => Promise<void>): Promise<void> => {
        await next();
        seen.push(ctx.statusCode);
      };
      app.get('/silent', record, () => undefined);
      app.get('/silent-async', record, async () => undefined);
      app.get('/answers', record, (ctx) => ctx.json({ ok: true }, 201));
    });
    expect((await fetchRaw(port, '/silent')).status).toBe(404);
    expect((await fetchRaw(port, '/silent-async')).status).toBe(404);
    expect((await fetchRaw(port, '/answers')).status).toBe(201);
    expect(seen).toEqual([404, 404, 201]);
  });

  it('lets route middleware answer after next() with 200 when the handler answered nothing', async () => {
    const { port } = await serve((app) => {
      app.get('/late', async (ctx, next) => {
        await next();
        ctx.json({ late: true });
      }, () => undefined);
    });
    const res = await fetchRaw(port, '/late');
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text)).toEqual({ late: true });
  });
});

describe('the status set through the context on the raw response', () => {
  it('sends the status of ctx.status() when the handler ends ctx.res itself', async () => {
    const { port } = await serve((app) => {
      app.get('/no-content', (ctx) => {
        ctx.status(204);
        ctx.res.end();
      });
      app.get('/created', (ctx) => {
        ctx.status(201).res.end('made');
      });
      app.head('/missing', (ctx) => {
        ctx.status(404).res.end();
      });
    });
    expect((await fetchRaw(port, '/no-content')).status).toBe(204);
    expect(await fetchRaw(port, '/created')).toMatchObject({ status: 201, text: 'made' });
    expect((await fetchRaw(port, '/missing', { method: 'HEAD' })).status).toBe(404);
  });

  it('lets middleware read the status from ctx.res.statusCode after next()', async () => {
    const seen: Array<[string, number]> = [];
    const { port } = await serve((app) => {
      app.use(async (ctx, next) => {
        await next();
        seen.push([ctx.path, ctx.res.statusCode]);
      });
      app.post('/made', (ctx) => ctx.json({ id: 1 }, 201));
      app.get('/gone', (ctx) => ctx.status(410).json({ gone: true }));
      app.get('/fine', (ctx) => ctx.json({ ok: true }));
    });
    expect((await fetchRaw(port, '/made', { method: 'POST' })).status).toBe(201);
    expect((await fetchRaw(port, '/gone')).status).toBe(410);
    expect((await fetchRaw(port, '/fine')).status).toBe(200);
    expect((await fetchRaw(port, '/nowhere')).status).toBe(404);
    expect(seen).toEqual([['/made', 201], ['/gone', 410], ['/fine', 200], ['/nowhere', 404]]);
  });
});

describe('absolute-form request targets', () => {
  it('routes GET http://host:port/path by its path and query', async () => {
    const { port } = await serve((app) => {
      const api = new Router({ prefix: '/api/v2' });
      api.get('/books/:id', (ctx) => ctx.json({ id: ctx.params.id, path: ctx.path, url: ctx.url, q: ctx.query['q'] ?? null }));
      app.use(api);
    });
    const res = await exchange(port, raw('GET', `http://127.0.0.1:${port}/api/v2/books/b1?q=x`));
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toEqual({ id: 'b1', path: '/api/v2/books/b1', url: '/api/v2/books/b1?q=x', q: 'x' });
    const upper = await exchange(port, raw('GET', `HTTPS://example.com/api/v2/books/b2`));
    expect(upper.status).toBe(200);
    expect(JSON.parse(upper.body)).toMatchObject({ id: 'b2', path: '/api/v2/books/b2' });
  });

  it('treats an absolute target without a path as the root, and other schemes as paths', async () => {
    const { port } = await serve((app) => {
      app.get('/', (ctx) => ctx.json({ root: true, q: ctx.query['a'] ?? null }));
    });
    expect(JSON.parse((await exchange(port, raw('GET', 'http://example.com'))).body)).toEqual({ root: true, q: null });
    expect(JSON.parse((await exchange(port, raw('GET', 'http://example.com?a=1'))).body)).toEqual({ root: true, q: '1' });
    expect((await exchange(port, raw('GET', 'ftp://example.com/'))).status).toBe(404);
  });
});

describe('405 Method Not Allowed and OPTIONS on known paths', () => {
  let server: Started;
  const errors: HTTPError[] = [];

  beforeAll(async () => {
    server = await serve((app) => {
      app.use(async (_ctx, next) => {
        try {
          await next();
        } catch (err) {
          errors.push(err as HTTPError);
          throw err;
        }
      });
      const books = new Router({ prefix: '/books' });
      books.get('/:id', (ctx) => ctx.json({ id: ctx.params.id }));
      books.put('/special', (ctx) => ctx.text('put'));
      app.use(books);
      app.post('/orders', (ctx) => ctx.text('made'));
      app.delete('/orders', (ctx) => ctx.text('deleted'));
      app.options('/custom', (ctx) => ctx.status(200).text('mine'));
      app.get('/custom', (ctx) => ctx.text('x'));
      hostOf(app).claimPath('/claimed', (ctx) => {
        if (ctx.method === 'GET') ctx.text('claimed');
      });
    });
  });

  it('answers DELETE /books/1 (only GET registered) with 405 and Allow: GET, HEAD', async () => {
    const res = await fetchRaw(server.port, '/books/1', { method: 'DELETE' });
    expect(res.status).toBe(405);
    expect(res.headers['allow']).toBe('GET, HEAD');
    expect(errorOf(res.text)).toEqual({ error: true, message: 'Method Not Allowed', code: 405 });
  });

  it('lists every method any route of the path has, sorted', async () => {
    const special = await fetchRaw(server.port, '/books/special', { method: 'POST' });
    expect(special.status).toBe(405);
    expect(special.headers['allow']).toBe('GET, HEAD, PUT');
    const orders = await fetchRaw(server.port, '/orders/', { method: 'GET' });
    expect(orders.status).toBe(405);
    expect(orders.headers['allow']).toBe('DELETE, POST');
    const head = await fetchRaw(server.port, '/orders', { method: 'HEAD' });
    expect(head.status).toBe(405);
  });

  it('throws the 405 as an HTTPError with the Allow header through the middleware chain', async () => {
    errors.length = 0;
    await fetchRaw(server.port, '/orders', { method: 'PATCH' });
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(HTTPError);
    expect(errors[0]!.statusCode).toBe(405);
    expect(errors[0]!.headers).toEqual({ allow: 'DELETE, POST' });
  });

  it('answers OPTIONS on a known path with 204 and its Allow list', async () => {
    const res = await fetchRaw(server.port, '/books/42', { method: 'OPTIONS' });
    expect(res.status).toBe(204);
    expect(res.headers['allow']).toBe('GET, HEAD');
    expect(res.text).toBe('');
    const own = await fetchRaw(server.port, '/custom', { method: 'OPTIONS' });
    expect(own).toMatchObject({ status: 200, text: 'mine' });
  });

  it('keeps 404 for unknown paths and leaves claimed paths to their plugin', async () => {
    expect((await fetchRaw(server.port, '/nowhere', { method: 'DELETE' })).status).toBe(404);
    expect((await fetchRaw(server.port, '/nowhere', { method: 'OPTIONS' })).status).toBe(404);
    expect((await fetchRaw(server.port, '/books', { method: 'GET' })).status).toBe(404);
    const claimed = await fetchRaw(server.port, '/claimed', { method: 'DELETE' });
    expect(claimed.status).toBe(404);
    expect(claimed.headers['allow']).toBeUndefined();
  });

  it('lets a custom onError see the 405 with its Allow header', async () => {
    const seen: Array<[number, unknown]> = [];
    const handler: ErrorHandler = (err, ctx) => {
      seen.push([err.statusCode, err.headers]);
      ctx.json({ custom: err.statusCode }, err.statusCode);
    };
    const { port } = await serve((app) => {
      app.get('/only', (ctx) => ctx.text('x'));
      app.onError(handler);
    });
    const res = await fetchRaw(port, '/only', { method: 'POST' });
    expect(res.status).toBe(405);
    expect(res.headers['allow']).toBe('GET, HEAD');
    expect(JSON.parse(res.text)).toEqual({ custom: 405 });
    expect(seen).toEqual([[405, { allow: 'GET, HEAD' }]]);
  });

  it('keeps the old 404 with methodNotAllowed: false', async () => {
    const { port } = await serve((app) => {
      app.get('/only', (ctx) => ctx.text('x'));
    }, { methodNotAllowed: false });
    const res = await fetchRaw(port, '/only', { method: 'POST' });
    expect(res.status).toBe(404);
    expect(res.headers['allow']).toBeUndefined();
    expect((await fetchRaw(port, '/only', { method: 'OPTIONS' })).status).toBe(404);
  });
});

describe('percent-encoded unreserved characters in the path', () => {
  let server: Started;

  beforeAll(async () => {
    server = await serve((app) => {
      app.get('/admin/users', (ctx) => {
        if (ctx.headers.authorization === undefined) throw new HTTPError(401, 'Sign in');
        ctx.json({ admin: true });
      });
      app.get('/:section/users', (ctx) => ctx.json({ section: ctx.params.section, path: ctx.path }));
      app.get('/files/:name', (ctx) => ctx.json({ name: ctx.params.name }));
      hostOf(app).claimPath('/graphql', (ctx) => ctx.text('claimed'));
    });
  });

  it('matches /%61dmin/users to the static /admin/users route, as /admin/users is', async () => {
    for (const path of ['/admin/users', '/%61dmin/users', '/%61%64%6D%69%6e/users', '/admin/%75sers']) {
      const res = await fetchRaw(server.port, path);
      expect([path, res.status]).toEqual([path, 401]);
    }
  });

  it('decodes unreserved characters in ctx.path and params, and keeps reserved ones encoded', async () => {
    const other = await fetchRaw(server.port, '/%41dmin%2D%5F%2E%7E/users');
    expect(JSON.parse(other.text)).toEqual({ section: 'Admin-_.~', path: '/Admin-_.~/users' });
    const slash = await fetchRaw(server.port, '/a%2Fb/users');
    expect(JSON.parse(slash.text)).toEqual({ section: 'a/b', path: '/a%2Fb/users' });
    const percent = await fetchRaw(server.port, '/files/%2561');
    expect(JSON.parse(percent.text)).toEqual({ name: '%61' });
    const space = await fetchRaw(server.port, '/files/a%20b%6');
    expect(space.status).toBe(400);
  });

  it('reaches a claimed path spelled with encoded unreserved characters', async () => {
    expect(await fetchRaw(server.port, '/%67raphql')).toMatchObject({ status: 200, text: 'claimed' });
  });
});
