import { HTTPError } from './http-error.js';
import { GRPC_STATUS, grpcStatusOf, httpStatusFromGrpc, protocolStatus } from './status-map.js';

describe('the cross-protocol status table', () => {
  it('gives the body-size, media-type and timing statuses their own gRPC and GraphQL codes', () => {
    expect(protocolStatus(413)).toEqual({ grpc: GRPC_STATUS.RESOURCE_EXHAUSTED, graphql: 'PAYLOAD_TOO_LARGE' });
    expect(protocolStatus(415)).toEqual({ grpc: GRPC_STATUS.INVALID_ARGUMENT, graphql: 'UNSUPPORTED_MEDIA_TYPE' });
    expect(protocolStatus(405)).toEqual({ grpc: GRPC_STATUS.UNIMPLEMENTED, graphql: 'METHOD_NOT_ALLOWED' });
    expect(protocolStatus(504).grpc).toBe(GRPC_STATUS.DEADLINE_EXCEEDED);
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
    expect(protocolStatus(err.statusCode).graphql).toBe('CONFLICT');
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
