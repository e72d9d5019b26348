import { HTTPError } from '@fw/core';
import type { PubSubMessage, PubSubOverflow, Subscription } from './types.js';

/**
 * Ends a subscription whose reader fell `bufferSize` events behind: a 503 (UNAVAILABLE on gRPC),
 * since the client should reconnect — with its last event id, the replay window fills the gap.
 */
export class PubSubOverflowError extends HTTPError {
  constructor(topic: string, bufferSize: number) {
    super(503, `The subscriber of "${topic}" fell ${bufferSize} events behind and was ended; subscribe again with the last event id to resume`);
    this.name = 'PubSubOverflowError';
  }
}

const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });

/**
 * One subscriber's queue and the async iterator over it. The pub/sub pushes events in; the reader
 * pulls. At most `bufferSize` live events wait (replayed ones are bounded by the replay window).
 */
export class QueuedSubscription<T> implements Subscription<T> {
  readonly ready: Promise<void>;
  #markReady!: () => void;
  #queue: Array<PubSubMessage<T>> = [];
  #head = 0;
  #replayed = 0;
  #reader: ((result: IteratorResult<PubSubMessage<T>>) => void) | undefined = undefined;
  #readerFailed: ((error: unknown) => void) | undefined = undefined;
  #ended = false;
  #error: unknown = undefined;
  #detach: (() => void) | undefined = undefined;
  readonly #signal: AbortSignal | undefined;
  readonly #onAbort = (): void => this.#end(undefined, true);

  constructor(
    readonly topic: string,
    private readonly bufferSize: number,
    private readonly overflow: PubSubOverflow,
    signal: AbortSignal | undefined,
    detach: () => void,
  ) {
    this.ready = new Promise((resolve) => (this.#markReady = resolve));
    this.#signal = signal;
    if (signal?.aborted === true) {
      // Never attached: nothing to detach.
      this.#ended = true;
      this.#markReady();
      return;
    }
    this.#detach = detach;
    signal?.addEventListener('abort', this.#onAbort, { once: true });
  }

  /** Whether it still takes events. */
  get open(): boolean {
    return !this.#ended;
  }

  /** Events waiting to be read. */
  get queued(): number {
    return this.#queue.length - this.#head;
  }

  markReady(): void {
    this.#markReady();
  }

  /** Queues a replayed event (not counted against `bufferSize`). */
  replay(message: PubSubMessage<T>): void {
    if (this.#ended) return;
    if (this.#hand(message)) return;
    this.#queue.push(message);
    this.#replayed++;
  }

  /** Queues a live event; past `bufferSize`, ends the subscription or drops the oldest event. */
  push(message: PubSubMessage<T>): void {
    if (this.#ended) return;
    if (this.#hand(message)) return;
    if (this.queued - this.#replayed >= this.bufferSize) {
      if (this.overflow === 'error') {
        this.#end(new PubSubOverflowError(this.topic, this.bufferSize), false);
        return;
      }
      this.#shift();
    }
    this.#queue.push(message);
  }

  /** Ends the subscription with an error the reader gets after the queued events. */
  fail(error: unknown): void {
    this.#end(error, false);
  }

  next(): Promise<IteratorResult<PubSubMessage<T>>> {
    if (this.queued > 0) return Promise.resolve({ done: false, value: this.#shift() });
    if (this.#ended) {
      if (this.#error === undefined) return Promise.resolve(DONE);
      const error = this.#error;
      this.#error = undefined;
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the ending error travels as it was given
      return Promise.reject(error);
    }
    if (this.#reader !== undefined) return Promise.reject(new Error('subscribe(): next() was called again before the previous call settled'));
    return new Promise((resolve, reject) => {
      this.#reader = resolve;
      this.#readerFailed = reject;
    });
  }

  return(): Promise<IteratorResult<PubSubMessage<T>, undefined>> {
    this.#end(undefined, true);
    return Promise.resolve(DONE);
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  /** Gives the event straight to a waiting reader. */
  #hand(message: PubSubMessage<T>): boolean {
    const reader = this.#reader;
    if (reader === undefined) return false;
    this.#reader = undefined;
    this.#readerFailed = undefined;
    reader({ done: false, value: message });
    return true;
  }

  #shift(): PubSubMessage<T> {
    const message = this.#queue[this.#head]!;
    this.#queue[this.#head] = undefined as unknown as PubSubMessage<T>;
    this.#head++;
    if (this.#replayed > 0) this.#replayed--;
    if (this.#head === this.#queue.length) {
      this.#queue = [];
      this.#head = 0;
    } else if (this.#head > 1024 && this.#head * 2 > this.#queue.length) {
      this.#queue = this.#queue.slice(this.#head);
      this.#head = 0;
    }
    return message;
  }

  /** Stops taking events and leaves the topic; `discard` drops what was queued (the reader left). */
  #end(error: unknown, discard: boolean): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#error = error;
    if (discard) {
      this.#queue = [];
      this.#head = 0;
      this.#replayed = 0;
    }
    this.#signal?.removeEventListener('abort', this.#onAbort);
    const detach = this.#detach;
    this.#detach = undefined;
    detach?.();
    this.#markReady();
    const reader = this.#reader;
    const readerFailed = this.#readerFailed;
    this.#reader = undefined;
    this.#readerFailed = undefined;
    if (reader === undefined) return;
    if (error === undefined) reader(DONE);
    else {
      this.#error = undefined;
      readerFailed!(error);
    }
  }
}
