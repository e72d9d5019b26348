import { Metadata } from '@grpc/grpc-js';
import { isHTTPError, protocolStatus, toHTTPError } from '@fw/core';

/** The details sent for errors whose message must not reach clients. */
export const INTERNAL_DETAILS = 'Internal server error';

/** Metadata key carrying an exposed HTTPError's `details`, JSON-encoded. */
export const ERROR_DETAILS_KEY = 'error-details-bin';

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
  /** Whether the cause is a server fault to log in full. */
  log: boolean;
}

interface GrpcStatusLike {
  code: number;
  details?: unknown;
  message?: unknown;
  metadata?: unknown;
}

/** A grpc-js style error: an object with an integer `code` that is a gRPC status (1–16). */
export function isGrpcStatusError(value: unknown): value is GrpcStatusLike {
  if (value === null || typeof value !== 'object' || isHTTPError(value)) return false;
  const code = (value as { code?: unknown }).code;
  return typeof code === 'number' && Number.isInteger(code) && code >= 1 && code <= 16;
}

function isMetadata(value: unknown): value is Metadata {
  return value instanceof Metadata || (value !== null && typeof value === 'object' && typeof (value as Metadata).getMap === 'function' && typeof (value as Metadata).clone === 'function');
}

/**
 * Maps a thrown value to a gRPC status: a `{ code, details }` error passes through; an HTTPError
 * (or anything `toHTTPError` knows) goes through core's one status table with its message as
 * details; anything else is INTERNAL with a generic message (and is logged).
 */
export function statusFromError(error: unknown): ErrorStatus {
  if (isGrpcStatusError(error)) {
    const details = typeof error.details === 'string' ? error.details : typeof error.message === 'string' ? error.message : '';
    const status: ErrorStatus = { code: error.code, details, log: false };
    if (isMetadata(error.metadata)) status.metadata = error.metadata;
    return status;
  }
  const http = toHTTPError(error);
  const status: ErrorStatus = {
    code: protocolStatus(http.statusCode).grpc,
    details: http.expose ? http.message : INTERNAL_DETAILS,
    log: http.statusCode >= 500,
  };
  if (http.headers !== undefined) status.headers = http.headers;
  if (http.expose && http.details !== undefined) status.errorDetails = http.details;
  return status;
}
