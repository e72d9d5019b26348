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

/** Where an order is: placed by the customer, then shipped and delivered by the store. */
export const ORDER_STATUSES = ['placed', 'shipped', 'delivered'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

/** A placed order. */
export interface Order {
  id: string;
  userId: string;
  lines: OrderLine[];
  totalCents: number;
  status: OrderStatus;
  createdAt: string;
}

/** Why a book's stock changed. */
export const STOCK_REASONS = ['ordered', 'restocked', 'added', 'removed'] as const;
export type StockReason = (typeof STOCK_REASONS)[number];

/** A change of a book's stock level. */
export interface StockChange {
  bookId: string;
  title: string;
  stock: number;
  reason: StockReason;
}

/**
 * What the store tells about its changes, once they are committed: the live events (live.ts)
 * publish them. The store works without listeners.
 */
export interface StoreEvents {
  orderChanged(order: Order): void;
  stockChanged(change: StockChange): void;
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
