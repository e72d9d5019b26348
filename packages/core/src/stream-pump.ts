import type { ResolvedStreamsConfig } from './config.js';
import type { HTTPError } from './http-error.js';
import type { LogFunction } from './internal/logging.js';
import { releaseStream, type OpenStream } from './stream-registry.js';
import { StreamStop, STOPPED } from './stream-stop.js';

/** Why a stream stopped before its source was done (none: the source finished, or threw). */
export type StreamStopReason =
  /** The client left (closed the connection, cancelled the call, completed the subscription). */
  | { readonly kind: 'client' }
  /** The registry ended it (the app closing, `streams.maxDuration`), or the transport did: `reason` is the 503 (or other status) to end with. */
  | { readonly kind: 'end'; readonly reason: HTTPError }
  /** The client stopped reading: `streams.stallTimeout` passed with bytes unsent (`message` says which bound). */
  | { readonly kind: 'slow'; readonly message: string };

/**
 * What a transport is to the pump: where encoded events go, and how much of them still waits for
 * the client. The pump decides when to pull, wait, beat and stop; a sink only writes bytes.
 */
export interface StreamSink<T> {
  /** Turns one event into the bytes the transport writes (a frame, a message); a throw fails the stream. */
  encode(event: T): string | Uint8Array;
  /** Writes what `encode` returned. */
  write(chunk: string | Uint8Array): void;
  /** Bytes written that the client has not taken yet. */
  buffered(): number;
  /** Whether the pump should wait for the client before the next event (past the transport's high-water mark). @default buffered() > 0 */
  needsDrain?(): boolean;
  /** Calls `listener` once the client took what waits (or the transport closed); returns what removes it. */
  onDrain(listener: () => void): () => void;
  /** Writes a keep-alive (an SSE comment, a WebSocket ping); absent: the transport needs none. */
  heartbeat?(): void;
  /** Ends the transport's connection or stream at once: the client stopped reading (`message` says how). */
  cut(message: string): void;
  /**
   * What to write instead of an event larger than `streams.maxEventBytes` (`bytes` its size), for
   * transports that end only that event's operation; absent or returning undefined: the stream fails.
   */
  oversized?(chunk: string | Uint8Array, bytes: number): string | Uint8Array | undefined;
}

/** What a pump reads from its transport and app. */
export interface StreamPumpOptions {
  /** The app's stream limits and timing (`host.streams`). */
  readonly config: Pick<ResolvedStreamsConfig, 'heartbeat' | 'maxEventBytes' | 'maxBufferedBytes' | 'stallTimeout'>;
  /** Where each reason a stream ended goes, once. */
  readonly log: LogFunction;
  /** The stream, for the log (`GET /orders/events`, or what the transport calls it). */
  readonly where: string;
  /** The stream's registry slot: its signal (the app closing, `maxDuration`) stops the pump; released by `release()`. */
  readonly slot?: OpenStream;
}

/** An event larger than `streams.maxEventBytes`: the stream fails with it (an internal error to the client). */
export class EventTooLargeError extends Error {
  override readonly name = 'EventTooLargeError';
  constructor(
    readonly bytes: number,
    readonly limit: number,
  ) {
    super(`An event of ${bytes} bytes is larger than streams.maxEventBytes (${limit})`);
  }
}

/**
 * How many events one stream takes from a source in a row before the event loop gets a turn: a
 * source that never waits for I/O (events from memory, a replay) cannot starve the process.
 */
export const EVENTS_PER_TURN = 64;

const noop = (): void => undefined;

/**
 * One clock per period for every pump that ticks at it, instead of a timer per stream: ten
 * thousand idle streams hold ten thousand entries of a set, not ten thousand timers.
 */
const clocks = new Map<number, { readonly timer: NodeJS.Timeout; readonly pumps: Set<{ tick(): void }> }>();

