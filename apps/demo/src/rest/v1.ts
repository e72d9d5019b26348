import { authenticate, createHandler, requireRole, Router, type Middleware } from '@fw/app';
import { userIdOf } from '../auth.js';
import type { Store } from '../domain/store.js';
import { BookId, BookListQuery, NewBookBody, OrderBody, RestockBody } from './schemas.js';

/** REST API v1: plain arrays and objects. */
export function restV1(store: Store, auth: Middleware): Router {
  const router = new Router();

  router.group('/books', (books) => {
    books.get('/', ...createHandler({ query: BookListQuery }, async (ctx) => {
      ctx.json((await store.listBooks(ctx.query)).items);
    }));
    books.get('/:id', ...createHandler({ params: BookId }, async (ctx) => {
      ctx.json(await store.getBook(ctx.params.id));
    }));
    // Writes need a token with the admin role.
    books.post('/', auth, requireRole('admin'), ...createHandler({ body: NewBookBody }, async (ctx) => {
      ctx.json(await store.addBook(ctx.body), 201);
    }));
    books.post('/:id/restock', auth, requireRole('admin'), ...createHandler({ params: BookId, body: RestockBody }, async (ctx) => {
      ctx.json(await store.restock(ctx.params.id, ctx.body.quantity));
    }));
    books.delete('/:id', auth, requireRole('admin'), ...createHandler({ params: BookId }, async (ctx) => {
      await store.removeBook(ctx.params.id);
      ctx.status(204);
    }));
  });

  router.group('/orders', (orders) => {
    orders.use(auth);
    orders.use(requireRole('customer'));
    orders.get('/', async (ctx) => {
      ctx.json(await store.ordersOf(userIdOf(ctx.user)!));
    });
    orders.post('/', ...createHandler({ body: OrderBody }, async (ctx) => {
      ctx.json(await store.placeOrder(userIdOf(ctx.user)!, ctx.body.lines), 201);
    }));
  });

  router.get('/me', auth, async (ctx) => {
    ctx.json(await store.getUser(userIdOf(ctx.user)!));
  });
  return router;
}
