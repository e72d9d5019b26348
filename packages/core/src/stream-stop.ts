/** What `StreamStop.race()` resolves with once the stream is stopped. */
export const STOPPED: unique symbol = Symbol('stream stopped');

/**
 * The stop of a stream that its loop waits on beside each step: `race(step)` settles with the step,
 * or with `STOPPED` as soon as `stop()` is called. It replaces `Promise.race([step, stopped])`,
 * which adds a reaction to the long-lived `stopped` promise on every call, kept until the stream
 * ends — about 300 bytes an event, so a stream of a million events held 300 MB.
 */
export class StreamStop {
  #stopped = false;
  readonly #waiting = new Set<(value: typeof STOPPED) => void>();

  /** Whether `stop()` was called. */
  get stopped(): boolean {
    return this.#stopped;
  }

  /** Stops: every pending `race()` settles with `STOPPED`, and every later one at once. */
  stop(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    for (const wake of this.#waiting) wake(STOPPED);
    this.#waiting.clear();
  }

  /** What `step` settles to, or `STOPPED` once `stop()` is called, whichever comes first. */
  race<T>(step: PromiseLike<T>): Promise<T | typeof STOPPED> {
    if (this.#stopped) return Promise.resolve(STOPPED);
    return new Promise<T | typeof STOPPED>((resolve, reject) => {
      const waiting = this.#waiting;
      waiting.add(resolve);
      step.then(
        (value) => {
          waiting.delete(resolve);
          resolve(value);
        },
        (err: unknown) => {
          waiting.delete(resolve);
          // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- passes on what the step rejected with, as it is
          reject(err);
        },
      );
    });
  }
}
