import { escapeLogText, formatLogValue } from './log-format.js';

/** Receives a server log entry: a message and, for failures, what was thrown. */
export type LogFunction = (message: string, error?: unknown) => void;

/** The default log: one escaped entry on stderr (an error's stack frames on their own lines). */
export function defaultLog(message: string, error?: unknown): void {
  console.error(error === undefined ? message : `${message} ${formatLogValue(error)}`);
}

/**
 * Wraps a log function the way the application wraps its `onLog`: the message is escaped (it may
 * hold a path from the wire), and a log function that throws neither crashes the caller nor loses
 * the entry (it goes to stderr with the failure).
 * @example
 * const log = createLogger(config.onLog);
 * log(`Error on ${ctx.method} ${ctx.path}`, err);
 */
export function createLogger(log: LogFunction = defaultLog): LogFunction {
  return (message, error) => {
    const text = escapeLogText(message);
    try {
      log(text, error);
    } catch (failure) {
      try {
        console.error(`${text}${error === undefined ? '' : ` ${formatLogValue(error)}`} (onLog threw: ${formatLogValue(failure)})`);
      } catch {
        // Nowhere left to report to.
      }
    }
  };
}