function joinClock(every: number, pump: { tick(): void }): () => void {
  let clock = clocks.get(every);
  if (clock === undefined) {
    const pumps = new Set<{ tick(): void }>();
    const timer = setInterval(() => {
      for (const member of pumps) member.tick();
    }, every);
    timer.unref();
    clock = { timer, pumps };
    clocks.set(every, clock);
  }
  const joined = clock;
  joined.pumps.add(pump);
  return () => {
    joined.pumps.delete(pump);
    if (joined.pumps.size === 0 && clocks.get(every) === joined) {
      clearInterval(joined.timer);
      clocks.delete(every);
    }
  };
}
const turn = (): Promise<void> => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * The one stream policy, for every transport: pulls events from a source and writes them to a
 * sink, giving each stream a bounded share of the event loop (`EVENTS_PER_TURN`), pulling nothing
 * more while the client has not taken what waits (at most one event past `maxBufferedBytes` is
 * ever held), cutting a client that takes nothing for `stallTimeout`, refusing events past
 * `maxEventBytes`, writing heartbeats, stopping when the client leaves or the registry ends the
 * stream, and giving the registry slot back once the source's `return()` settled. Each reason a
 * stream ended is logged once, by `finish()`.
 *
 * Transports that own their write loop call `run(source)`; those whose library pulls from the
 * source put `ready()` before each pull and `writeEncoded()` each message.
 */
export class StreamPump<T> {
  readonly #sink: StreamSink<T>;
  readonly #options: StreamPumpOptions;
  readonly #stopping = new StreamStop();
  #stopped: StreamStopReason | undefined = undefined;
  #count = 0;
  #lastWrite = Date.now();
  #unsentSince: number | undefined = undefined;
  #lastUnsent = 0;
  #leaveClock: () => void;
  #onSlot: (() => void) | undefined;
  #finished = false;

  constructor(sink: StreamSink<T>, options: StreamPumpOptions) {
    this.#sink = sink;
    this.#options = options;
    const { heartbeat, stallTimeout } = options.config;
    const every = heartbeat > 0 ? Math.min(heartbeat, stallTimeout) : stallTimeout;
    this.#leaveClock = joinClock(every, { tick: () => this.#tick() });
    const slot = options.slot;
    if (slot !== undefined) {
      const onSlot = (): void => this.stop({ kind: 'end', reason: slot.signal.reason as HTTPError });
      if (slot.signal.aborted) onSlot();
      else {
        slot.signal.addEventListener('abort', onSlot, { once: true });
        this.#onSlot = () => slot.signal.removeEventListener('abort', onSlot);
      }
    }
  }

  /** Why the stream stopped, once it has (undefined while it runs, and after its source finished by itself). */
  get stopped(): StreamStopReason | undefined {
    return this.#stopped;
  }

