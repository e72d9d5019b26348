import { errorCodeOf, isErrorCode, type ErrorCode } from './error-code.js';

/**
 * An error that carries an HTTP status and a neutral `code`. Throw it from handlers and middleware:
 * HTTP answers with `statusCode`, the other protocols with their form of `code`.
 * @example
 * throw new HTTPError(409, 'Email already registered', undefined, { code: 'already_exists' });
 */
export class HTTPError extends Error {
  /** The HTTP status code sent to the client. */
  readonly statusCode: number;
  /** What went wrong, which every protocol but HTTP answers with (each in its own form). @default the status's code (`errorCodeOf(statusCode)`) */
  readonly code: ErrorCode;
  /** Optional extra data, sent as `details` in the error body. */
  readonly details?: unknown;
  /** True when the message is safe to show to clients (always true for 4xx, and for 5xx thrown on purpose). */
  readonly expose: boolean;
  /** Response headers sent with the error (e.g. `WWW-Authenticate` on a 401). */
  readonly headers?: Readonly<Record<string, string>>;

  constructor(statusCode: number, message?: string, details?: unknown, options?: HTTPErrorOptions) {
    super(message ?? statusText(statusCode), options?.cause !== undefined ? { cause: options.cause } : undefined);
    this.name = 'HTTPError';
    this.statusCode = Number.isInteger(statusCode) && statusCode >= 400 && statusCode <= 599 ? statusCode : 500;
    // A code that is not one (a JavaScript caller's typo) is ignored, as a status outside 400..599 is.
    const code = options?.code;
    this.code = isErrorCode(code) ? code : errorCodeOf(this.statusCode);
    if (details !== undefined) this.details = details;
    this.expose = options?.expose ?? true;
    if (options?.headers !== undefined) this.headers = options.headers;
  }
}

/** Extra options of `new HTTPError()`. */
export interface HTTPErrorOptions {
  /** What went wrong, when the status alone does not say it (a 409 that is `already_exists` or `aborted`). @default `errorCodeOf(statusCode)` */
  code?: ErrorCode;
  /** The error this one wraps. */
  cause?: unknown;
  /** Whether the message may be shown to clients. @default true */
  expose?: boolean;
  /** Response headers to send with the error. */
  headers?: Record<string, string>;
}

/** Brands `ValidationError` (named so, not `HTTPError`), so that an error from another copy of this package is recognised. */
export const VALIDATION_ERROR: unique symbol = Symbol.for('fw.validation-error');

/** Whether a value is an HTTPError (also across copies of this package). Never throws. */
export function isHTTPError(value: unknown): value is HTTPError {
  try {
    return (
      value instanceof HTTPError ||
      (value instanceof Error &&
        (value.name === 'HTTPError' || (value as unknown as Record<symbol, unknown>)[VALIDATION_ERROR] === true) &&
        typeof (value as HTTPError).statusCode === 'number')
    );
  } catch {
    // A Proxy whose traps throw, or a getter that throws: not one of ours.
    return false;
  }
}

/**
 * Turns any thrown value into an HTTPError. An HTTPError is returned as it is; an Error with a
 * numeric `statusCode`/`status` in 400..599 keeps that status; everything else becomes a 500
 * whose client-facing message is "Internal Server Error" (the original is kept as `cause`).
 * Never throws: a value whose getters or Proxy traps throw becomes that 500 too.
 */
export function toHTTPError(value: unknown): HTTPError {
  try {
    if (isHTTPError(value)) {
      if (value instanceof HTTPError) return value;
      // A copy from another instance of this package: read what the framework will read once,
      // so a getter that throws shows here and not halfway through writing the answer.
      const { statusCode, message, expose, headers, details, code } = value as HTTPError;
      void details;
      void code;
      if (!Number.isInteger(statusCode) || typeof message !== 'string' || typeof expose !== 'boolean') return internal(value);
      if (headers !== undefined) Object.entries(headers);
      return value;
    }
    if (value !== null && typeof value === 'object') {
      const candidate = value as { statusCode?: unknown; status?: unknown; message?: unknown; expose?: unknown };
      const status = typeof candidate.statusCode === 'number' ? candidate.statusCode : candidate.status;
      if (typeof status === 'number' && Number.isInteger(status) && status >= 400 && status <= 599) {
        const expose = status < 500 || candidate.expose === true;
        const message = expose && typeof candidate.message === 'string' ? candidate.message : statusText(status);
        return new HTTPError(status, message, undefined, { cause: value, expose });
      }
    }
  } catch {
    // Fall through to the plain 500.
  }
  return internal(value);
}

function internal(cause: unknown): HTTPError {
  return new HTTPError(500, 'Internal Server Error', undefined, { cause, expose: false });
}

/** The standard error body the framework sends: `{ error: true, message, code, details? }`. */
export interface ErrorBody {
  error: true;
  message: string;
  code: number;
  details?: unknown;
}

/** Builds the standard error body for an HTTPError. Unexposed errors never leak their message. Never throws. */
export function errorBody(err: HTTPError): ErrorBody {
  try {
    const body: ErrorBody = {
      error: true,
      message: err.expose ? String(err.message) : statusText(err.statusCode),
      code: err.statusCode,
    };
    if (err.details !== undefined && err.expose) body.details = err.details;
    return body;
  } catch {
    return { error: true, message: statusText(500), code: 500 };
  }
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  409: 'Conflict',
  413: 'Payload Too Large',
  414: 'URI Too Long',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  501: 'Not Implemented',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

/** The reason phrase of a status code ("Not Found" for 404). */
export function statusText(status: number): string {
  return STATUS_TEXT[status] ?? (status >= 500 ? 'Internal Server Error' : 'Error');
}
