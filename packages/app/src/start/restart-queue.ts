import { StartError } from './errors.js';

/** What a `RestartQueue` runs and reports to. */
export interface RestartQueueOptions {
  /** One rolling restart: replaces every worker that was running when it began. */
  round(): Promise<void>;
  /** Whether the workers are being stopped (no round is begun then). */
  stopping(): boolean;
  /** Called once no round runs and none is waiting. */
  idle(): void;
  log(message: string): void;
}

/** Rolling restart rounds, one at a time. */
export interface RestartQueue {
  /**
   * Begins a round, or, during one, asks for one more after it: the module may have changed since
   * the current round forked some of its workers. Any number of requests during a round make one
   * more round. Resolves when the round that serves this request ends; rejects when it fails.
   */
  request(cause?: string): Promise<void>;
  /** Settles once no round runs or waits; undefined when none does. Never rejects. */
  readonly busy: Promise<void> | undefined;
}

/** Makes the queue that runs `round` for `fw start`'s SIGHUP and `restart()`. */
export function restartQueue(options: RestartQueueOptions): RestartQueue {
  let busy: Promise<void> | undefined;
  let again: { done: Promise<void>; resolve: () => void; reject: (error: unknown) => void } | undefined;

  const run = async (first: Promise<void>): Promise<void> => {
    let current = first;
    for (;;) {
      const error = await current.then(
        () => undefined,
        (err: unknown) => (err instanceof Error ? err.message : String(err)),
      );
      const next = again;
      again = undefined;
      const more = next !== undefined && !options.stopping();
      const ended = error === undefined ? 'restarted every worker' : `restart failed: ${error}`;
      options.log(more ? `${ended}; one more round follows (requested during this one)` : ended);
      if (next === undefined) break;
      if (!more) {
        next.reject(new StartError('stopping: the restart requested during the last one did not run'));
        break;
      }
      current = options.round();
      current.then(next.resolve, next.reject);
    }
    busy = undefined;
    options.idle();
  };

  const request = (cause?: string): Promise<void> => {
    const prefix = cause === undefined ? '' : `${cause}: `;
    if (busy === undefined) {
      options.log(`${prefix}restarting the workers one at a time`);
      const first = options.round();
      busy = run(first);
      return first;
    }
    if (again !== undefined) {
      options.log(`${prefix}restart requested during a restart: one more round is already queued`);
      return again.done;
    }
    let resolve!: () => void;
    let reject!: (error: unknown) => void;
    const done = new Promise<void>((resolveDone, rejectDone) => {
      resolve = resolveDone;
      reject = rejectDone;
    });
    // A caller that drops the promise must not make an unhandled rejection; one that keeps it still sees it.
    done.catch(() => undefined);
    again = { done, resolve, reject };
    options.log(`${prefix}restart requested during a restart: one more round will follow`);
    return done;
  };

  return {
    request,
    get busy() {
      return busy;
    },
  };
}
