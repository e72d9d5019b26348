import type { Metadata } from '@grpc/grpc-js';

/** Options of `new GrpcError()`. */
export interface GrpcErrorOptions {
  /** Trailing metadata sent with the status. */
  metadata?: Metadata;
  /** The error this one wraps. */
  cause?: unknown;
}

/**
 * An error that carries a gRPC status code as it is: thrown from a handler or middleware it is sent
 * unchanged (like grpc-js's own `{ code, details }` errors). Throw `HTTPError` for shared business logic.
 * @example
 * throw new GrpcError(GRPC_STATUS.FAILED_PRECONDITION, 'Account is locked');
 */
export class GrpcError extends Error {
  /** The gRPC status code (1–16). */
  readonly code: number;
  /** The status message sent to the client. */
  readonly details: string;
  /** Trailing metadata sent with the status. */
  readonly metadata?: Metadata;

  constructor(code: number, details?: string, options?: GrpcErrorOptions) {
    super(details ?? `gRPC status ${code}`, options?.cause !== undefined ? { cause: options.cause } : undefined);
    this.name = 'GrpcError';
    this.code = Number.isInteger(code) && code >= 1 && code <= 16 ? code : 2;
    this.details = this.message;
    if (options?.metadata !== undefined) this.metadata = options.metadata;
  }
}
