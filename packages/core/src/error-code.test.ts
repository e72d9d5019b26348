import { ERROR_CODE_STATUS, errorCodeOf, isErrorCode, type ErrorCode } from './error-code.js';
import { HTTPError } from './http-error.js';

const CODES = Object.keys(ERROR_CODE_STATUS) as ErrorCode[];

describe('ERROR_CODE_STATUS', () => {
  it.each<[ErrorCode, number]>([
    ['cancelled', 499],
    ['unknown', 500],
    ['invalid_argument', 400],
    ['deadline_exceeded', 504],
    ['not_found', 404],
    ['already_exists', 409],
    ['permission_denied', 403],
    ['resource_exhausted', 429],
    ['failed_precondition', 400],
    ['aborted', 409],
    ['out_of_range', 400],
    ['unimplemented', 501],
    ['internal', 500],
    ['unavailable', 503],
    ['data_loss', 500],
    ['unauthenticated', 401],
    ['method_not_allowed', 405],
    ['request_timeout', 408],
    ['conflict', 409],
    ['payload_too_large', 413],
    ['unsupported_media_type', 415],
    ['unprocessable_entity', 422],
    ['too_many_requests', 429],
    ['not_implemented', 501],
  ])('gives %p the status %i', (code, status) => {
    expect(ERROR_CODE_STATUS[code]).toBe(status);
  });

  it('has a row for each of the 24 codes, frozen', () => {
    expect(CODES).toHaveLength(24);
    expect(Object.isFrozen(ERROR_CODE_STATUS)).toBe(true);
  });
});

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
    [499, 'cancelled'],
    [500, 'internal'],
    [501, 'not_implemented'],
    [503, 'unavailable'],
    [504, 'deadline_exceeded'],
  ])('names the default code of %i %p', (status, code) => {
    expect(errorCodeOf(status)).toBe(code);
    expect(ERROR_CODE_STATUS[code]).toBe(status);
  });

  it('calls every status without a row internal', () => {
    for (const status of [418, 402, 502, 599, 200, 0, Number.NaN]) expect(errorCodeOf(status)).toBe('internal');
  });

  it("gives every code's status a default code with that same status", () => {
    for (const code of CODES) expect(ERROR_CODE_STATUS[errorCodeOf(ERROR_CODE_STATUS[code])]).toBe(ERROR_CODE_STATUS[code]);
  });

  it("reads an error's own code, else the default code of its status", () => {
    expect(errorCodeOf(new HTTPError(409, 'x', undefined, { code: 'aborted' }))).toBe('aborted');
    expect(errorCodeOf(new HTTPError(409))).toBe('conflict');
    expect(errorCodeOf({ statusCode: 404 })).toBe('not_found');
    expect(errorCodeOf({ statusCode: 404, code: 'nope' })).toBe('not_found');
    expect(errorCodeOf({ statusCode: 404, code: 'data_loss' })).toBe('data_loss');
  });
});

describe('isErrorCode', () => {
  it('knows the codes and nothing else', () => {
    for (const code of CODES) expect(isErrorCode(code)).toBe(true);
    for (const value of ['', 'NOT_FOUND', 'hasOwnProperty', '__proto__', 5, undefined, null, {}]) expect(isErrorCode(value)).toBe(false);
  });
});
