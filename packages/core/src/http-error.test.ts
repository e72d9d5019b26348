import { HTTPError, errorBody, isHTTPError, statusText, toHTTPError, type HTTPErrorOptions } from './http-error.js';

describe('HTTPError', () => {
  it('exposes statusCode, message and details', () => {
    const err = new HTTPError(422, 'Invalid order', { field: 'qty' });
    expect(err).toBeInstanceOf(Error);
    expect(err.name).toBe('HTTPError');
    expect(err.statusCode).toBe(422);
    expect(err.message).toBe('Invalid order');
    expect(err.details).toEqual({ field: 'qty' });
    expect(err.expose).toBe(true);
    expect(err.headers).toBeUndefined();
    expect(err.stack).toContain('Invalid order');
  });

  it('defaults the message to the reason phrase and leaves details out', () => {
    const err = new HTTPError(404);
    expect(err.message).toBe('Not Found');
    expect(err.details).toBeUndefined();
  });

  it('takes cause, expose and headers as options', () => {
    const cause = new Error('db down');
    const err = new HTTPError(503, 'Try later', undefined, { cause, expose: false, headers: { 'Retry-After': '30' } });
    expect(err.cause).toBe(cause);
    expect(err.expose).toBe(false);
    expect(err.headers).toEqual({ 'Retry-After': '30' });
  });

  it('turns a status outside 400..599 into 500', () => {
    expect(new HTTPError(200).statusCode).toBe(500);
    expect(new HTTPError(302).statusCode).toBe(500);
    expect(new HTTPError(600).statusCode).toBe(500);
    expect(new HTTPError(404.5).statusCode).toBe(500);
  });
});

describe('isHTTPError', () => {
  it('recognises HTTPErrors, also from another copy of the package', () => {
    expect(isHTTPError(new HTTPError(400))).toBe(true);
    const foreign = Object.assign(new Error('x'), { name: 'HTTPError', statusCode: 401 });
    expect(isHTTPError(foreign)).toBe(true);
    expect(isHTTPError(new Error('x'))).toBe(false);
    expect(isHTTPError({ name: 'HTTPError', statusCode: 400 })).toBe(false);
    expect(isHTTPError(null)).toBe(false);
  });
});

describe('toHTTPError', () => {
  it('returns an HTTPError as it is', () => {
    const err = new HTTPError(409, 'Taken');
    expect(toHTTPError(err)).toBe(err);
  });

  it('turns an unknown Error into an unexposed 500 keeping the original as cause', () => {
    const original = new Error('secret connection string');
    const err = toHTTPError(original);
    expect(err.statusCode).toBe(500);
    expect(err.message).toBe('Internal Server Error');
    expect(err.expose).toBe(false);
    expect(err.cause).toBe(original);
  });

  it('turns thrown non-Errors into a 500', () => {
    for (const value of ['a string', null, undefined, 42, { message: 'obj' }]) {
      const err = toHTTPError(value);
      expect(err.statusCode).toBe(500);
      expect(err.message).toBe('Internal Server Error');
      expect(err.cause).toBe(value);
    }
  });

  it('keeps a 4xx status carried by other libraries’ errors, with their message', () => {
    const err = toHTTPError(Object.assign(new Error('Payload too large'), { status: 413 }));
    expect(err.statusCode).toBe(413);
    expect(err.message).toBe('Payload too large');
    expect(toHTTPError(Object.assign(new Error('nope'), { statusCode: 403 })).statusCode).toBe(403);
  });

  it('hides the message of a foreign 5xx unless it is marked exposed', () => {
    const hidden = toHTTPError(Object.assign(new Error('pool exhausted'), { statusCode: 503 }));
    expect(hidden.statusCode).toBe(503);
    expect(hidden.message).toBe('Service Unavailable');
    const shown = toHTTPError(Object.assign(new Error('maintenance'), { statusCode: 503, expose: true }));
    expect(shown.message).toBe('maintenance');
  });

  it('ignores a status outside 400..599', () => {
    expect(toHTTPError(Object.assign(new Error('x'), { status: 200 })).statusCode).toBe(500);
    expect(toHTTPError(Object.assign(new Error('x'), { status: '404' })).statusCode).toBe(500);
  });
});

