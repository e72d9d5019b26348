import { z } from 'zod';
import { GENRES } from '../domain/types.js';

/** Input schemas shared by both REST versions. */
export const BookId = z.object({ id: z.string().regex(/^b[\w-]*$/, 'not a book id') });

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

export const OrderBody = z.object({
  lines: z
    .array(z.object({ bookId: z.string().min(1), quantity: z.number().int().min(1).max(100) }))
    .min(1)
    .max(50),
});
