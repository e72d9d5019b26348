import type { Metadata } from '@grpc/grpc-js';
import { isHTTPError, isValidationError, toHTTPError, type HTTPError } from '@fw/core';
import { isServerFault } from '@fw/core/plugin';
import { GRPC_STATUS, grpcStatusOf } from '../grpc-status.js';
import { GrpcError } from '../grpc-error.js';
import { grpcJs } from './libraries.js';
import { fieldViolations, type FieldViolation } from './rich-status.js';

/** The details sent for errors whose message must not reach clients. */
export const INTERNAL_DETAILS = 'Internal server error';

/** Metadata key carrying an exposed HTTPError's `details`, JSON-encoded. */
export const ERROR_DETAILS_KEY = 'error-details-bin';

/**
 * The most bytes the JSON of `error-details-bin` may take. Trailers are headers: a client whose
 * header limit they exceed never sees the status (a grpc-js client waits for its deadline).
 */
export const MAX_ERROR_DETAILS_BYTES = 8192;

function fits(value: unknown): Buffer | undefined {
  const json = JSON.stringify(value);
  if (typeof json !== 'string') return undefined;
  const bytes = Buffer.from(json);
  return bytes.length <= MAX_ERROR_DETAILS_BYTES ? bytes : undefined;
}

/**
 * The `error-details-bin` trailer of an error's details: their JSON, or, when it is too large and
 * the details list `errors`, as many leading errors as fit with `truncated: true`. Undefined when
 * nothing fits or the details do not serialise.
 */
export function errorDetailsTrailer(details: unknown): Buffer | undefined {
  const whole = fits(details);
  if (whole !== undefined) return whole;
  if (details === null || typeof details !== 'object' || !Array.isArray((details as { errors?: unknown }).errors)) return undefined;
  const errors = (details as { errors: unknown[] }).errors;
  // The longest prefix of errors that fits: a binary search over its length.
  let low = 0;
  let high = errors.length - 1;
  let best: Buffer | undefined;
  while (low <= high) {
    const count = Math.floor((low + high) / 2);
    const bytes = fits({ ...details, errors: errors.slice(0, count), truncated: true });
    if (bytes === undefined) high = count - 1;
    else {
      best = bytes;
      low = count + 1;
    }
  }
  return best;
}

/** How a thrown value becomes a gRPC status. */
export interface ErrorStatus {
  code: number;
  details: string;
  /** Trailing metadata the error itself carries (grpc-style errors). */
  metadata?: Metadata;
  /** Response headers the error carries (`HTTPError.headers`). */
  headers?: Readonly<Record<string, string>>;
  /** An exposed HTTPError's `details`, sent as `error-details-bin`. */
  errorDetails?: unknown;
  /** Validation issues of an INVALID_ARGUMENT, sent as a `google.rpc.BadRequest` in `grpc-status-details-bin`. */
  fieldViolations?: FieldViolation[];
  /** Whether the cause is a server fault to log in full. */
  log: boolean;
}

interface GrpcStatusLike {
  code: number;
  details?: unknown;
  message?: unknown;
  metadata?: unknown;
}

function isStatusCode(code: unknown): code is number {
  return typeof code === 'number' && Number.isInteger(code) && code >= 1 && code <= 16;
}

/** An object literal (or one made with `Object.create(null)`): data, not an error of some library. */
function isPlainObject(value: object): boolean {
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
}

/**
 * A gRPC status error: our `GrpcError`, or the shapes grpc-js itself sends and raises — an integer
 * `code` 1–16 with a string `details` (`callback({ code, details })`, a grpc-js client's
 * ServiceError), or a plain object (not an `Error`) with such a `code` and a string `message`
 * (`callback({ code, message })`, the StatusObject shape). A `code` alone is not enough, nor on an
 * Error a `message`: DOMExceptions and database drivers carry small numeric codes of their own,
 * and their messages must not reach clients.
 */
export function isGrpcStatusError(value: unknown): value is GrpcStatusLike {
  if (value instanceof GrpcError) return true;
  if (value === null || typeof value !== 'object' || isHTTPError(value)) return false;
  const candidate = value as GrpcStatusLike;
  if (!isStatusCode(candidate.code)) return false;
  return typeof candidate.details === 'string' || (typeof candidate.message === 'string' && isPlainObject(value));
}

/** The status message of a gRPC status error: `details` first, as grpc-js reads it. */
function statusDetails(error: GrpcStatusLike): string {
  return typeof error.details === 'string' ? error.details : String(error.message);
}

function isMetadata(value: unknown): value is Metadata {
  // Duck-typed too: a ServiceError from another copy of grpc-js carries that copy's Metadata.
  return value instanceof grpcJs().Metadata || (value !== null && typeof value === 'object' && typeof (value as Metadata).getMap === 'function' && typeof (value as Metadata).clone === 'function');
}

const INTERNAL: ErrorStatus = Object.freeze({ code: GRPC_STATUS.INTERNAL, details: INTERNAL_DETAILS, log: true });

function fromHTTPError(http: HTTPError): ErrorStatus {
  const status: ErrorStatus = {
    code: grpcStatusOf(http),
    details: http.expose ? String(http.message) : INTERNAL_DETAILS,
    log: isServerFault(http),
  };
  if (http.headers !== undefined) status.headers = http.headers;
  if (http.expose && http.details !== undefined) {
    status.errorDetails = http.details;
    if (status.code === GRPC_STATUS.INVALID_ARGUMENT && isValidationError(http)) {
      const violations = fieldViolations(http);
      if (violations !== undefined) status.fieldViolations = violations;
    }
  }
  return status;
}

function mapError(error: unknown): ErrorStatus {
  if (isGrpcStatusError(error)) {
    const status: ErrorStatus = { code: error.code, details: statusDetails(error), log: false };
    if (isMetadata(error.metadata)) status.metadata = error.metadata;
    return status;
  }
  return fromHTTPError(toHTTPError(error));
}

/**
 * Maps a thrown value to a gRPC status, and never throws: a gRPC status error passes through; an
 * HTTPError (or anything `toHTTPError` knows) takes `grpcStatusOf()` (gRPC's column of the error
 * table for its code) with its message as details; anything else — including values whose properties
 * throw when read — is INTERNAL with a generic message (and is logged).
 */
export function statusFromError(error: unknown): ErrorStatus {
  try {
    return mapError(error);
  } catch {
    return INTERNAL;
  }
}
