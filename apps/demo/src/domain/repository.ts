import type { Book, Order, User } from './types.js';

/** Where the store keeps its data. The demo keeps it in memory; a database would implement the same. */
export interface StoreRepository {
  listBooks(): Promise<Book[]>;
  getBook(id: string): Promise<Book | undefined>;
  saveBook(book: Book): Promise<void>;
  deleteBook(id: string): Promise<boolean>;
  /** Adds the order, or replaces the one with its id. */
  saveOrder(order: Order): Promise<void>;
  getOrder(id: string): Promise<Order | undefined>;
  listOrders(userId: string): Promise<Order[]>;
  getUser(id: string): Promise<User | undefined>;
  /** Runs `fn` so that no other transaction interleaves (stock checks and decrements). */
  transaction<T>(fn: () => Promise<T>): Promise<T>;
}

/** An in-memory repository, seeded with a few books and users. */
export class InMemoryRepository implements StoreRepository {
  private readonly books = new Map<string, Book>();
  private readonly orders: Order[] = [];
  private readonly users = new Map<string, User>();
  private queue: Promise<unknown> = Promise.resolve();

  constructor(seed: { books?: Book[]; users?: User[] } = {}) {
    for (const book of seed.books ?? []) this.books.set(book.id, { ...book });
    for (const user of seed.users ?? []) this.users.set(user.id, { ...user });
  }

  async listBooks(): Promise<Book[]> {
    return [...this.books.values()].map((b) => ({ ...b }));
  }

  async getBook(id: string): Promise<Book | undefined> {
    const book = this.books.get(id);
    return book && { ...book };
  }

  async saveBook(book: Book): Promise<void> {
    this.books.set(book.id, { ...book });
  }

  async deleteBook(id: string): Promise<boolean> {
    return this.books.delete(id);
  }

  async saveOrder(order: Order): Promise<void> {
    const at = this.orders.findIndex((o) => o.id === order.id);
    if (at < 0) this.orders.push(structuredClone(order));
    else this.orders[at] = structuredClone(order);
  }

  async getOrder(id: string): Promise<Order | undefined> {
    const order = this.orders.find((o) => o.id === id);
    return order && structuredClone(order);
  }

  async listOrders(userId: string): Promise<Order[]> {
    return this.orders.filter((o) => o.userId === userId).map((o) => structuredClone(o));
  }

  async getUser(id: string): Promise<User | undefined> {
    const user = this.users.get(id);
    return user && { ...user, roles: [...user.roles] };
  }

  transaction<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }
}

/** The data the demo starts with. */
export const SEED = {
  books: [
    { id: 'b1', title: 'The Left Hand of Darkness', author: 'Ursula K. Le Guin', genre: 'fiction', priceCents: 1299, stock: 12 },
    { id: 'b2', title: 'A Brief History of Time', author: 'Stephen Hawking', genre: 'science', priceCents: 1599, stock: 5 },
    { id: 'b3', title: 'The Guns of August', author: 'Barbara W. Tuchman', genre: 'history', priceCents: 1899, stock: 3 },
    { id: 'b4', title: 'The Very Hungry Caterpillar', author: 'Eric Carle', genre: 'children', priceCents: 899, stock: 40 },
    { id: 'b5', title: 'The Dispossessed', author: 'Ursula K. Le Guin', genre: 'fiction', priceCents: 1399, stock: 0 },
  ],
  users: [
    { id: 'u-admin', name: 'Ada Admin', roles: ['admin', 'customer'] },
    { id: 'u-reader', name: 'Rita Reader', roles: ['customer'] },
  ],
} satisfies { books: Book[]; users: User[] };
