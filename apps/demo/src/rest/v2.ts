import { Router } from '@fw/app';
import { createHandler } from '@fw/app/validate';
import { describeRoute } from '@fw/app/openapi';
import type { Store } from '../domain/store.js';
import type { Book } from '../domain/types.js';
import { BookQuery, BookRef } from '../schemas.js';
import { BookV2Out, PageOf } from './schemas.js';

/** v2 of a book: the price as an amount with its currency. */
function present(book: Book) {
  const { priceCents, ...rest } = book;
  return { ...rest, price: { amount: (priceCents / 100).toFixed(2), currency: 'EUR' }, inStock: book.stock > 0 };
}

/** REST API v2: paginated envelopes and prices with a currency. Coexists with v1. */
export function restV2(store: Store): Router {
  const router = new Router();
  router.get('/books', describeRoute({ summary: 'List books, paginated', tags: ['books'], responses: { 200: PageOf(BookV2Out) } }), ...createHandler({ query: BookQuery }, async (ctx) => {
    const page = await store.listBooks(ctx.query);
    ctx.json({ ...page, items: page.items.map(present) });
  }));
  router.get('/books/:id', describeRoute({ summary: 'One book with its price', tags: ['books'], responses: { 200: BookV2Out } }), ...createHandler({ params: BookRef }, async (ctx) => {
    ctx.json(present(await store.getBook(ctx.params.id)));
  }));
  return router;
}
