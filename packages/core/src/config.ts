import type { ContextSettings, TrustProxy } from './context.js';
import { checkTimeout } from './deadline.js';
import { DEFAULT_BODY_LIMIT } from './internal/body.js';
import { DEFAULT_MAX_JSON_DEPTH } from './internal/json.js';
import type { LogFunction } from './internal/logging.js';
import { DEFAULT_MAX_KEYS } from './internal/query.js';
import { resolveMultipart, type MultipartConfig } from './multipart.js';
import type { TimeoutConfig } from './server.js';

/** Options of `new Application()` (and of `createApp` in `@fw/app`). */
export interface ApplicationConfig {
  /** The port `listen()` binds when called without one. @default 0 (a free port, chosen by the system) */
  port?: number;
  /** The host `listen()` binds when called without one. @default every interface (`::`, or `0.0.0.0` without IPv6) */
  host?: string;
  /** Largest request body in bytes; more is answered 413. @default 1048576 (1 MiB) */
  bodyLimit?: number;
  /**
   * Decompress request bodies sent with `Content-Encoding: gzip`, `deflate` or `br` (as Express's
   * body-parser does), `bodyLimit` holding for the decompressed size, so a "zip bomb" is a 413;
   * another coding is a 415. `false` answers every compressed body 415 (as Fastify does).
   * @default true
   */
  decompressBody?: boolean;
  /** Most keys in a query string or URL-encoded body; more is answered 400. @default 1000 */
  maxQueryKeys?: number;
  /** Longest request URL (path and query); longer is answered 414. @default 8192 */
  maxUrlLength?: number;
  /** Deepest nesting of objects and arrays in a JSON body; deeper is answered 400. @default 64 */
  maxJsonDepth?: number;
  /**
   * Answer a known path requested with a method it has no route for with `405` and `Allow`, and
   * `OPTIONS` on it with `204` and `Allow`; `false` answers both `404` like an unknown path. @default true
   */
  methodNotAllowed?: boolean;
  /** Which `X-Forwarded-For` hops `ctx.ip` believes. @default false (the socket address) */
  trustProxy?: TrustProxy;
  /** Server time-outs. */
  timeouts?: TimeoutConfig;
  /**
   * The default deadline of every REST route (operations' routes included) without a `timeout` of its
   * own, in ms from when the route matched: past it, `ctx.signal` aborts and the answer is 504
   * (`deadline_exceeded`). 0: none.
   * @default 0 (none)
   */
  timeout?: number;
  /** How long `close()` waits for in-flight requests before cutting connections, in ms. @default 10000 */
  closeTimeout?: number;
  /** Where server errors (5xx causes, failures in error handlers) are reported. @default console.error */
  onLog?: LogFunction;
  /**
   * While listening, report unhandled promise rejections to `onLog` instead of letting Node end the
   * process; only when the process has no `unhandledRejection` listener of its own. @default true
   */
  logUnhandledRejections?: boolean;
  /** Limits and timing of streams (server-sent events, and every protocol's streams). */
  streams?: StreamsConfig;
  /** Limits of `multipart/form-data` bodies (`ctx.multipart()`, `ctx.formData()`, operations with file fields) and where uploads are saved. */
  multipart?: MultipartConfig;
}

/** Limits and timing of streams, shared by every transport (`ApplicationConfig.streams`). */
export interface StreamsConfig {
  /** How often an idle stream sends a keep-alive (an SSE comment line, a WebSocket ping), in ms; 0 sends none. @default 15000 */
  heartbeat?: number;
  /** The reconnection delay a stream tells its client (SSE `retry:`), in ms. @default 3000 */
  retry?: number;
  /** Open streams per client key (the client address behind `trustProxy`); one more is answered 429. @default 100 */
  maxPerClient?: number;
  /** Open streams in total; one more is answered 429. @default 10000 */
  maxOpen?: number;
  /** The longest a stream stays open, in ms; it is then ended with a reconnect hint. 0: no limit. @default 3600000 (one hour) */
  maxDuration?: number;
  /** The largest event, in bytes once serialised; a larger one ends the stream with an internal error. @default 1048576 (1 MiB) */
  maxEventBytes?: number;
  /** The most bytes a stream holds unsent for a client that reads slowly; past this, the stream is ended. @default 1048576 (1 MiB) */
  maxBufferedBytes?: number;
  /** How long a stream waits for a client that stopped reading (its data unsent) before ending it, in ms. @default 30000 */
  stallTimeout?: number;
}

/** `StreamsConfig` with every default applied. */
export type ResolvedStreamsConfig = Readonly<Required<StreamsConfig>>;

/** The defaults of `ApplicationConfig.streams`. */
export const STREAM_DEFAULTS: ResolvedStreamsConfig = Object.freeze({
  heartbeat: 15_000,
  retry: 3_000,
  maxPerClient: 100,
  maxOpen: 10_000,
  maxDuration: 3_600_000,
  maxEventBytes: 1_048_576,
  maxBufferedBytes: 1_048_576,
  stallTimeout: 30_000,
});

