import { GRPC_STATUS, httpStatusFromGrpc, protocolStatus } from './status-map.js';

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
