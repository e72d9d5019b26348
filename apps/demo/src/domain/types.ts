/** A book in the catalogue. */
export interface Book {
  id: string;
  title: string;
  author: string;
  genre: Genre;
  priceCents: number;
  stock: number;
}

export const GENRES = ['fiction', 'science', 'history', 'children'] as const;
export type Genre = (typeof GENRES)[number];

/** One line of an order. */
export interface OrderLine {
  bookId: string;
  quantity: number;
  priceCents: number;
}

/** A placed order. */
export interface Order {
  id: string;
  userId: string;
  lines: OrderLine[];
  totalCents: number;
  createdAt: string;
}

/** A user of the store. */
export interface User {
  id: string;
  name: string;
  roles: string[];
}

export interface NewBook {
  title: string;
  author: string;
  genre: Genre;
  priceCents: number;
  stock: number;
}

export interface BookQuery {
  genre?: Genre | undefined;
  author?: string | undefined;
  limit: number;
  offset: number;
}

export interface Page<T> {
  items: T[];
  total: number;
  limit: number;
  offset: number;
}
