import { randomUUID } from 'node:crypto';
import { HTTPError } from '@fw/app';
import type { StoreRepository } from './repository.js';
import { quantitiesPerBook, requireCustomer, type RequestedLine } from './rules.js';
import { ORDER_STATUSES, type Book, type BookQuery, type NewBook, type Order, type OrderStatus, type Page, type StockReason, type StoreEvents, type User } from './types.js';

/** Listeners that hear nothing: a store without live events. */
const QUIET: StoreEvents = { orderChanged: () => undefined, stockChanged: () => undefined };

/**
 * The store's business functions, written once and called from REST handlers, GraphQL resolvers
 * and gRPC methods alike. They signal failures with HTTPError, which each protocol maps. Functions
 * for a caller take the protocol's `user` (ctx.user) and apply the rules of `rules.ts` themselves.
 * Each committed change of an order or of a stock level is told to `events` (the live events).
 */
export class Store {
  constructor(
    private readonly repo: StoreRepository,
    private readonly events: StoreEvents = QUIET,
  ) {}

  async listBooks(query: BookQuery): Promise<Page<Book>> {
    const all = (await this.repo.listBooks())
      .filter((b) => (query.genre === undefined || b.genre === query.genre) && (query.author === undefined || b.author.toLowerCase().includes(query.author.toLowerCase())))
      .sort((a, b) => a.id.localeCompare(b.id, 'en', { numeric: true }));
    return { items: all.slice(query.offset, query.offset + query.limit), total: all.length, limit: query.limit, offset: query.offset };
  }

  async getBook(id: string): Promise<Book> {
    const book = await this.repo.getBook(id);
    if (book === undefined) throw new HTTPError(404, `Book ${id} not found`);
    return book;
  }

  async addBook(input: NewBook): Promise<Book> {
    // In a transaction: two concurrent requests for one title must not both pass the duplicate check.
    const book = await this.repo.transaction(async () => {
      const existing = (await this.repo.listBooks()).find((b) => b.title === input.title && b.author === input.author);
      if (existing) throw new HTTPError(409, `"${input.title}" by ${input.author} is already in the catalogue as ${existing.id}`, { existingId: existing.id });
      const book: Book = { id: `b-${randomUUID().slice(0, 8)}`, ...input };
      await this.repo.saveBook(book);
      return book;
    });
    this.#stockChanged(book, 'added');
    return book;
  }

  async restock(id: string, quantity: number): Promise<Book> {
    const book = await this.repo.transaction(async () => {
      const book = await this.getBook(id);
      book.stock += quantity;
      await this.repo.saveBook(book);
      return book;
    });
    this.#stockChanged(book, 'restocked');
    return book;
  }

  async removeBook(id: string): Promise<void> {
    // In a transaction: an order in flight must not write the removed book back.
    const book = await this.repo.transaction(async () => {
      const book = await this.getBook(id);
      await this.repo.deleteBook(id);
      return book;
    });
    this.#stockChanged({ ...book, stock: 0 }, 'removed');
  }

  /**
   * Places an order for `user` (ctx.user of any protocol): 401/403 unless a customer, 400 outside
   * the order bounds, 404 for an unknown book, 409 unless the stock covers the quantities summed
   * per book. Checked and decremented in one transaction: all lines or nothing.
   */
  async placeOrder(user: unknown, lines: readonly RequestedLine[]): Promise<Order> {
    const userId = requireCustomer(user);
    const wanted = quantitiesPerBook(lines);
    const { order, books } = await this.repo.transaction(async () => {
      const books = await Promise.all([...wanted.keys()].map((id) => this.getBook(id)));
      for (const book of books) {
        const quantity = wanted.get(book.id)!;
        if (book.stock < quantity) {
          // A state the caller can change (order fewer), not a duplicate: failed_precondition, not conflict.
          throw new HTTPError(409, 'Not enough stock', { bookId: book.id, available: book.stock, requested: quantity }, { code: 'failed_precondition' });
        }
      }
      const order: Order = {
        id: `o-${randomUUID().slice(0, 8)}`,
        userId,
        lines: books.map((book) => ({ bookId: book.id, quantity: wanted.get(book.id)!, priceCents: book.priceCents })),
        totalCents: books.reduce((sum, book) => sum + book.priceCents * wanted.get(book.id)!, 0),
        status: 'placed',
        createdAt: new Date().toISOString(),
      };
      const left = books.map((book) => ({ ...book, stock: book.stock - wanted.get(book.id)! }));
      for (const book of left) await this.repo.saveBook(book);
      await this.repo.saveOrder(order);
      return { order, books: left };
    });
    // Told once committed: a refused order publishes nothing.
    this.events.orderChanged(order);
    for (const book of books) this.#stockChanged(book, 'ordered');
    return order;
  }

  /**
   * Moves an order on (the store's side: shipped, then delivered): 404 for an unknown order, 409
   * for a status that is not after the current one.
   */
  async advanceOrder(id: string, status: OrderStatus): Promise<Order> {
    const order = await this.repo.transaction(async () => {
      const order = await this.repo.getOrder(id);
      if (order === undefined) throw new HTTPError(404, `Order ${id} not found`);
      if (ORDER_STATUSES.indexOf(status) <= ORDER_STATUSES.indexOf(order.status)) {
        throw new HTTPError(409, `Order ${id} is ${order.status}: it cannot become ${status}`, { status: order.status }, { code: 'failed_precondition' });
      }
      const next = { ...order, status };
      await this.repo.saveOrder(next);
      return next;
    });
    this.events.orderChanged(order);
    return order;
  }

  /** The orders of `user` (ctx.user of any protocol): 401/403 unless a customer. */
  async ordersOf(user: unknown): Promise<Order[]> {
    return this.repo.listOrders(requireCustomer(user));
  }

  #stockChanged(book: Book, reason: StockReason): void {
    this.events.stockChanged({ bookId: book.id, title: book.title, stock: book.stock, reason });
  }

  async getUser(id: string): Promise<User> {
    const user = await this.repo.getUser(id);
    if (user === undefined) throw new HTTPError(404, `User ${id} not found`);
    return user;
  }
}
