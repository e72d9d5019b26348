import { tracked, type RequestContext, type Tracked } from '@fw/app/core';
import { createPubSub, type PubSub } from '@fw/app/middleware';
import type { Order, OrderStatus, StockChange, StoreEvents } from './domain/types.js';

/** An order event as published (the pub/sub gives it its id). */
export interface OrderUpdate {
  orderId: string;
  status: OrderStatus;
  totalCents: number;
  at: string;
}

/**
 * The topics: the orders of one user each (a subscriber hears only its own, and resumes within
 * its own window), and one for the stock of every book.
 */
type Topics = { [user: `orders:${string}`]: OrderUpdate } & { stock: StockChange };
type Topic = `orders:${string}` | 'stock';

/** Where a stream is logged when it opens and when its handler has cleaned up. */
export type LiveLog = (line: string) => void;

/**
 * The demo's live data: the store tells its committed changes (`events`), they are published on a
 * pub/sub with a replay window (`createPubSub()`, in memory; `createPubSub({ redis })` would let
 * several instances share them), and the streaming operations subscribe to it for each client.
 */
export class LiveEvents {
  readonly bus: PubSub<Topics> = createPubSub<Topics>({ replay: { size: 100, maxAge: 5 * 60_000 } });
  readonly #log: LiveLog;

  constructor(log: LiveLog = () => undefined) {
    this.#log = log;
  }

  /** The store's listener: publishes each change. */
  readonly events: StoreEvents = {
    orderChanged: (order: Order) => {
      const at = order.status === 'placed' ? order.createdAt : new Date().toISOString();
      this.#publish(this.bus.publish(`orders:${order.userId}`, { orderId: order.id, status: order.status, totalCents: order.totalCents, at }));
    },
    stockChanged: (change: StockChange) => this.#publish(this.bus.publish('stock', change)),
  };

  /** The status changes of `userId`'s orders (or of one of them), resuming after `ctx.lastEventId`. */
  orders(userId: string, orderId: string | undefined, ctx: RequestContext): AsyncGenerator<Tracked<OrderUpdate & { eventId: string }>> {
    return this.#follow('orderEvents', `orders:${userId}`, ctx, (update) => orderId === undefined || update.orderId === orderId);
  }

  /** The stock level changes of one book or of all, resuming after `ctx.lastEventId`. */
  stock(bookId: string | undefined, ctx: RequestContext): AsyncGenerator<Tracked<StockChange & { eventId: string }>> {
    return this.#follow('stockEvents', 'stock', ctx, (change) => bookId === undefined || change.bookId === bookId);
  }

  /** Ends every subscription (the app's close has ended the streams already). */
  close(): Promise<void> {
    return this.bus.close();
  }

  async *#follow<K extends Topic>(name: string, topic: K, ctx: RequestContext, wanted: (event: Topics[K]) => boolean): AsyncGenerator<Tracked<Topics[K] & { eventId: string }>> {
    // The subscription ends when ctx.signal aborts: the client left, the app closes or the stream
    // reached its longest duration. The loop then ends and `finally` runs, on every protocol.
    const subscription = this.bus.subscribe(topic, { signal: ctx.signal, lastEventId: ctx.lastEventId });
    this.#log(`live: ${name} opened over ${ctx.protocol}${ctx.lastEventId === undefined ? '' : `, resuming after ${ctx.lastEventId}`}`);
    try {
      for await (const { id, data } of subscription) if (wanted(data)) yield tracked(id, { ...data, eventId: id });
    } finally {
      await subscription.return();
      this.#log(`live: ${name} closed over ${ctx.protocol}, ${this.bus.subscribers(topic)} left on ${topic.startsWith('orders:') ? 'orders' : topic}`);
    }
  }

  #publish(published: Promise<string>): void {
    // The change is committed already: a publish that fails loses the live event, not the change.
    published.catch((err: unknown) => this.#log(`live: an event was not published: ${err instanceof Error ? err.message : String(err)}`));
  }
}
