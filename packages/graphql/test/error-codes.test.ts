import { HTTPError } from '@fw/core';
import { graphqlErrorCode } from '../src/index.js';

// GraphQL's column of the error table: core's ErrorCodes (by default a status's) to extensions.code.
describe("GraphQL's column of the error table", () => {
  it('maps HTTP statuses to GraphQL codes as DESIGN.md lists them', () => {
    expect(graphqlErrorCode(400)).toBe('BAD_REQUEST');
    expect(graphqlErrorCode(500)).toBe('INTERNAL_SERVER_ERROR');
  });

  it('gives the body-size, media-type and timing statuses their own GraphQL codes', () => {
    expect(graphqlErrorCode(413)).toBe('PAYLOAD_TOO_LARGE');
    expect(graphqlErrorCode(415)).toBe('UNSUPPORTED_MEDIA_TYPE');
    expect(graphqlErrorCode(405)).toBe('METHOD_NOT_ALLOWED');
  });

  it("maps an error's own code, not its status: a 409 is CONFLICT unless its code says more", () => {
    expect(graphqlErrorCode(409)).toBe('CONFLICT');
    expect(graphqlErrorCode(new HTTPError(409))).toBe('CONFLICT');
    expect(graphqlErrorCode(new HTTPError(409, 'Taken', undefined, { code: 'already_exists' }))).toBe('ALREADY_EXISTS');
    expect(graphqlErrorCode(new HTTPError(409, 'No stock', undefined, { code: 'failed_precondition' }))).toBe('FAILED_PRECONDITION');
    expect(graphqlErrorCode({ statusCode: 404, code: 'gone' })).toBe('NOT_FOUND');
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
