import { z } from 'zod';
import { Book } from '../schemas.js';
import { GENRES } from '../domain/types.js';

/** The schemas of the REST-only routes (admin writes, `/me`, v2). */

export const NewBookBody = z.object({
  title: z.string().trim().min(1).max(200),
  author: z.string().trim().min(1).max(100),
  genre: z.enum(GENRES),
  priceCents: z.number().int().min(0).max(1_000_000),
  stock: z.number().int().min(0).default(0),
});

export const RestockBody = z.object({ quantity: z.number().int().min(1).max(10_000) });

export const BookV2Out = Book.omit({ priceCents: true }).extend({
  price: z.object({ amount: z.string(), currency: z.literal('EUR') }),
  inStock: z.boolean(),
});

export const PageOf = <T extends z.ZodType>(item: T) =>
  z.object({ items: z.array(item), total: z.number().int(), limit: z.number().int(), offset: z.number().int() });

export const UserOut = z.object({ id: z.string(), name: z.string(), roles: z.array(z.string()) });

/** An order id in a path. */
export const OrderRef = z.object({ id: z.string().regex(/^o-[\w-]+$/, 'not an order id').meta({ examples: ['o-1a2b3c4d'] }) });

/** The store moves an order on: shipped, then delivered. */
export const OrderStatusBody = z.object({ status: z.enum(['shipped', 'delivered']) });
