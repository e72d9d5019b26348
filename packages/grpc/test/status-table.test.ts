import { ERROR_CODE_STATUS, HTTPError, type ErrorCode } from '@fw/core';
import { GRPC_STATUS, grpcStatusOf, httpStatusFromGrpc } from '../src/index.js';

// gRPC's column of the error table: core's ErrorCodes (a status's default code) to gRPC statuses and back.
const grpcOf = (statusCode: number): number => grpcStatusOf({ statusCode });

describe("gRPC's column of the status table", () => {
  it('maps HTTP statuses to gRPC codes as DESIGN.md lists them', () => {
    expect(grpcOf(400)).toBe(GRPC_STATUS.INVALID_ARGUMENT);
    expect(grpcOf(401)).toBe(GRPC_STATUS.UNAUTHENTICATED);
    expect(grpcOf(403)).toBe(GRPC_STATUS.PERMISSION_DENIED);
    expect(grpcOf(404)).toBe(GRPC_STATUS.NOT_FOUND);
    expect(grpcOf(409)).toBe(GRPC_STATUS.ALREADY_EXISTS);
    expect(grpcOf(422)).toBe(GRPC_STATUS.INVALID_ARGUMENT);
    expect(grpcOf(429)).toBe(GRPC_STATUS.RESOURCE_EXHAUSTED);
    expect(grpcOf(503)).toBe(GRPC_STATUS.UNAVAILABLE);
    expect(grpcOf(500)).toBe(GRPC_STATUS.INTERNAL);
    expect(grpcOf(418)).toBe(GRPC_STATUS.INTERNAL);
  });

  it('gives the body-size, media-type and timing statuses their own gRPC codes', () => {
    expect(grpcOf(413)).toBe(GRPC_STATUS.RESOURCE_EXHAUSTED);
    expect(grpcOf(415)).toBe(GRPC_STATUS.INVALID_ARGUMENT);
    expect(grpcOf(405)).toBe(GRPC_STATUS.UNIMPLEMENTED);
    expect(grpcOf(504)).toBe(GRPC_STATUS.DEADLINE_EXCEEDED);
  });

  it('maps gRPC codes back to the first HTTP status that produces them', () => {
    expect(httpStatusFromGrpc(GRPC_STATUS.OK)).toBe(200);
    expect(httpStatusFromGrpc(GRPC_STATUS.INVALID_ARGUMENT)).toBe(400);
    expect(httpStatusFromGrpc(GRPC_STATUS.NOT_FOUND)).toBe(404);
    expect(httpStatusFromGrpc(GRPC_STATUS.UNAVAILABLE)).toBe(503);
    expect(httpStatusFromGrpc(GRPC_STATUS.DATA_LOSS)).toBe(500);
  });

  it('maps gRPC codes back with the usual gateway mapping, not by table order', () => {
    expect(httpStatusFromGrpc(GRPC_STATUS.RESOURCE_EXHAUSTED)).toBe(429);
    expect(httpStatusFromGrpc(GRPC_STATUS.UNAUTHENTICATED)).toBe(401);
    expect(httpStatusFromGrpc(GRPC_STATUS.PERMISSION_DENIED)).toBe(403);
    expect(httpStatusFromGrpc(GRPC_STATUS.UNIMPLEMENTED)).toBe(501);
    expect(httpStatusFromGrpc(GRPC_STATUS.DEADLINE_EXCEEDED)).toBe(504);
    expect(httpStatusFromGrpc(GRPC_STATUS.INTERNAL)).toBe(500);
    expect(httpStatusFromGrpc(GRPC_STATUS.UNKNOWN)).toBe(500);
  });
});

describe("grpcStatusOf and an HTTPError's code", () => {
  it('uses the default code of the status when the error names none', () => {
    expect(grpcStatusOf(new HTTPError(409, 'Taken'))).toBe(GRPC_STATUS.ALREADY_EXISTS);
    expect(grpcStatusOf(new HTTPError(418))).toBe(GRPC_STATUS.INTERNAL);
    expect(grpcStatusOf({ statusCode: 404 })).toBe(GRPC_STATUS.NOT_FOUND);
  });

  it('maps the code the error names, whatever its status', () => {
    const err = new HTTPError(409, 'Not enough stock', undefined, { code: 'failed_precondition' });
    expect(err.statusCode).toBe(409);
    expect(grpcStatusOf(err)).toBe(GRPC_STATUS.FAILED_PRECONDITION);
    expect(grpcStatusOf(new HTTPError(409, 'Write conflict', undefined, { code: 'aborted' }))).toBe(GRPC_STATUS.ABORTED);
  });

  it('reaches every gRPC error status, 1 to 16, through the code of the same name', () => {
    for (const [name, status] of Object.entries(GRPC_STATUS)) {
      if (status === GRPC_STATUS.OK) continue;
      const code = name.toLowerCase() as ErrorCode;
      expect(grpcStatusOf(new HTTPError(400, 'x', undefined, { code }))).toBe(status);
      expect(httpStatusFromGrpc(status)).toBe(ERROR_CODE_STATUS[code]);
    }
  });

  it('falls back to the status for a code that is not one (an error from another copy of core)', () => {
    expect(grpcStatusOf({ statusCode: 404, code: 'gone' })).toBe(GRPC_STATUS.NOT_FOUND);
  });
});