describe('errorBody', () => {
  it('builds { error: true, message, code, details? }', () => {
    expect(errorBody(new HTTPError(400, 'Bad input', { errors: [] }))).toEqual({ error: true, message: 'Bad input', code: 400, details: { errors: [] } });
    expect(errorBody(new HTTPError(404))).toEqual({ error: true, message: 'Not Found', code: 404 });
  });

  it('never leaks the message or details of an unexposed error', () => {
    const err = new HTTPError(500, 'SELECT * FROM users failed', { sql: 'x' }, { expose: false });
    expect(errorBody(err)).toEqual({ error: true, message: 'Internal Server Error', code: 500 });
  });
});

describe('statusText', () => {
  it('names common statuses and falls back by class', () => {
    expect(statusText(413)).toBe('Payload Too Large');
    expect(statusText(414)).toBe('URI Too Long');
    expect(statusText(418)).toBe('Error');
    expect(statusText(599)).toBe('Internal Server Error');
  });
});

describe('the error mapping with values that fight back', () => {
  const trap = (): never => {
    throw new Error('trap');
  };
  const proxy = new Proxy({}, { get: trap, getPrototypeOf: trap, has: trap, ownKeys: trap, getOwnPropertyDescriptor: trap });

  it('never throws from isHTTPError or toHTTPError: throwing getters and traps give an unexposed 500', () => {
    expect(isHTTPError(proxy)).toBe(false);
    for (const value of [proxy, { get statusCode(): number { return trap(); } }, { statusCode: 'x', get status(): number { return trap(); } }]) {
      const err = toHTTPError(value);
      expect(err).toBeInstanceOf(HTTPError);
      expect(err.statusCode).toBe(500);
      expect(err.expose).toBe(false);
      expect(err.cause).toBe(value);
    }
  });

  it('turns an HTTPError look-alike whose fields throw into a 500, and keeps a sound one as it is', () => {
    const broken = Object.assign(new Error('x'), { name: 'HTTPError', statusCode: 400 });
    Object.defineProperty(broken, 'expose', { get: trap });
    expect(toHTTPError(broken).statusCode).toBe(500);
    const sound = Object.assign(new Error('Nope'), { name: 'HTTPError', statusCode: 403, expose: true });
    expect(toHTTPError(sound)).toBe(sound);
  });

  it('never throws from errorBody', () => {
    const err = new HTTPError(400, 'bad', { a: 1 });
    Object.defineProperty(err, 'details', { get: trap });
    expect(errorBody(err)).toEqual({ error: true, message: 'Internal Server Error', code: 500 });
  });
});

describe('HTTPError code', () => {
  it('defaults the code from the status', () => {
    expect(new HTTPError(404).code).toBe('not_found');
    expect(new HTTPError(409, 'Taken').code).toBe('conflict');
    expect(new HTTPError(418).code).toBe('internal');
    expect(new HTTPError(200).code).toBe('internal');
  });

  it('takes the code an option names, keeping the status it was given', () => {
    const err = new HTTPError(409, 'exists', undefined, { code: 'already_exists' });
    expect(err.code).toBe('already_exists');
    expect(err.statusCode).toBe(409);
    expect(new HTTPError(400, 'not enough stock', undefined, { code: 'failed_precondition' }).code).toBe('failed_precondition');
  });

  it('ignores a code that is not one, as it ignores a status outside 400..599', () => {
    for (const code of ['alredy_exists', '', 6, null, 'toString', '__proto__']) {
      expect(new HTTPError(409, 'x', undefined, { code } as unknown as HTTPErrorOptions).code).toBe('conflict');
    }
  });

  it('reads the code of a copy from another instance of the package once, in toHTTPError', () => {
    const trap = (): never => {
      throw new Error('trap');
    };
    const foreign = Object.assign(new Error('Taken'), { name: 'HTTPError', statusCode: 409, expose: true });
    Object.defineProperty(foreign, 'code', { get: trap });
    expect(toHTTPError(foreign).statusCode).toBe(500);
  });
});
