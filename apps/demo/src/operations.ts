import { type Middleware, type RequestContext } from '@fw/app';
import { requireRole } from '@fw/app/middleware';
import { defineOperation } from '@fw/app/validate';
import { describeRoute } from '@fw/app/openapi';
import { z } from 'zod';
import { userIdOf } from './auth.js';
import { CUSTOMER_ROLE, ORDER_LIMITS } from './domain/rules.js';
import type { Store } from './domain/store.js';
import type { LiveEvents } from './live.js';
import { Book, BookQuery, BookRef, Order, OrderEvent, OrderEventsQuery, OrderRequest, StockEvent, StockEventsQuery } from './schemas.js';

/** The gRPC service every operation of the demo belongs to. */
const CATALOG = { service: 'bookstore.Catalog' } as const;

/**
 * The catalogue and the orders, each defined once: REST (`/api/v1`), GraphQL and gRPC serve the
 * same definition, with the same validation, the same middleware and the same errors.
 * `requireAuth` answers 401 without a verified user, on every protocol. The two streams (`orderEvents`,
 * `stockEvents`) are server-sent events on REST, subscriptions on GraphQL and server streams on gRPC.
 */
export function bookstoreOperations(store: Store, requireAuth: Middleware<RequestContext>, live: LiveEvents) {
  const customer = [requireAuth, requireRole(CUSTOMER_ROLE)];

  const getBook = defineOperation({
    name: 'getBook',
    description: 'One book by id',
    input: BookRef,
    output: Book,
    middleware: [describeRoute({ summary: 'One book', tags: ['books'] })],
    handler: ({ id }) => store.getBook(id),
    rest: { method: 'GET', path: '/api/v1/books/:id' },
    graphql: { type: 'query' },
    grpc: CATALOG,
  });

  const listBooks = defineOperation({
    name: 'listBooks',
    description: 'Books of the catalogue, by id, optionally of one genre or author',
    input: BookQuery,
    output: z.array(Book),
    middleware: [describeRoute({ summary: 'List books', tags: ['books'] })],
    handler: async (query) => (await store.listBooks(query)).items,
    rest: { method: 'GET', path: '/api/v1/books' },
    graphql: { type: 'query' },
    grpc: CATALOG,
  });

  const placeOrder = defineOperation({
    name: 'placeOrder',
    description: 'Places an order for the caller (a customer token)',
    input: OrderRequest,
    output: Order,
    middleware: [
      describeRoute({
        summary: 'Place an order',
        tags: ['orders'],
        errors: { 400: `Not a valid order: 1 to ${ORDER_LIMITS.maxLines} lines, 1 to ${ORDER_LIMITS.maxQuantity} copies a line`, 404: 'A line names an unknown book', 409: 'Not enough stock for the quantities ordered' },
      }),
      ...customer,
    ],
    // The store applies the order rules (bounds, stock, all lines or none) in one transaction.
    handler: ({ lines }, ctx) => store.placeOrder(ctx.user, lines),
    rest: { method: 'POST', path: '/api/v1/orders', status: 201 },
    graphql: { type: 'mutation' },
    grpc: CATALOG,
  });

  const myOrders = defineOperation({
    name: 'myOrders',
    description: 'The orders of the caller (a customer token)',
    input: z.object({}),
    output: z.array(Order),
    middleware: [describeRoute({ summary: 'My orders', tags: ['orders'] }), ...customer],
    handler: (_input, ctx) => store.ordersOf(ctx.user),
    rest: { method: 'GET', path: '/api/v1/orders' },
    graphql: { type: 'query' },
    grpc: CATALOG,
  });

  const orderEvents = defineOperation({
    name: 'orderEvents',
    description: "Status changes of the caller's orders (a customer token), live",
    input: OrderEventsQuery,
    output: OrderEvent,
    stream: true,
    // Runs once, when the stream opens: without a token the answer is a 401 (UNAUTHENTICATED), no event.
    middleware: [describeRoute({ summary: 'My order events (server-sent events)', tags: ['orders'] }), ...customer],
    // tracked(): the event id is the SSE `id:`, so a client that reconnects resumes after it.
    handler: async function* ({ orderId }, ctx) {
      yield* live.orders(userIdOf(ctx.user)!, orderId, ctx);
    },
    rest: { path: '/api/v1/orders/events' },
    graphql: { type: 'subscription' },
    grpc: CATALOG,
  });

  const stockEvents = defineOperation({
    name: 'stockEvents',
    description: 'Stock level changes of one book or of the whole catalogue, live',
    input: StockEventsQuery,
    output: StockEvent,
    stream: true,
    middleware: [describeRoute({ summary: 'Stock events (server-sent events)', tags: ['books'] })],
    handler: async function* ({ bookId }, ctx) {
      yield* live.stock(bookId, ctx);
    },
    rest: { path: '/api/v1/books/events' },
    graphql: { type: 'subscription' },
    grpc: CATALOG,
  });

  return [getBook, listBooks, placeOrder, myOrders, orderEvents, stockEvents] as const;
}
