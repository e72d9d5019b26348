import { createHandler, describeRoute, requireRole, Router, type Middleware } from '@fw/app';
import { z } from 'zod';
import { userIdOf } from '../auth.js';
import { CUSTOMER_ROLE, ORDER_LIMITS } from '../domain/rules.js';
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
    books.post('/', describeRoute({ summary: 'Add a book (admin)', tags: ['books'], responses: { 201: BookOut }, errors: { 409: 'A book with this title and author is already in the catalogue' } }), auth, requireRole('admin'), ...createHandler({ body: NewBookBody }, async (ctx) => {
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
    // The store applies the order rules (customer role, bounds, stock) on every protocol; these
    // middleware answer the same 401/403 first and mark the routes for the OpenAPI document.
    orders.use(auth);
    orders.use(requireRole(CUSTOMER_ROLE));
    orders.get('/', describeRoute({ summary: 'My orders', tags: ['orders'], responses: { 200: z.array(OrderOut) } }), async (ctx) => {
      ctx.json(await store.ordersOf(ctx.user));
    });
    orders.post(
      '/',
      describeRoute({
        summary: 'Place an order',
        tags: ['orders'],
        responses: { 201: OrderOut },
        errors: { 400: `Not a valid order: 1 to ${ORDER_LIMITS.maxLines} lines, 1 to ${ORDER_LIMITS.maxQuantity} copies a line`, 404: 'A line names an unknown book', 409: 'Not enough stock for the quantities ordered' },
      }),
      ...createHandler({ body: OrderBody }, async (ctx) => {
        ctx.json(await store.placeOrder(ctx.user, ctx.body.lines), 201);
      }),
    );
  });

  router.get('/me', describeRoute({ summary: 'The caller', tags: ['users'], responses: { 200: UserOut }, errors: { 404: 'The user of the token is not known' } }), auth, async (ctx) => {
    ctx.json(await store.getUser(userIdOf(ctx.user)!));
  });
  return router;
}
