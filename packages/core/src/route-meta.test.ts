import { Application } from './application.js';
import { metaOf, ROUTE_META, withMeta } from './route-meta.js';
import { Router } from './router.js';
import type { Next } from './types.js';

describe('withMeta', () => {
  it('returns the same function carrying the meta', () => {
    const mw = (_ctx: unknown, next: Next): Promise<void> => next();
    const marked = withMeta(mw, { description: 'Lists books', tags: ['books'] });
    expect(marked).toBe(mw);
    expect(marked[ROUTE_META]).toEqual({ description: 'Lists books', tags: ['books'] });
  });

  it('merges with meta the function already carries, the new meta winning per key', () => {
    const mw = withMeta((_ctx: unknown, next: Next) => next(), { description: 'old', tags: ['a'] });
    withMeta(mw, { description: 'new' });
    expect(metaOf(mw)).toEqual({ description: 'new', tags: ['a'] });
  });

  it('puts the meta on every route whose chain holds the middleware', () => {
    const app = new Application();
    const tagged = withMeta((_ctx: unknown, next: Next) => next(), { tags: ['admin'] });
    const admin = new Router({ prefix: '/admin' });
    admin.use(tagged);
    admin.get('/users', (ctx) => ctx.json([]));
    app.use(admin);
    app.get('/open', (ctx) => ctx.json([]));
    app.get('/one', withMeta((_ctx: unknown, next: Next) => next(), { description: 'One' }), (ctx) => ctx.json([]));
    expect(app.getRoutes().map((r) => [r.path, r.meta])).toEqual([
      ['/admin/users', { tags: ['admin'] }],
      ['/open', undefined],
      ['/one', { description: 'One' }],
    ]);
  });

  it('refuses what is not a function or a meta object', () => {
    expect(() => withMeta('x' as unknown as () => void, {})).toThrow('withMeta expects a middleware function');
    expect(() => withMeta(() => undefined, null as unknown as object)).toThrow('withMeta expects a meta object');
  });
});
