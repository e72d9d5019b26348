import type { ResolvedStreamsConfig } from './config.js';
import { HTTPError } from './http-error.js';
import type { LogFunction } from './internal/logging.js';

/** What a transport tells the registry when a stream opens (`host.openStream()`). */
export interface StreamOpenOptions {
  /** The protocol serving the stream (`http`, or the protocol package's name). */
  readonly protocol: string;
  /** Whose stream it is, for `streams.maxPerClient`: the client address (`ctx.ip`) unless the transport knows better. */
  readonly clientKey: string;
  /**
   * Called by the registry when the stream must end: the app is closing, or the stream reached
   * `streams.maxDuration`. `reason` is a 503 saying which. The transport ends the stream with its
   * reconnect hint (SSE `retry:`, a protocol's "complete" or UNAVAILABLE) and then calls `close()`.
   */
  end(reason: HTTPError): void;
}

/** An open stream, as the registry lends it to its transport. */
export interface OpenStream {
  /** Aborts (with the 503 passed to `end`) when the registry ends the stream. */
  readonly signal: AbortSignal;
  /** Tells the registry the stream ended, for any reason; the app's `close()` waits for this. Idempotent. */
  close(): void;
}

interface Entry {
  readonly key: string;
  readonly options: StreamOpenOptions;
  readonly controller: AbortController;
  timer: NodeJS.Timeout | undefined;
}

/**
 * The open streams of one application, whatever their protocol: limits per client and in total, the
 * maximum duration, and ending them all when the app closes. Transports call `open` before their
 * first byte, so a refusal (429, 503) is still a real status.
 */
export class StreamRegistry {
  readonly #config: ResolvedStreamsConfig;
  readonly #open = new Set<Entry>();
  readonly #perClient = new Map<string, number>();
  #closing = false;
  #emptied: (() => void) | undefined;

  constructor(config: ResolvedStreamsConfig) {
    this.#config = config;
  }

  /** The limits and timing every transport reads. */
  get config(): ResolvedStreamsConfig {
    return this.#config;
  }

  /** How many streams are open now. */
  get size(): number {
    return this.#open.size;
  }

  /** Registers a stream; throws a 429 past a limit, a 503 while the app closes. */
  open(options: StreamOpenOptions): OpenStream {
    if (typeof options?.end !== 'function') throw new TypeError('openStream expects { protocol, clientKey, end(reason) }');
    if (this.#closing) throw new HTTPError(503, 'Server is shutting down', undefined, { headers: { 'retry-after': String(Math.ceil(this.#config.retry / 1000)) } });
    const key = String(options.clientKey);
    const count = this.#perClient.get(key) ?? 0;
    if (count >= this.#config.maxPerClient) throw new HTTPError(429, `Too many open streams for this client (at most ${this.#config.maxPerClient})`);
    if (this.#open.size >= this.#config.maxOpen) throw new HTTPError(429, `Too many open streams (at most ${this.#config.maxOpen})`);
    const entry: Entry = { key, options, controller: new AbortController(), timer: undefined };
    this.#open.add(entry);
    this.#perClient.set(key, count + 1);
    const maxDuration = this.#config.maxDuration;
    if (maxDuration > 0) {
      entry.timer = setTimeout(() => this.#end(entry, new HTTPError(503, `The stream reached its maximum duration (${maxDuration} ms); reconnect to continue`)), maxDuration);
      entry.timer.unref();
    }
    let closed = false;
    return {
      signal: entry.controller.signal,
      close: () => {
        if (closed) return;
        closed = true;
        this.#remove(entry);
      },
    };
  }

  /** Ends every open stream (their `end` hooks) and waits until each has closed, at most `timeout` ms; new ones are refused. */
  async closeAll(timeout: number): Promise<void> {
    this.#closing = true;
    if (this.#open.size === 0) return;
    const emptied = new Promise<void>((resolve) => {
      this.#emptied = resolve;
    });
    const reason = new HTTPError(503, 'Server is shutting down; reconnect');
    for (const entry of [...this.#open]) this.#end(entry, reason);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeout);
      timer.unref();
    });
    await Promise.race([emptied, late]);
    clearTimeout(timer);
  }

  /** Accepts streams again (after `closeAll`, when the app listens again). */
  reopen(): void {
    this.#closing = false;
  }

  #end(entry: Entry, reason: HTTPError): void {
    if (!this.#open.has(entry)) return;
    if (entry.timer !== undefined) clearTimeout(entry.timer);
    entry.timer = undefined;
    if (!entry.controller.signal.aborted) entry.controller.abort(reason);
    try {
      entry.options.end(reason);
    } catch {
      // A transport whose end hook throws still has its signal aborted; it closes when it can.
    }
  }

  #remove(entry: Entry): void {
    if (!this.#open.delete(entry)) return;
    if (entry.timer !== undefined) clearTimeout(entry.timer);
    const count = (this.#perClient.get(entry.key) ?? 1) - 1;
    if (count <= 0) this.#perClient.delete(entry.key);
    else this.#perClient.set(entry.key, count);
    if (this.#open.size === 0 && this.#emptied !== undefined) {
      this.#emptied();
      this.#emptied = undefined;
    }
  }
}

/**
 * What a transport does once its stream is over, however it ended: runs the source's `return()`
 * (the handler's `finally`) and gives the registry slot back once that settled, or after `limit` ms
 * (`streams.stallTimeout`) for a handler that ignores `ctx.signal` while it waits — logged, naming
 * `where`, as is a `return()` that throws. Never throws or rejects.
 */
export function releaseStream(source: AsyncIterator<unknown>, slot: OpenStream, limit: number, where: string, log: LogFunction): void {
  let returned: Promise<unknown>;
  try {
    returned = Promise.resolve(source.return?.());
  } catch (err) {
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- passes on what was thrown, as thrown
    returned = Promise.reject(err);
  }
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), limit);
    timer.unref();
  });
  Promise.race([returned.then(() => 'done' as const), late]).then(
    (outcome) => {
      clearTimeout(timer);
      if (outcome === 'late') log(`The stream handler of ${where} had not finished ${limit} ms after its stream ended (does it wait without ctx.signal?)`);
      slot.close();
    },
    (err: unknown) => {
      clearTimeout(timer);
      log(`The stream handler of ${where} threw while finishing`, err);
      slot.close();
    },
  );
}
