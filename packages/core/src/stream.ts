/**
 * Streams: what a streaming handler yields and what a transport sends. A value yielded as
 * `tracked(id, value)` carries an id a client can resume from (an SSE `id:`, a `Last-Event-ID` on
 * reconnect); every event reaches a transport as a `StreamEvent`.
 */

const TRACKED: unique symbol = Symbol.for('fw.tracked');

/** A value yielded with the id a client resumes from (`tracked(id, value)`). */
export interface Tracked<T> {
  readonly [TRACKED]: true;
  /** The event's id: what the client sends back as `Last-Event-ID` (or the protocol's equivalent) when it reconnects. */
  readonly id: string;
  /** The value. */
  readonly data: T;
}

/** One event of a stream, as transports send it: its id when it was yielded `tracked()`, and its value. */
export interface StreamEvent<T> {
  readonly id: string | undefined;
  readonly data: T;
}

/**
 * Marks a yielded value with the id a client resumes from. The id is sent with the event (SSE
 * `id:`), and a client that reconnects sends the last one it saw back (`ctx.lastEventId`). It may
 * not contain a line break or a NUL, which SSE cannot carry.
 * @example
 * async function* events(ctx) {
 *   for await (const e of bus.subscribe('orders', { after: ctx.lastEventId, signal: ctx.signal })) yield tracked(e.id, e);
 * }
 */
export function tracked<T>(id: string, data: T): Tracked<T> {
  if (typeof id !== 'string') throw new TypeError(`tracked() expects a string id, got ${id === null ? 'null' : typeof id}`);
  if (/[\r\n\0]/.test(id)) throw new TypeError('tracked() ids may not contain line breaks or NUL characters');
  return Object.freeze({ [TRACKED]: true as const, id, data });
}

/** Whether `value` was made by `tracked()` (also by another copy of `@fw/core`). */
export function isTracked(value: unknown): value is Tracked<unknown> {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[TRACKED] === true;
}

/** The event a yielded value becomes: a `tracked()` value's id and data, or no id and the value. */
export function toStreamEvent<T>(value: T | Tracked<T>): StreamEvent<T> {
  return isTracked(value) ? { id: value.id, data: value.data } : { id: undefined, data: value };
}
