import { z } from 'zod';
import { ORDER_LIMITS } from '../domain/rules.js';
import { GENRES } from '../domain/types.js';

/** Input schemas shared by both REST versions. */
export const BookId = z.object({ id: z.string().regex(/^b[\w-]*$/, 'not a book id').meta({ examples: ['b1'] }) });

export const BookListQuery = z.object({
  genre: z.enum(GENRES).optional(),
  author: z.string().trim().min(1).max(100).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  offset: z.coerce.number().int().min(0).default(0),
});

export const NewBookBody = z.object({
  title: z.string().trim().min(1).max(200),
  author: z.string().trim().min(1).max(100),
  genre: z.enum(GENRES),
  priceCents: z.number().int().min(0).max(1_000_000),
  stock: z.number().int().min(0).default(0),
});

export const RestockBody = z.object({ quantity: z.number().int().min(1).max(10_000) });

// Only the shape is checked here: the bounds are the domain's order rules (rules.ts), which answer
// the same 400 on REST, GraphQL and gRPC. `meta` documents them without checking them twice.
export const OrderBody = z.object({
  lines: z
    .array(
      z.object({
        bookId: z.string().meta({ minLength: 1, examples: ['b4'] }),
        quantity: z.number().int().meta({ minimum: 1, maximum: ORDER_LIMITS.maxQuantity, examples: [1] }),
      }),
    )
    .meta({ minItems: 1, maxItems: ORDER_LIMITS.maxLines, description: `1 to ${ORDER_LIMITS.maxLines} lines; lines for the same book are added up against its stock.` }),
});

/** Response shapes, for the documentation (and the contract check that holds the demo to it). */
export const BookOut = z.object({
  id: z.string(),
  title: z.string(),
  author: z.string(),
  genre: z.enum(GENRES),
  priceCents: z.number().int(),
  stock: z.number().int(),
});

export const BookV2Out = BookOut.omit({ priceCents: true }).extend({
  price: z.object({ amount: z.string(), currency: z.literal('EUR') }),
  inStock: z.boolean(),
});

export const PageOf = <T extends z.ZodType>(item: T) =>
  z.object({ items: z.array(item), total: z.number().int(), limit: z.number().int(), offset: z.number().int() });

export const OrderOut = z.object({
  id: z.string(),
  userId: z.string(),
  lines: z.array(z.object({ bookId: z.string(), quantity: z.number().int(), priceCents: z.number().int() })),
  totalCents: z.number().int(),
  createdAt: z.string(),
});

export const UserOut = z.object({ id: z.string(), name: z.string(), roles: z.array(z.string()) });
