import { graphqlErrorCode } from '../src/index.js';

// GraphQL's column of the status table (moved here from @fw/core, whose rows are named ErrorCodes).
describe("GraphQL's column of the status table", () => {
  it('maps HTTP statuses to GraphQL codes as DESIGN.md lists them', () => {
    expect(graphqlErrorCode(400)).toBe('BAD_REQUEST');
    expect(graphqlErrorCode(500)).toBe('INTERNAL_SERVER_ERROR');
  });

  it('gives the body-size, media-type and timing statuses their own GraphQL codes', () => {
    expect(graphqlErrorCode(413)).toBe('PAYLOAD_TOO_LARGE');
    expect(graphqlErrorCode(415)).toBe('UNSUPPORTED_MEDIA_TYPE');
    expect(graphqlErrorCode(405)).toBe('METHOD_NOT_ALLOWED');
  });

  it('keeps the status of an error that names its own gRPC status: a 409 is CONFLICT', () => {
    expect(graphqlErrorCode(409)).toBe('CONFLICT');
  });

  it.each([
    [401, 'UNAUTHENTICATED'],
    [403, 'FORBIDDEN'],
    [404, 'NOT_FOUND'],
    [408, 'REQUEST_TIMEOUT'],
    [422, 'UNPROCESSABLE_ENTITY'],
    [429, 'TOO_MANY_REQUESTS'],
    [501, 'NOT_IMPLEMENTED'],
    [503, 'SERVICE_UNAVAILABLE'],
    [504, 'GATEWAY_TIMEOUT'],
    [418, 'INTERNAL_SERVER_ERROR'],
  ])('maps %i to %s', (status, code) => {
    expect(graphqlErrorCode(status)).toBe(code);
  });
});
