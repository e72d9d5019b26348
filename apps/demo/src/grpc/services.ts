import { fileURLToPath } from 'node:url';
import { HTTPError, type GrpcServerStreamHandler, type GrpcUnaryHandler } from '@fw/app';
import type { Store } from '../domain/store.js';
import { GENRES, type Book, type Genre, type Order } from '../domain/types.js';

/** The demo's own protocol definition. */
export const PROTO_PATH = fileURLToPath(new URL('../proto/bookstore.proto', import.meta.url));

interface BookMessage {
  id: string;
  title: string;
  author: string;
  genre: string;
  price_cents: number;
  stock: number;
}

interface OrderMessage {
  id: string;
  user_id: string;
  lines: Array<{ book_id: string; quantity: number; price_cents: number }>;
  total_cents: number;
  created_at: string;
}

const toBook = (b: Book): BookMessage => ({ id: b.id, title: b.title, author: b.author, genre: b.genre, price_cents: b.priceCents, stock: b.stock });
const toOrder = (o: Order): OrderMessage => ({
  id: o.id,
  user_id: o.userId,
  lines: o.lines.map((l) => ({ book_id: l.bookId, quantity: l.quantity, price_cents: l.priceCents })),
  total_cents: o.totalCents,
  created_at: o.createdAt,
});

/** The implementations of `bookstore.Catalog`, calling the same store as REST and GraphQL. */
export function catalogService(store: Store) {
  // The spec's (call, callback) form.
  const GetBook: GrpcUnaryHandler<{ id: string }, BookMessage> = (call, callback) => {
    if (!call.request.id) return callback(new HTTPError(400, 'id is required'));
    store.getBook(call.request.id).then(
      (book) => callback(null, toBook(book)),
      (err: unknown) => callback(err as Error),
    );
  };

  // Server streaming: one message per book, written with back-pressure.
  const ListBooks: GrpcServerStreamHandler<{ genre: string }, BookMessage> = async function* (call) {
    const genre = call.request.genre;
    if (genre !== '' && !(GENRES as readonly string[]).includes(genre)) throw new HTTPError(400, `Unknown genre "${genre}"`);
    const page = await store.listBooks({ genre: (genre || undefined) as Genre | undefined, limit: 1000, offset: 0 });
    for (const book of page.items) {
      if (call.ctx.signal.aborted) return;
      yield toBook(book);
    }
  };

  // Async form; the caller comes from `authorization` metadata via the app's authenticate
  // middleware, and the store checks it, the bounds and the stock, as for REST and GraphQL.
  const PlaceOrder: GrpcUnaryHandler<{ lines: Array<{ book_id: string; quantity: number }> }, OrderMessage> = async (call) => {
    const lines = call.request.lines.map((l) => ({ bookId: l.book_id, quantity: l.quantity }));
    return toOrder(await store.placeOrder(call.ctx.user, lines));
  };

  return { GetBook, ListBooks, PlaceOrder };
}
