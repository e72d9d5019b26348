import { performance } from 'node:perf_hooks';
import { isHTTPError, type Context, type Next } from '@fw/core';
import type { LoggerConfig, LogTarget } from './types.js';

/** The logging middleware `logger()` returns (HTTP only: it lets gRPC calls through untouched). */
export type LoggerMiddleware = (ctx: Context, next: Next) => Promise<void>;

const GREEN = '\u001b[32m';
const YELLOW = '\u001b[33m';
const RED = '\u001b[31m';
const CYAN = '\u001b[36m';
const RESET = '\u001b[39m';

/**
 * Logs one line per request: `[<status>] <method> <path> - <duration>ms`; the status is green
 * for 2xx, cyan for 3xx, yellow for 4xx, red for 5xx when colours are on. A thrown error logs
 * `[ERROR] <method> <path> - <duration>ms <error text>` followed by the stack (not for 4xx
 * HTTPErrors unless `clientErrorStacks`), and is re-thrown, so the error handler still answers.
 * @example
 * app.use(logger());                                  // to stdout
 * app.use(logger({ stream: (line) => lines.push(line) }));
 */
export function logger(config: LoggerConfig = {}): LoggerMiddleware {
  const target: LogTarget = config.stream ?? process.stdout;
  if (typeof target !== 'function' && (target === null || typeof target !== 'object' || typeof target.write !== 'function')) {
    throw new TypeError('logger: stream must have a write(chunk) method or be a function (line) => void');
  }
  if (config.colors !== undefined && typeof config.colors !== 'boolean') throw new TypeError('logger: colors must be a boolean');
  if (config.clientErrorStacks !== undefined && typeof config.clientErrorStacks !== 'boolean') throw new TypeError('logger: clientErrorStacks must be a boolean');
  const clientErrorStacks = config.clientErrorStacks ?? false;
  const colors = config.colors ?? (typeof target !== 'function' && target.isTTY === true && !process.env.NO_COLOR);
  const emit = typeof target === 'function' ? target : (line: string) => target.write(`${line}\n`);
  const write = (line: string): void => {
    try {
      emit(line);
    } catch {
      // A broken log target must not turn a served request into a failed one.
    }
  };

  return async function logger(ctx: Context, next: Next): Promise<void> {
    if (ctx.protocol === 'grpc') return next();
    const start = performance.now();
    try {
      await next();
    } catch (err) {
      const head = colors ? `${RED}[ERROR]${RESET}` : '[ERROR]';
      // A 4xx HTTPError is an answer given on purpose (401, 404, 429): its stack is only the
      // middleware chain, and logging it for every rejected request would flood the log.
      const withStack = clientErrorStacks || !(isHTTPError(err) && err.statusCode < 500);
      write(`${head} ${ctx.method} ${ctx.path} - ${elapsed(start)}ms ${errorText(err, withStack)}`);
      throw err;
    }
    // Nothing answered yet means the framework will send its 404.
    const status = ctx.statusCode || 404;
    const tag = `[${status}]`;
    write(`${colors ? paint(status, tag) : tag} ${ctx.method} ${ctx.path} - ${elapsed(start)}ms`);
  };
}

function elapsed(start: number): number {
  return Math.round(performance.now() - start);
}

function paint(status: number, text: string): string {
  const colour = status >= 500 ? RED : status >= 400 ? YELLOW : status >= 300 ? CYAN : status >= 200 ? GREEN : '';
  return colour === '' ? text : `${colour}${text}${RESET}`;
}

/** `Name[ status]: message`, then the stack frames when asked; other thrown values as text. */
function errorText(err: unknown, withStack: boolean): string {
  if (err instanceof Error) {
    const head = `${err.name}${isHTTPError(err) ? ` ${err.statusCode}` : ''}: ${err.message}`;
    if (!withStack || err.stack === undefined) return head;
    const frames = err.stack.split('\n').filter((line) => /^\s+at /.test(line));
    return frames.length === 0 ? head : `${head}\n${frames.join('\n')}`;
  }
  try {
    return typeof err === 'string' ? err : JSON.stringify(err) ?? String(err);
  } catch {
    return String(err);
  }
}
