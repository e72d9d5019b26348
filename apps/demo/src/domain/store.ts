import { randomUUID } from 'node:crypto';
import { HTTPError } from '@fw/app';
import type { StoreRepository } from './repository.js';
import type { Book, BookQuery, NewBook, Order, Page, User } from './types.js';

/**
 * The store's business functions, written once and called from REST handlers, GraphQL resolvers
 * and gRPC methods alike. They signal failures with HTTPError, which each protocol maps.
 */
export class Store {
  constructor(private readonly repo: StoreRepository) {}

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
    const existing = (await this.repo.listBooks()).find((b) => b.title === input.title && b.author === input.author);
    if (existing) throw new HTTPError(409, `"${input.title}" by ${input.author} is already in the catalogue as ${existing.id}`);
    const book: Book = { id: `b-${randomUUID().slice(0, 8)}`, ...input };
    await this.repo.saveBook(book);
    return book;
  }

  async restock(id: string, quantity: number): Promise<Book> {
    return this.repo.transaction(async () => {
      const book = await this.getBook(id);
      book.stock += quantity;
      await this.repo.saveBook(book);
      return book;
    });
  }

  async removeBook(id: string): Promise<void> {
    if (!(await this.repo.deleteBook(id))) throw new HTTPError(404, `Book ${id} not found`);
  }

  /** Places an order atomically: every line in stock, or nothing changes (409). */
  async placeOrder(userId: string, lines: Array<{ bookId: string; quantity: number }>): Promise<Order> {
    if (lines.length === 0) throw new HTTPError(400, 'An order needs at least one line');
    return this.repo.transaction(async () => {
      const books = await Promise.all(lines.map((l) => this.getBook(l.bookId)));
      books.forEach((book, i) => {
        const wanted = lines[i]!.quantity;
        if (book.stock < wanted) throw new HTTPError(409, `Only ${book.stock} of "${book.title}" left`, { bookId: book.id, available: book.stock });
      });
      const order: Order = {
        id: `o-${randomUUID().slice(0, 8)}`,
        userId,
        lines: books.map((book, i) => ({ bookId: book.id, quantity: lines[i]!.quantity, priceCents: book.priceCents })),
        totalCents: books.reduce((sum, book, i) => sum + book.priceCents * lines[i]!.quantity, 0),
        createdAt: new Date().toISOString(),
      };
      for (const [i, book] of books.entries()) await this.repo.saveBook({ ...book, stock: book.stock - lines[i]!.quantity });
      await this.repo.saveOrder(order);
      return order;
    });
  }

  async ordersOf(userId: string): Promise<Order[]> {
    return this.repo.listOrders(userId);
  }

  async getUser(id: string): Promise<User> {
    const user = await this.repo.getUser(id);
    if (user === undefined) throw new HTTPError(404, `User ${id} not found`);
    return user;
  }
}
