import { ERROR_CODE_STATUS, errorCodeOf, type ErrorCode } from './error-code.js';

describe('errorCodeOf', () => {
  it.each<[number, ErrorCode]>([
    [400, 'invalid_argument'],
    [401, 'unauthenticated'],
    [403, 'permission_denied'],
    [404, 'not_found'],
    [405, 'method_not_allowed'],
    [408, 'request_timeout'],
    [409, 'conflict'],
    [413, 'payload_too_large'],
    [415, 'unsupported_media_type'],
    [422, 'unprocessable_entity'],
    [429, 'too_many_requests'],
    [500, 'internal'],
    [501, 'not_implemented'],
    [503, 'unavailable'],
    [504, 'deadline_exceeded'],
  ])('names the row of %i %p', (status, code) => {
    expect(errorCodeOf(status)).toBe(code);
    expect(ERROR_CODE_STATUS[code]).toBe(status);
  });

  it('calls every status without a row internal', () => {
    for (const status of [418, 402, 502, 599, 200, 0, Number.NaN]) expect(errorCodeOf(status)).toBe('internal');
  });
});
