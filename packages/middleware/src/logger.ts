import { isHTTPError, type Context, type Next, type RequestContext, isHttpContext } from '@fw/core';
import { CLIENT_CLOSED_REQUEST, escapeLogText, isClientGone, stackFrames } from '@fw/core/plugin';
import { now } from './internal/builtins.js';
import { useColors } from './internal/colors.js';
import type { LoggerConfig, LogTarget } from './types.js';

/** The logging middleware `logger()` returns (HTTP only: it lets gRPC calls and other protocols' contexts through untouched). */
export type LoggerMiddleware = (ctx: Context, next: Next) => Promise<void>;

const GREEN = '\u001b[32m';
const YELLOW = '\u001b[33m';
const RED = '\u001b[31m';
const CYAN = '\u001b[36m';
const RESET = '\u001b[39m';
/** The status of an upgrade the handshake accepted. */
const SWITCHING_PROTOCOLS = 101;

/**
 * Logs one line per request: `[<status>] <method> <path> - <duration>ms`; the status is green
 * for 2xx, cyan for 3xx, yellow for 4xx, red for 5xx when colours are on (as node decides for a
 * terminal: FORCE_COLOR, NO_COLOR, NODE_DISABLE_COLORS, TTY). A thrown error logs
 * `[ERROR] <method> <path> - <duration>ms <error text>` followed by the stack (4xx HTTPErrors
 * without it when `clientErrorStacks: false`), and is re-thrown, so the error handler still
 * answers. A request whose client cancelled or left logs the plain line `[499] <method> <path> -
 * <duration>ms`, without a stack. A WebSocket connection its middleware let through (GraphQL over
 * WebSocket runs it at `connection_init`) logs the `101` of its handshake. Control characters from the request (method, path, error messages) are written as
 * visible escapes (`\n`, `\x1b`), so no request can forge a log line or drive the terminal.
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
  const clientErrorStacks = config.clientErrorStacks ?? true;
  const colors = config.colors ?? useColors(target, process.env);
  const emit = typeof target === 'function' ? target : (line: string) => target.write(`${line}\n`);
  const write = (line: string): void => {
    try {
      emit(line);
    } catch {
      // A broken log target must not turn a served request into a failed one.
    }
  };

  // Typed on every context because the gRPC package runs the app's middleware on its calls too.
  return async function logger(ctx: RequestContext, next: Next): Promise<void> {
    if (!isHttpContext(ctx)) return next();
    const start = now();
    try {
      await next();
    } catch (err) {
      // A client that cancelled or left is no error: the plain line of the status it is recorded with.
      if (isClientGone(err, ctx)) {
        const tag = `[${CLIENT_CLOSED_REQUEST}]`;
        write(`${colors ? paint(CLIENT_CLOSED_REQUEST, tag) : tag} ${requestLine(ctx)} - ${elapsed(start)}ms`);
        throw err;
      }
      const head = colors ? `${RED}[ERROR]${RESET}` : '[ERROR]';
      // The spec logs every error with its stack; `clientErrorStacks: false` spares the log the
      // stacks of 4xx HTTPErrors, answers given on purpose (401, 404, 429) that any client can cause.
      const withStack = clientErrorStacks || !(isHTTPError(err) && err.statusCode < 500);
      write(`${head} ${requestLine(ctx)} - ${elapsed(start)}ms ${errorText(err, withStack)}`);
      throw err;
    }
    // Core settles the status before `next()` resolves: a request nobody answered reads 404 here.
    // Only a WebSocket's context reads 0: the app's middleware runs on it once the connection is
    // up (GraphQL's connection_init), after the handshake answered 101, and nothing is written since.
    let status = ctx.statusCode;
    if (status === 0 && ctx.req.headers.upgrade !== undefined) status = SWITCHING_PROTOCOLS;
    const tag = `[${status}]`;
    write(`${colors ? paint(status, tag) : tag} ${requestLine(ctx)} - ${elapsed(start)}ms`);
  };
}

function requestLine(ctx: Context): string {
  return `${escapeLogText(ctx.method)} ${escapeLogText(ctx.path)}`;
}

function elapsed(start: number): number {
  return Math.round(now() - start);
}

function paint(status: number, text: string): string {
  const colour = status >= 500 ? RED : status >= 400 ? YELLOW : status >= 300 ? CYAN : status >= 200 ? GREEN : '';
  return colour === '' ? text : `${colour}${text}${RESET}`;
}

/**
 * `Name[ status]: message`, then the stack frames when asked; other thrown values as text. All
 * of it escaped: only the line breaks between stack frames are written as they are. Never throws
 * (an error whose getters throw is still logged, and the original goes on to the error handler).
 */
function errorText(err: unknown, withStack: boolean): string {
  try {
    return describe(err, withStack);
  } catch {
    return '[an error that could not be described]';
  }
}

function describe(err: unknown, withStack: boolean): string {
  if (err instanceof Error) {
    const name = String(err.name);
    const message = String(err.message);
    const head = escapeLogText(`${name}${isHTTPError(err) ? ` ${err.statusCode}` : ''}: ${message}`);
    const stack: unknown = err.stack;
    if (!withStack || typeof stack !== 'string') return head;
    // Frames get lines of their own only in a stack V8 wrote for this message: one whose message
    // changed or was cut since may hold request text that looks like frames or log lines.
    const frames = stackFrames(stack, name, message);
    if (frames === undefined) return `${head}\n    [stack] ${escapeLogText(stack)}`;
    return frames.lines.length === 0 ? head : `${head}\n${frames.lines.map(escapeLogText).join('\n')}`;
  }
  let text: string;
  try {
    text = typeof err === 'string' ? err : JSON.stringify(err) ?? String(err);
  } catch {
    text = String(err);
  }
  return escapeLogText(text);
}