/** The configuration with every default applied and every number checked. */
export interface ResolvedConfig {
  port: number;
  host: string | undefined;
  settings: ContextSettings;
  maxUrlLength: number;
  methodNotAllowed: boolean;
  closeTimeout: number;
  timeouts: Required<TimeoutConfig>;
  /** The default route deadline, ms; undefined for none. */
  timeout: number | undefined;
  logUnhandledRejections: boolean;
  streams: ResolvedStreamsConfig;
}

/** The longest delay a node timer takes (about 24.8 days); longer ones fire at once. */
const MAX_TIMER = 2_147_483_647;

/** A duration in ms where 0 turns the feature off. */
function duration(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || Number.isNaN(value) || value < 0) throw new TypeError(`${name} must be a number of milliseconds (0 for none), got ${String(value)}`);
  return Math.min(value, MAX_TIMER);
}

/** Applies the stream defaults; a number out of range throws a TypeError naming the option. */
export function resolveStreams(config: StreamsConfig | undefined): ResolvedStreamsConfig {
  if (config === undefined) return STREAM_DEFAULTS;
  if (typeof config !== 'object' || config === null) throw new TypeError(`streams must be an object, got ${config === null ? 'null' : typeof config}`);
  const d = STREAM_DEFAULTS;
  return Object.freeze({
    heartbeat: duration('streams.heartbeat', config.heartbeat, d.heartbeat),
    retry: positiveInteger('streams.retry', config.retry, d.retry),
    maxPerClient: positiveInteger('streams.maxPerClient', config.maxPerClient, d.maxPerClient),
    maxOpen: positiveInteger('streams.maxOpen', config.maxOpen, d.maxOpen),
    maxDuration: duration('streams.maxDuration', config.maxDuration, d.maxDuration),
    maxEventBytes: positiveInteger('streams.maxEventBytes', config.maxEventBytes, d.maxEventBytes),
    maxBufferedBytes: positiveInteger('streams.maxBufferedBytes', config.maxBufferedBytes, d.maxBufferedBytes),
    stallTimeout: Math.min(positive('streams.stallTimeout', config.stallTimeout, d.stallTimeout), MAX_TIMER),
  });
}

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !(value > 0)) throw new TypeError(`${name} must be a positive number, got ${String(value)}`);
  return value;
}

function positiveInteger(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) throw new TypeError(`${name} must be a positive integer, got ${String(value)}`);
  return value;
}

/** A port to listen on: an integer from 0 (any free port) to 65535. */
function portNumber(value: number | undefined): number {
  if (value === undefined) return 0;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > 65535) {
    const given: unknown = value;
    throw new TypeError(`port must be an integer from 0 to 65535, got ${typeof given === 'string' ? `"${given}"` : String(given)}`);
  }
  return value;
}

/** Applies the defaults; a number that is not positive throws a TypeError naming the option. */
export function resolveConfig(config: ApplicationConfig): ResolvedConfig {
  if (config.host !== undefined && typeof config.host !== 'string') throw new TypeError(`host must be a string, got ${typeof config.host}`);
  const bodyLimit = positive('bodyLimit', config.bodyLimit, DEFAULT_BODY_LIMIT);
  const maxKeys = positive('maxQueryKeys', config.maxQueryKeys, DEFAULT_MAX_KEYS);
  const maxUrlLength = positive('maxUrlLength', config.maxUrlLength, 8192);
  const maxJsonDepth = positiveInteger('maxJsonDepth', config.maxJsonDepth, DEFAULT_MAX_JSON_DEPTH);
  const decompressBody = config.decompressBody ?? true;
  if (typeof decompressBody !== 'boolean') throw new TypeError(`decompressBody must be a boolean, got ${typeof decompressBody}`);
  return {
    port: portNumber(config.port),
    host: config.host,
    settings: { bodyLimit, maxKeys, maxJsonDepth, trustProxy: config.trustProxy ?? false, multipart: resolveMultipart(config.multipart), decompressBody },
    maxUrlLength,
    methodNotAllowed: config.methodNotAllowed ?? true,
    closeTimeout: positive('closeTimeout', config.closeTimeout, 10_000),
    timeouts: {
      headers: positive('timeouts.headers', config.timeouts?.headers, 10_000),
      request: positive('timeouts.request', config.timeouts?.request, 30_000),
      keepAlive: positive('timeouts.keepAlive', config.timeouts?.keepAlive, 5_000),
    },
    timeout: checkTimeout('timeout', config.timeout) || undefined,
    logUnhandledRejections: config.logUnhandledRejections ?? true,
    streams: resolveStreams(config.streams),
  };
}
