import type { ValidationError } from '@fw/core';
import type { Type } from 'protobufjs';
import { protobufjs } from './libraries.js';

/**
 * gRPC's rich error model: a `google.rpc.Status` (code, message, details as `google.protobuf.Any`)
 * serialized in the `grpc-status-details-bin` trailer, which grpc-go, grpc-java, Connect and
 * others decode. Validation failures carry a `google.rpc.BadRequest` with one field violation per
 * issue. The messages are declared here, with the field numbers of googleapis' status.proto and
 * error_details.proto.
 */

/** The trailer carrying the serialized `google.rpc.Status`. */
export const STATUS_DETAILS_KEY = 'grpc-status-details-bin';

/** The type URL of a `google.rpc.BadRequest` inside `google.protobuf.Any`. */
export const BAD_REQUEST_TYPE_URL = 'type.googleapis.com/google.rpc.BadRequest';

/**
 * The most bytes the serialized status may take. Trailers are headers: a client whose header limit
 * they exceed never sees the status at all (a grpc-js client waits for its deadline), so the
 * violations that fit are sent and the rest left out.
 */
export const MAX_STATUS_DETAILS_BYTES = 4096;

/** Field names and descriptions are cut to this many characters. */
const MAX_TEXT = 256;

/** The messages of the rich error model, built on first use (protobufjs loads with them). */
interface MessageTypes {
  Status: Type;
  BadRequest: Type;
  FieldViolation: Type;
}
let messageTypes: MessageTypes | undefined;

function types(): MessageTypes {
  if (messageTypes !== undefined) return messageTypes;
  const root = protobufjs().Root.fromJSON({
    nested: {
      google: {
        nested: {
          protobuf: { nested: { Any: { fields: { type_url: { type: 'string', id: 1 }, value: { type: 'bytes', id: 2 } } } } },
          rpc: {
            nested: {
              Status: {
                fields: {
                  code: { type: 'int32', id: 1 },
                  message: { type: 'string', id: 2 },
                  details: { rule: 'repeated', type: 'google.protobuf.Any', id: 3 },
                },
              },
              BadRequest: {
                fields: { field_violations: { rule: 'repeated', type: 'FieldViolation', id: 1 } },
                nested: { FieldViolation: { fields: { field: { type: 'string', id: 1 }, description: { type: 'string', id: 2 } } } },
              },
            },
          },
        },
      },
    },
  });
  messageTypes = {
    Status: root.lookupType('google.rpc.Status'),
    BadRequest: root.lookupType('google.rpc.BadRequest'),
    FieldViolation: root.lookupType('google.rpc.BadRequest.FieldViolation'),
  };
  return messageTypes;
}

function clip(text: string): string {
  return text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT - 1)}…` : text;
}

/** One field violation of a `google.rpc.BadRequest`. */
export interface FieldViolation {
  field: string;
  description: string;
}

/**
 * The field violations of a `ValidationError`: one per entry of `details.errors` with a `field`
 * (or a `path` array, joined with dots). Undefined when none is left.
 */
export function fieldViolations(error: ValidationError): FieldViolation[] | undefined {
  const errors = (error.details as { errors?: unknown } | undefined)?.errors;
  if (!Array.isArray(errors)) return undefined;
  const violations: FieldViolation[] = [];
  for (const entry of errors as unknown[]) {
    if (entry === null || typeof entry !== 'object') continue;
    const { field, path, message } = entry as { field?: unknown; path?: unknown; message?: unknown };
    const name = typeof field === 'string' ? field : Array.isArray(path) ? path.map(String).join('.') : undefined;
    if (name === undefined) continue;
    violations.push({ field: clip(name), description: clip(typeof message === 'string' ? message : '') });
  }
  return violations.length > 0 ? violations : undefined;
}

/** A serialized `google.rpc.Status` carrying a `google.rpc.BadRequest` with the violations that fit in `MAX_STATUS_DETAILS_BYTES`. */
export function badRequestStatus(code: number, message: string, violations: readonly FieldViolation[]): Buffer {
  // Room for the code, the message and the Any's framing; each violation costs its bytes plus a tag and a length.
  const { Status, BadRequest, FieldViolation: FieldViolationType } = types();
  let room = MAX_STATUS_DETAILS_BYTES - Buffer.byteLength(message) - BAD_REQUEST_TYPE_URL.length - 32;
  const kept: FieldViolation[] = [];
  for (const violation of violations) {
    room -= FieldViolationType.encode(violation).finish().length + 4;
    if (room < 0) break;
    kept.push(violation);
  }
  const badRequest = BadRequest.encode(BadRequest.create({ field_violations: kept.map((v) => ({ ...v })) })).finish();
  const status = Status.create({ code, message, details: [{ type_url: BAD_REQUEST_TYPE_URL, value: badRequest }] });
  return Buffer.from(Status.encode(status).finish());
}