  /** Stops the stream (the first reason wins): a pending `ready()` or `run()` step settles at once. */
  stop(reason: StreamStopReason): void {
    if (this.#stopped !== undefined) return;
    this.#stopped = reason;
    this.#stopping.stop();
  }

  /** What `step` settles to, or `STOPPED` as soon as the stream stops. */
  race<U>(step: PromiseLike<U>): Promise<U | typeof STOPPED> {
    return this.#stopping.race(step);
  }

  /**
   * Before each event is pulled: undefined when the sink may take one more now (the fast path),
   * else a promise that settles when it may — after a turn of the event loop every
   * `EVENTS_PER_TURN` events, once the client took what waits, or when the stream stopped (a
   * client that takes nothing for `stallTimeout` stops it as slow and is cut).
   */
  ready(): Promise<void> | undefined {
    if (this.#stopped !== undefined) return undefined;
    const sink = this.#sink;
    if (sink.needsDrain?.() ?? sink.buffered() > 0) return this.#drained();
    if (++this.#count >= EVENTS_PER_TURN) {
      this.#count = 0;
      return turn();
    }
    return undefined;
  }

  /**
   * Encodes and writes one event; an event past `maxEventBytes` is the sink's `oversized`
   * replacement, or an `EventTooLargeError`. Returns whether it was written.
   */
  write(event: T): boolean {
    return this.writeEncoded(this.#sink.encode(event));
  }

  /** Writes bytes already encoded (a library's message), with the same size rule as `write`. */
  writeEncoded(encoded: string | Uint8Array): boolean {
    if (this.#stopped !== undefined) return false;
    let chunk = encoded;
    const limit = this.#options.config.maxEventBytes;
    // Measured only when it could be too large: most events are far below the limit.
    if (typeof chunk === 'string' ? chunk.length * 3 > limit : chunk.byteLength > limit) {
      const bytes = typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.byteLength;
      if (bytes > limit) {
        const replacement = this.#sink.oversized?.(chunk, bytes);
        if (replacement === undefined) throw new EventTooLargeError(bytes, limit);
        this.#options.log(`An event of ${bytes} bytes was not sent on ${this.#options.where}: more than streams.maxEventBytes (${limit})`);
        chunk = replacement;
      }
    }
    this.#sink.write(chunk);
    this.#lastWrite = Date.now();
    return true;
  }

  /**
   * Writes every event of `source` until it is done or the stream stops. Rejects with what the
   * source (or encoding) threw; resolves otherwise — `stopped` then says whether it was stopped.
   */
  async run(source: AsyncIterator<T>): Promise<void> {
    let pending: Promise<IteratorResult<T>> | undefined;
    try {
      while (this.#stopped === undefined) {
        const wait = this.ready();
        if (wait !== undefined) await wait;
        if (this.#stopped !== undefined) return;
        pending = source.next();
        const step = await this.#stopping.race(pending);
        if (step === STOPPED) return;
        pending = undefined;
        if (step.done === true) return;
        this.write(step.value);
      }
    } finally {
      // A next() given up on may still settle: nothing waits for it any more.
      pending?.then(noop, noop);
    }
  }

  /**
   * Ends the pump's own work (its timer, its watch on the slot) and logs why the stream ended,
   * once: a slow client, or a failure (`failure`, when given) of a 5xx kind. A client that left is
   * not logged. Idempotent.
   */
  finish(failure?: { readonly error: unknown; readonly serverFault: boolean }): void {
    if (this.#finished) return;
    this.#finished = true;
    this.#leaveClock();
    this.#onSlot?.();
    const { log, where } = this.#options;
    const stop = this.#stopped;
    if (stop?.kind === 'slow') log(`Ended the stream of ${where}: ${stop.message}`);
    else if (failure !== undefined && failure.serverFault) log(`Error in the stream of ${where}`, failure.error);
  }

  /**
   * Once the stream is over, however it ended: `finish()`, then the source's `return()` (the
   * handler's `finally`) and the slot given back once that settled (or after `stallTimeout`).
   */
  release(source: AsyncIterator<unknown>): void {
    this.finish();
    const { slot, config, where, log } = this.#options;
    if (slot !== undefined) releaseStream(source, slot, config.stallTimeout, where, log);
    else void Promise.resolve()
      .then(() => source.return?.())
      .catch(noop);
  }

  /** Waits for the client to take what waits, or stops the stream as slow after `stallTimeout`. */
  async #drained(): Promise<void> {
    const sink = this.#sink;
    const { stallTimeout, maxBufferedBytes } = this.#options.config;
    let timer: NodeJS.Timeout | undefined;
    let remove: () => void = noop;
    await this.#stopping.race(
      new Promise<void>((resolve) => {
        remove = sink.onDrain(resolve);
        timer = setTimeout(() => {
          const over = sink.buffered() > maxBufferedBytes;
          this.#slow(over ? `more than ${maxBufferedBytes} bytes (streams.maxBufferedBytes) were waiting for the client` : `the client read nothing for ${stallTimeout} ms (streams.stallTimeout)`);
          resolve();
        }, stallTimeout);
      }),
    );
    clearTimeout(timer);
    remove();
    // A drain is a turn of the event loop: the share starts again.
    this.#count = 0;
  }

  #slow(message: string): void {
    if (this.#stopped !== undefined) return;
    this.stop({ kind: 'slow', message });
    this.#sink.cut(message);
  }

  /** The pump's clock: a client that has had bytes unsent for `stallTimeout` is cut; an idle stream gets its heartbeat. */
  #tick(): void {
    if (this.#stopped !== undefined) return;
    const sink = this.#sink;
    const now = Date.now();
    const { heartbeat, stallTimeout, maxBufferedBytes } = this.#options.config;
    const unsent = sink.buffered();
    // Stalled is unsent bytes and no progress: a client that reads slowly but steadily is not cut.
    if (unsent === 0) this.#unsentSince = undefined;
    else {
      if (unsent < this.#lastUnsent) this.#unsentSince = now;
      else this.#unsentSince ??= now;
      if (now - this.#unsentSince >= stallTimeout) {
        this.#slow(unsent > maxBufferedBytes ? `more than ${maxBufferedBytes} bytes (streams.maxBufferedBytes) were waiting for the client` : `the client read nothing for ${stallTimeout} ms (streams.stallTimeout)`);
        return;
      }
    }
    this.#lastUnsent = unsent;
    // Data still queued keeps the connection busy enough, and must not grow while the client does not read.
    if (heartbeat <= 0 || sink.heartbeat === undefined || unsent > 0 || now - this.#lastWrite < heartbeat / 2) return;
    sink.heartbeat();
    this.#lastWrite = now;
  }
}
