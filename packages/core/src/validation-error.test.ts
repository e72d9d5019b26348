import { errorBody, HTTPError, isHTTPError, toHTTPError } from './http-error.js';
import { isValidationError, ValidationError } from './validation-error.js';

const ISSUES = [{ field: 'body.title', message: 'Too short', code: 'too_small' }];

describe('ValidationError', () => {
  it('is a 400 HTTPError named ValidationError, whose details list the refused fields', () => {
    const err = new ValidationError(ISSUES);
    expect(err).toBeInstanceOf(HTTPError);
    expect(err).toBeInstanceOf(Error);
    expect([err.name, err.statusCode, err.message, err.expose]).toEqual(['ValidationError', 400, 'Validation failed', true]);
    expect(err.details).toEqual({ errors: ISSUES });
  });

  it('answers with the standard error body, as any HTTPError', () => {
    expect(errorBody(new ValidationError(ISSUES))).toEqual({ error: true, message: 'Validation failed', code: 400, details: { errors: ISSUES } });
  });

  it('takes a message, status 422 and the options of HTTPError', () => {
    const cause = new Error('checked later');
    const err = new ValidationError(ISSUES, 'Unprocessable order', { status: 422, cause, headers: { 'x-reason': 'stock' } });
    expect([err.statusCode, err.message, err.cause, err.headers]).toEqual([422, 'Unprocessable order', cause, { 'x-reason': 'stock' }]);
    expect(new ValidationError(ISSUES, undefined, { status: 500 as 400 }).statusCode).toBe(400);
  });

  it('refuses anything but a list of fields', () => {
    expect(() => new ValidationError({ errors: ISSUES } as never)).toThrow('new ValidationError() expects the list of refused fields');
  });
});

describe('isValidationError', () => {
  it('recognises ValidationErrors, not other HTTPErrors carrying the same details', () => {
    expect(isValidationError(new ValidationError(ISSUES))).toBe(true);
    expect(isValidationError(new HTTPError(400, 'Validation failed', { errors: ISSUES }))).toBe(false);
    expect(isValidationError(Object.assign(new Error('x'), { name: 'ValidationError', statusCode: 400, details: { errors: ISSUES } }))).toBe(false);
    expect(isValidationError(null)).toBe(false);
  });

  it('recognises one from another copy of the package, and isHTTPError and toHTTPError take it as it is', () => {
    const foreign = Object.assign(new Error('Validation failed'), { name: 'ValidationError', statusCode: 400, expose: true, details: { errors: ISSUES } });
    Object.defineProperty(foreign, Symbol.for('fw.validation-error'), { value: true });
    expect(isValidationError(foreign)).toBe(true);
    expect(isHTTPError(foreign)).toBe(true);
    expect(toHTTPError(foreign)).toBe(foreign);
  });

  it('never throws, whatever it is given', () => {
    const hostile = new Proxy(new Error('x'), {
      get: () => {
        throw new Error('trap');
      },
    });
    expect(isValidationError(hostile)).toBe(false);
  });
});
