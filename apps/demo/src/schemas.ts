import { z } from 'zod';
import { ORDER_LIMITS } from './domain/rules.js';
import { GENRES, ORDER_STATUSES, STOCK_REASONS } from './domain/types.js';

/**
 * The bookstore's types, written once with zod. The operations (operations.ts) serve them on REST,
 * GraphQL and gRPC; the names given with `.meta({ id })` are the GraphQL type and proto message names.
 */

export const Genre = z.enum(GENRES).meta({ id: 'Genre' });

export const Book = z
  .object({
    id: z.string(),
    title: z.string(),
    author: z.string(),
    genre: Genre,
    priceCents: z.int32().describe('The price in euro cents'),
    stock: z.int32().describe('Copies in stock'),
  })
  .meta({ id: 'Book', description: 'A book in the catalogue' });

/** A book id in a path or a request. */
export const BookRef = z.object({ id: z.string().regex(/^b[\w-]*$/, 'not a book id').meta({ examples: ['b1'] }) });

/** Filters and a page of the catalogue (query strings are text: the numbers are coerced). */
export const BookQuery = z.object({
  genre: Genre.optional(),
  author: z.string().trim().min(1).max(100).optional().describe('A part of the author name, any case'),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
});

// Only the shape is checked here: the bounds are the domain's order rules (rules.ts), which answer
// the same 400 on every protocol. `meta` documents them without checking them twice.
export const OrderLineInput = z
  .object({
    bookId: z.string().meta({ minLength: 1, examples: ['b4'] }),
    quantity: z.int32().meta({ minimum: 1, maximum: ORDER_LIMITS.maxQuantity, examples: [1] }),
  })
  .meta({ id: 'OrderLineInput' });

export const OrderRequest = z.object({
  lines: z
    .array(OrderLineInput)
    .meta({ minItems: 1, maxItems: ORDER_LIMITS.maxLines, description: `1 to ${ORDER_LIMITS.maxLines} lines; lines for the same book are added up against its stock.` }),
});

export const OrderStatus = z.enum(ORDER_STATUSES).meta({ id: 'OrderStatus', description: 'Where an order is: placed, then shipped and delivered' });

export const OrderLine = z.object({ bookId: z.string(), quantity: z.int32(), priceCents: z.int32() }).meta({ id: 'OrderLine' });

export const Order = z
  .object({
    id: z.string(),
    userId: z.string(),
    lines: z.array(OrderLine),
    totalCents: z.int32(),
    status: OrderStatus,
    createdAt: z.string().describe('When the order was placed, ISO 8601'),
  })
  .meta({ id: 'Order', description: 'A placed order' });

// The live events. Each carries its own id: SSE sends it as the event's `id:` too, but a gRPC
// message or a GraphQL result carries only the event, and a client resumes from the id it saw.
const EventId = z.string().describe('The id to resume after: Last-Event-ID on SSE, last-event-id metadata on gRPC');

/** Follow the caller's orders, or one of them. */
export const OrderEventsQuery = z.object({ orderId: z.string().regex(/^o-[\w-]+$/, 'not an order id').optional().describe('Only this order') });

export const OrderEvent = z
  .object({
    eventId: EventId,
    orderId: z.string(),
    status: OrderStatus,
    totalCents: z.int32(),
    at: z.string().describe('When the order took this status, ISO 8601'),
  })
  .meta({ id: 'OrderEvent', description: 'An order of the caller took a new status' });

/** Follow the stock of one book, or of the whole catalogue. */
export const StockEventsQuery = z.object({ bookId: BookRef.shape.id.optional().describe('Only this book') });

export const StockReason = z.enum(STOCK_REASONS).meta({ id: 'StockReason', description: 'Why a stock level changed' });

export const StockEvent = z
  .object({
    eventId: EventId,
    bookId: z.string(),
    title: z.string(),
    stock: z.int32().describe('Copies in stock now'),
    reason: StockReason,
  })
  .meta({ id: 'StockEvent', description: 'The stock level of a book changed' });
