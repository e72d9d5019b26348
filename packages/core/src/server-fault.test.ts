import { ERROR_CODE_STATUS, type ErrorCode } from './error-code.js';
import { HTTPError } from './http-error.js';
import { isServerFault } from './server-fault.js';

describe('isServerFault', () => {
  it('is every 5xx code but deadline_exceeded, and no 4xx', () => {
    const faults = (Object.keys(ERROR_CODE_STATUS) as ErrorCode[]).filter((code) => isServerFault(new HTTPError(ERROR_CODE_STATUS[code], 'x', undefined, { code })));
    const expected = (Object.keys(ERROR_CODE_STATUS) as ErrorCode[]).filter((code) => ERROR_CODE_STATUS[code] >= 500 && code !== 'deadline_exceeded');
    expect(faults).toEqual(expected);
    expect(faults).toContain('internal');
    expect(faults).toContain('unavailable');
    expect(faults).not.toContain('deadline_exceeded');
  });

  it('goes by the code, not the status: a 504 with another code is a fault', () => {
    expect(isServerFault(new HTTPError(500, 'boom'))).toBe(true);
    expect(isServerFault(new HTTPError(504, 'the upstream gateway timed out', undefined, { code: 'unavailable' }))).toBe(true);
    expect(isServerFault(new HTTPError(504, 'The deadline of 150 ms passed', undefined, { code: 'deadline_exceeded' }))).toBe(false);
    expect(isServerFault(new HTTPError(404, 'gone'))).toBe(false);
  });
});
