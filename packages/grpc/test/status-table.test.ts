import { HTTPError } from '@fw/core';
import { GRPC_STATUS, grpcStatusOf, httpStatusFromGrpc } from '../src/index.js';

// gRPC's column of the status table (moved here from @fw/core, whose rows are named ErrorCodes).
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

describe('grpcStatusOf and HTTPError.grpcStatus', () => {
  it('uses the status table row when the error names no gRPC status', () => {
    expect(grpcStatusOf(new HTTPError(409, 'Taken'))).toBe(GRPC_STATUS.ALREADY_EXISTS);
    expect(grpcStatusOf(new HTTPError(418))).toBe(GRPC_STATUS.INTERNAL);
    expect(grpcStatusOf({ statusCode: 404 })).toBe(GRPC_STATUS.NOT_FOUND);
  });

  it('prefers the gRPC status the error names', () => {
    const err = new HTTPError(409, 'Not enough stock', undefined, { grpcStatus: GRPC_STATUS.FAILED_PRECONDITION });
    expect(err.grpcStatus).toBe(GRPC_STATUS.FAILED_PRECONDITION);
    expect(err.statusCode).toBe(409);
    expect(grpcStatusOf(err)).toBe(GRPC_STATUS.FAILED_PRECONDITION);
  });

  it('accepts every code from 1 to 16', () => {
    for (let code = 1; code <= 16; code++) expect(grpcStatusOf(new HTTPError(400, 'x', undefined, { grpcStatus: code }))).toBe(code);
  });

  it.each([0, 17, 2.5, -1, Number.NaN, '9' as unknown as number])('ignores the invalid grpcStatus %p and falls back to the table', (grpcStatus) => {
    const err = new HTTPError(404, 'Missing', undefined, { grpcStatus });
    expect(err.grpcStatus).toBeUndefined();
    expect(grpcStatusOf(err)).toBe(GRPC_STATUS.NOT_FOUND);
  });
});
