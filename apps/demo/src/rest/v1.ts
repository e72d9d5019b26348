import { createHandler, describeRoute, requireRole, Router, type Middleware } from '@fw/app';
import { z } from 'zod';
import { userIdOf } from '../auth.js';
import type { Store } from '../domain/store.js';
import { BookId, BookListQuery, BookOut, NewBookBody, OrderBody, OrderOut, RestockBody, UserOut } from './schemas.js';

/** REST API v1: plain arrays and objects. */
export function restV1(store: Store, auth: Middleware): Router {
  const router = new Router();

  router.group('/books', (books) => {
    books.get('/', describeRoute({ summary: 'List books', tags: ['books'], responses: { 200: z.array(BookOut) } }), ...createHandler({ query: BookListQuery }, async (ctx) => {
      ctx.json((await store.listBooks(ctx.query)).items);
    }));
    books.get('/:id', describeRoute({ summary: 'One book', tags: ['books'], responses: { 200: BookOut } }), ...createHandler({ params: BookId }, async (ctx) => {
      ctx.json(await store.getBook(ctx.params.id));
    }));
    // Writes need a token with the admin role.
    books.post('/', describeRoute({ summary: 'Add a book (admin)', tags: ['books'], responses: { 201: BookOut } }), auth, requireRole('admin'), ...createHandler({ body: NewBookBody }, async (ctx) => {
      ctx.json(await store.addBook(ctx.body), 201);
    }));
    books.post('/:id/restock', describeRoute({ summary: 'Restock a book (admin)', tags: ['books'], responses: { 200: BookOut } }), auth, requireRole('admin'), ...createHandler({ params: BookId, body: RestockBody }, async (ctx) => {
      ctx.json(await store.restock(ctx.params.id, ctx.body.quantity));
    }));
    books.delete('/:id', describeRoute({ summary: 'Remove a book (admin)', tags: ['books'], responses: { 204: null } }), auth, requireRole('admin'), ...createHandler({ params: BookId }, async (ctx) => {
      await store.removeBook(ctx.params.id);
      ctx.status(204);
    }));
  });

  router.group('/orders', (orders) => {
    orders.use(auth);
    orders.use(requireRole('customer'));
    orders.get('/', describeRoute({ summary: 'My orders', tags: ['orders'], responses: { 200: z.array(OrderOut) } }), async (ctx) => {
      ctx.json(await store.ordersOf(userIdOf(ctx.user)!));
    });
    orders.post('/', describeRoute({ summary: 'Place an order', tags: ['orders'], responses: { 201: OrderOut } }), ...createHandler({ body: OrderBody }, async (ctx) => {
      ctx.json(await store.placeOrder(userIdOf(ctx.user)!, ctx.body.lines), 201);
    }));
  });

  router.get('/me', describeRoute({ summary: 'The caller', tags: ['users'], responses: { 200: UserOut } }), auth, async (ctx) => {
    ctx.json(await store.getUser(userIdOf(ctx.user)!));
  });
  return router;
}
