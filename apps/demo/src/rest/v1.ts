import { Router, type Middleware, type RequestContext } from '@fw/app';
import { requireRole } from '@fw/app/middleware';
import { createHandler } from '@fw/app/validate';
import { describeRoute } from '@fw/app/openapi';
import { userIdOf } from '../auth.js';
import type { Store } from '../domain/store.js';
import { Book, BookRef, Order } from '../schemas.js';
import { NewBookBody, OrderRef, OrderStatusBody, RestockBody, UserOut } from './schemas.js';

/**
 * REST API v1 routes that exist on REST only: the admin's catalogue writes, moving an order on
 * (shipped, delivered: each change is a live order event) and `/me`. The reads and
 * the orders of v1 are operations (operations.ts), served on GraphQL and gRPC too.
 */
export function restV1(store: Store, auth: Middleware<RequestContext>): Router {
  const router = new Router();

  router.group('/books', (books) => {
    // Writes need a token with the admin role.
    books.post('/', describeRoute({ summary: 'Add a book (admin)', tags: ['books'], responses: { 201: Book }, errors: { 409: 'A book with this title and author is already in the catalogue' } }), auth, requireRole('admin'), ...createHandler({ body: NewBookBody }, async (ctx) => {
      ctx.json(await store.addBook(ctx.body), 201);
    }));
    books.post('/:id/restock', describeRoute({ summary: 'Restock a book (admin)', tags: ['books'], responses: { 200: Book } }), auth, requireRole('admin'), ...createHandler({ params: BookRef, body: RestockBody }, async (ctx) => {
      ctx.json(await store.restock(ctx.params.id, ctx.body.quantity));
    }));
    books.delete('/:id', describeRoute({ summary: 'Remove a book (admin)', tags: ['books'], responses: { 204: null } }), auth, requireRole('admin'), ...createHandler({ params: BookRef }, async (ctx) => {
      await store.removeBook(ctx.params.id);
      ctx.status(204);
    }));
  });

  router.post('/orders/:id/status', describeRoute({ summary: 'Move an order on: shipped, delivered (admin)', tags: ['orders'], responses: { 200: Order }, errors: { 404: 'No order with this id', 409: 'The order is at this status or past it already' } }), auth, requireRole('admin'), ...createHandler({ params: OrderRef, body: OrderStatusBody }, async (ctx) => {
    ctx.json(await store.advanceOrder(ctx.params.id, ctx.body.status));
  }));

  router.get('/me', describeRoute({ summary: 'The caller', tags: ['users'], responses: { 200: UserOut }, errors: { 404: 'The user of the token is not known' } }), auth, async (ctx) => {
    ctx.json(await store.getUser(userIdOf(ctx.user)!));
  });
  return router;
}
