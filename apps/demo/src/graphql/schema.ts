import { buildSchema, type GraphQLSchema } from 'graphql';
import { HTTPError } from '@fw/app';
import type { Store } from '../domain/store.js';
import { GENRES, type Genre } from '../domain/types.js';

/** What the demo's resolvers receive as their context (built by the context factory). */
export interface GraphQLContext {
  /** `ctx.user`: the user the app's authenticate middleware verified, or undefined. */
  user: unknown;
}

export const typeDefs = /* GraphQL */ `
  enum Genre { ${GENRES.join(' ')} }

  type Book {
    id: ID!
    title: String!
    author: String!
    genre: Genre!
    priceCents: Int!
    stock: Int!
  }

  type BookPage {
    items: [Book!]!
    total: Int!
  }

  type OrderLine {
    book: Book
    bookId: ID!
    quantity: Int!
    priceCents: Int!
  }

  type Order {
    id: ID!
    userId: ID!
    lines: [OrderLine!]!
    totalCents: Int!
    createdAt: String!
  }

  input OrderLineInput {
    bookId: ID!
    quantity: Int!
  }

  type Query {
    books(genre: Genre, author: String, limit: Int = 20, offset: Int = 0): BookPage!
    book(id: ID!): Book
    "The orders of the caller (needs a token)."
    myOrders: [Order!]!
  }

  type Mutation {
    "Places an order for the caller (needs a token)."
    placeOrder(lines: [OrderLineInput!]!): Order!
  }
`;

/** The schema, built once. */
export function buildBookstoreSchema(): GraphQLSchema {
  return buildSchema(typeDefs);
}

/** Root resolvers, called with (args, context) as graphql-js calls root values. */
export function rootValue(store: Store) {
  const withBook = (line: { bookId: string; quantity: number; priceCents: number }) => ({
    ...line,
    book: () => store.getBook(line.bookId).catch(() => null),
  });
  return {
    books: async (args: { genre?: Genre; author?: string; limit: number; offset: number }) => {
      if (args.limit < 1 || args.limit > 100) throw new HTTPError(400, 'limit must be between 1 and 100');
      if (args.offset < 0) throw new HTTPError(400, 'offset must not be negative');
      return store.listBooks(args);
    },
    book: async (args: { id: string }) => store.getBook(args.id).catch((err: unknown) => {
      if (err instanceof HTTPError && err.statusCode === 404) return null;
      throw err;
    }),
    // The store checks the caller, the bounds and the stock, as for REST and gRPC.
    myOrders: async (_args: unknown, context: GraphQLContext) => {
      const orders = await store.ordersOf(context.user);
      return orders.map((order) => ({ ...order, lines: order.lines.map(withBook) }));
    },
    placeOrder: async (args: { lines: Array<{ bookId: string; quantity: number }> }, context: GraphQLContext) => {
      const order = await store.placeOrder(context.user, args.lines);
      return { ...order, lines: order.lines.map(withBook) };
    },
  };
}
