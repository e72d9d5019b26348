import { isClientGone, isServerFault, type LogFunction } from '@fw/core/plugin';
import { isValidationError, toHTTPError } from '@fw/core';
import { ERROR_DETAILS_KEY, fieldViolations, INTERNAL_DETAILS, STATUS_DETAILS_KEY, type GrpcForeignStatus } from '@fw/grpc';
import { connectCodeOf, CONNECT_HTTP_STATUS, GRPC_WEB_STATUS, type ConnectCode } from '../code.js';
import { badRequest, badRequestStatus, type FieldViolation } from './registry.js';

/** An error as Connect and gRPC-Web send it. */
export interface WireError {
  readonly code: ConnectCode;
  readonly message: string;
  /** A validation failure's fields (`google.rpc.BadRequest` in the details). */
  readonly violations: readonly FieldViolation[] | undefined;
  /** Response headers the error carries (`WWW-Authenticate`, `Retry-After`). */
  readonly headers: Readonly<Record<string, string>> | undefined;
}

/** What a thrown value is on the wire; a server fault (5xx, not a client that left) is logged, its message masked unless exposed. */
export function wireError(thrown: unknown, log: LogFunction, where: string): WireError {
  const error = toHTTPError(thrown);
  if (isServerFault(error) && !isClientGone(thrown)) log(`Connect call ${where} failed: ${thrown instanceof Error ? thrown.message : String(thrown)}`, thrown);
  return {
    code: connectCodeOf(error),
    message: error.expose ? error.message : INTERNAL_DETAILS,
    violations: isValidationError(error) ? fieldViolations(error) : undefined,
    headers: error.headers,
  };
}

const CONNECT_CODE_OF_STATUS: ReadonlyMap<number, ConnectCode> = new Map(Object.entries(GRPC_WEB_STATUS).map(([code, status]) => [status, code as ConnectCode]));

/**
 * What a hand-written method's status is on the wire: the gRPC port's status (code and details,
 * mapped and logged there already) under its Connect name; a validation failure's fields, as for
 * operations; the status's trailers as the error's headers, but the rich details the protocols
 * carry their own way.
 */
export function statusWireError(status: GrpcForeignStatus): WireError {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(status.metadata)) if (name !== STATUS_DETAILS_KEY && name !== ERROR_DETAILS_KEY) headers[name] = value;
  const error = status.error;
  return {
    code: CONNECT_CODE_OF_STATUS.get(status.code) ?? 'unknown',
    message: status.details,
    violations: status.code === GRPC_WEB_STATUS.invalid_argument && isValidationError(error) && error.expose ? fieldViolations(error) : undefined,
    headers: Object.keys(headers).length === 0 ? undefined : headers,
  };
}

const unpadded = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64').replace(/=+$/, '');

/** Connect's JSON error: `{ code, message, details }`, a BadRequest in the details of a validation failure. */
export function connectErrorJson(error: WireError): Record<string, unknown> {
  const body: Record<string, unknown> = { code: error.code, message: error.message };
  if (error.violations !== undefined) {
    const detail = badRequest(error.violations);
    body.details = [{ type: 'google.rpc.BadRequest', value: unpadded(detail.bytes), debug: detail.json }];
  }
  return body;
}

/** The HTTP status of a unary Connect error. */
export function connectStatus(error: WireError): number {
  return CONNECT_HTTP_STATUS[error.code];
}

/** Connect's end-of-stream message: `{}` when the stream succeeded, else `{ error }`; `metadata` holds the trailers, if any. */
export function endStreamJson(error: WireError | undefined, trailers?: Readonly<Record<string, string>>): Buffer {
  const end: { error?: ReturnType<typeof connectErrorJson>; metadata?: Record<string, string[]> } = {};
  if (error !== undefined) end.error = connectErrorJson(error);
  // Connect's trailing metadata: each name with its values, as headers carry them (`-bin` in base64).
  const entries = Object.entries(trailers ?? {});
  if (entries.length > 0) end.metadata = Object.fromEntries(entries.map(([name, value]) => [name, [value]]));
  return Buffer.from(JSON.stringify(end));
}

/** `grpc-message`: percent-encoded, as gRPC specifies. */
function percentEncode(text: string): string {
  return Buffer.from(text)
    .toString('latin1')
    .replace(/[^\x20-\x24\x26-\x7e]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
}

/** gRPC-Web's trailers, as the lines of its trailers frame (and as headers of a trailers-only answer). */
export function grpcWebTrailers(error: WireError | undefined): Record<string, string> {
  if (error === undefined) return { 'grpc-status': '0' };
  const status = GRPC_WEB_STATUS[error.code];
  const trailers: Record<string, string> = { 'grpc-status': String(status), 'grpc-message': percentEncode(error.message) };
  if (error.violations !== undefined) trailers['grpc-status-details-bin'] = unpadded(badRequestStatus(status, error.message, error.violations));
  return trailers;
}

/** The payload of gRPC-Web's trailers frame. */
export function trailerBlock(trailers: Readonly<Record<string, string>>): Buffer {
  return Buffer.from(Object.entries(trailers).map(([name, value]) => `${name}: ${value}\r\n`).join(''), 'latin1');
}
