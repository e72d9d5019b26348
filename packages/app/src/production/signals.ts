import { constants } from 'node:os';

/** Options of `createApp`'s `shutdown`: what a termination signal does. */
export interface ShutdownOptions {
  /** The signals that shut the app down in order; a second one exits at once. @default ['SIGTERM', 'SIGINT'] */
  signals?: NodeJS.Signals[];
  /**
   * How long the app stays up not ready before it drains, in ms, so that load balancers and
   * Kubernetes (which probe readiness every few seconds) stop sending it requests first. Unset,
   * Ctrl+C in a terminal (SIGINT while stdin is a TTY) drains at once: nothing routes to a
   * program someone is running by hand. Set, it holds for every signal.
   * @default 5000 (0 for SIGINT from a terminal)
   */
  delay?: number;
  /** Runs after the drain and the telemetry flush, before the process exits (close your pools here). @default undefined */
  beforeExit?: () => unknown;
}

/** The defaults of `shutdown`. */
export const SHUTDOWN_DEFAULTS = Object.freeze({ signals: Object.freeze(['SIGTERM', 'SIGINT'] as NodeJS.Signals[]), delay: 5000 });

/** An app a signal shuts down. */
export interface SignalTarget {
  /** The whole order: not ready, the delay, the drain, the flush; `delay` as `delayOn` gives it. */
  shutdown(delay: number): Promise<void>;
  /** Called after `shutdown()` settled, before the exit. */
  readonly beforeExit: (() => unknown) | undefined;
  /** Where an error during shutdown is reported, and the line that says a signal started it. */
  log(message: string, error?: unknown): void;
  /** How long the shutdown `signal` starts stays up not ready before it drains, in ms (said in that line). */
  delayOn(signal: NodeJS.Signals): number;
  /** Say nothing on the signal: a process whose parent says it for every child (an `fw start` worker). */
  readonly quiet?: boolean;
}

/**
 * The one line a termination signal logs: what happens now, how long it takes, and how not to wait,
 * so that Ctrl+C is never a silent pause.
 * @example
 * shutdownLine('SIGINT', 5000); // 'SIGINT: shutting down: not ready now, draining in 5 s, then exiting (press Ctrl+C again to exit now)'
 */
export function shutdownLine(signal: NodeJS.Signals, delay: number): string {
  const wait = delay <= 0 ? 'draining' : `not ready now, draining in ${delay % 1000 === 0 ? `${delay / 1000} s` : `${delay} ms`}`;
  const again = signal === 'SIGINT' ? 'press Ctrl+C again' : `send ${signal} again`;
  return `${signal}: shutting down: ${wait}, then exiting (${again} to exit now)`;
}

/** Every listening app that shuts down on a signal, by signal (one process listener per signal for all of them). */
const watched = new Map<NodeJS.Signals, Set<SignalTarget>>();
const listeners = new Map<NodeJS.Signals, () => void>();
let stopping: NodeJS.Signals | undefined;

/** The conventional exit code of a process ended by `signal`: 128 + its number (SIGINT 130, SIGTERM 143). */
export function signalExitCode(signal: NodeJS.Signals): number {
  return 128 + (constants.signals[signal] ?? 15);
}

/** A test seam: how the process ends. */
export const processExit = { exit: (code: number): void => process.exit(code) };

/**
 * Shuts `target` down when one of `signals` arrives: every app watching that signal shuts down
 * (together), then the process exits 0 (1 if a shutdown failed). A second signal while shutting
 * down exits at once with 128 + its number. Returns the function that stops watching (when the app
 * closes otherwise).
 */
export function watchSignals(target: SignalTarget, signals: readonly NodeJS.Signals[]): () => void {
  for (const signal of signals) {
    let set = watched.get(signal);
    if (set === undefined) watched.set(signal, (set = new Set()));
    set.add(target);
    if (!listeners.has(signal)) {
      const listener = (): void => onSignal(signal);
      listeners.set(signal, listener);
      process.on(signal, listener);
    }
  }
  return () => {
    for (const signal of signals) {
      const set = watched.get(signal);
      set?.delete(target);
      // While stopping, the listener stays: a second signal must still exit at once.
      if (set !== undefined && set.size === 0 && stopping === undefined) {
        watched.delete(signal);
        const listener = listeners.get(signal);
        if (listener !== undefined) process.removeListener(signal, listener);
        listeners.delete(signal);
      }
    }
  };
}

function onSignal(signal: NodeJS.Signals): void {
  if (stopping !== undefined) {
    // The operator (or the orchestrator's final notice) does not want to wait.
    processExit.exit(signalExitCode(signal));
    return;
  }
  stopping = signal;
  const targets = [...(watched.get(signal) ?? [])];
  const delays = targets.map((target) => target.delayOn(signal));
  targets.forEach((target, i) => {
    if (target.quiet !== true) target.log(shutdownLine(signal, delays[i]!));
  });
  void Promise.all(targets.map((target, i) => stop(target, delays[i]!))).then((results) => processExit.exit(results.every(Boolean) ? 0 : 1));
}

/**
 * The delay a signal starts the shutdown with: `configured` when set; else none for Ctrl+C in a
 * terminal (SIGINT while stdin is a TTY), the default otherwise.
 */
export function shutdownDelay(signal: NodeJS.Signals, configured: number | undefined, terminal = process.stdin.isTTY === true): number {
  if (configured !== undefined) return configured;
  return signal === 'SIGINT' && terminal ? 0 : SHUTDOWN_DEFAULTS.delay;
}

async function stop(target: SignalTarget, delay: number): Promise<boolean> {
  let ok = true;
  try {
    await target.shutdown(delay);
  } catch (err) {
    ok = false;
    target.log('Error while shutting down', err);
  }
  try {
    await target.beforeExit?.();
  } catch (err) {
    ok = false;
    target.log('The shutdown beforeExit hook threw', err);
  }
  return ok;
}
