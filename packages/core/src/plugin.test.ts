import { isHTTPError } from './http-error.js';
import { assertGetOrHead, bearerToken, BEARER_TOKEN, clientIp, createLogger } from './plugin.js';

describe('@fw/core/plugin', () => {
  describe('clientIp', () => {
    it('believes X-Forwarded-For only as far as trustProxy says', () => {
      expect(clientIp('10.0.0.1', '203.0.113.7, 10.0.0.2', false)).toBe('10.0.0.1');
      expect(clientIp('10.0.0.1', '203.0.113.7, 10.0.0.2', true)).toBe('203.0.113.7');
      expect(clientIp('10.0.0.1', '203.0.113.7, 10.0.0.2', 1)).toBe('10.0.0.2');
      expect(clientIp('10.0.0.1', '203.0.113.7, 10.0.0.2', 2)).toBe('203.0.113.7');
      expect(clientIp('10.0.0.1', '203.0.113.7, 10.0.0.2', ['10.0.0.1', '10.0.0.2'])).toBe('203.0.113.7');
      expect(clientIp('10.0.0.1', undefined, true)).toBe('10.0.0.1');
    });
  });

  describe('assertGetOrHead', () => {
    it('lets GET and HEAD through and throws 405 with Allow for anything else', () => {
      expect(() => assertGetOrHead({ method: 'GET' })).not.toThrow();
      expect(() => assertGetOrHead({ method: 'HEAD' })).not.toThrow();
      let thrown: unknown;
      try {
        assertGetOrHead({ method: 'POST' });
      } catch (err) {
        thrown = err;
      }
      expect(isHTTPError(thrown) && thrown.statusCode).toBe(405);
      expect(isHTTPError(thrown) && thrown.headers).toEqual({ allow: 'GET, HEAD' });
    });
  });

  describe('bearerToken', () => {
    it('reads the token of a well-formed bearer header, case-insensitively', () => {
      expect(bearerToken('Bearer abc.def-ghi_~+/==')).toBe('abc.def-ghi_~+/==');
      expect(bearerToken('bearer   tok ')).toBe('tok');
      expect(bearerToken(['Bearer first', 'Bearer second'])).toBe('first');
    });

    it('gives undefined for a missing, empty or malformed header', () => {
      for (const header of [undefined, '', 'Basic dXNlcg==', 'Bearer', 'Bearer a b', 'Bearer tok\u00e9']) expect(bearerToken(header)).toBeUndefined();
      expect(BEARER_TOKEN.test('Bearer ok')).toBe(true);
    });
  });

  describe('createLogger', () => {
    it('escapes the message and keeps a throwing log function from failing the caller', () => {
      const entries: string[] = [];
      const log = createLogger((message) => entries.push(message));
      log('line\nbreak');
      expect(entries).toEqual(['line\\nbreak']);
      const stderr = jest.spyOn(console, 'error').mockImplementation(() => undefined);
      try {
        const throwing = createLogger(() => {
          throw new Error('sink down');
        });
        expect(() => throwing('message')).not.toThrow();
        expect(String(stderr.mock.calls[0]?.[0])).toContain('message (onLog threw: Error: sink down');
      } finally {
        stderr.mockRestore();
      }
    });
  });
});
