import fc from 'fast-check';
import { HTTPError } from '../http-error.js';
import { parseQuery } from './query.js';

describe('parseQuery', () => {
  it('parses pairs, empty values and keys without "="', () => {
    expect({ ...parseQuery('a=1&b=&c&d=x=y') }).toEqual({ a: '1', b: '', c: '', d: 'x=y' });
  });

  it('skips empty pairs', () => {
    expect({ ...parseQuery('&&a=1&&') }).toEqual({ a: '1' });
    expect({ ...parseQuery('') }).toEqual({});
  });

  it('collects repeated keys into an array in order', () => {
    expect({ ...parseQuery('a=1&b=2&a=3&a=4') }).toEqual({ a: ['1', '3', '4'], b: '2' });
  });

  it('treats brackets as part of the key', () => {
    expect({ ...parseQuery('a[b]=1&a[]=2') }).toEqual({ 'a[b]': '1', 'a[]': '2' });
  });

  it('throws a 400 for invalid percent-encoding, naming what was parsed', () => {
    expect(() => parseQuery('a=%')).toThrow(HTTPError);
    expect(() => parseQuery('a=%E0%A4%A', 10, 'request body')).toThrow('Invalid percent-encoding in request body');
    expect(() => parseQuery('%zz=1')).toThrow(expect.objectContaining({ statusCode: 400 }));
  });

  it('throws a 400 past maxKeys pairs, counting repeated keys', () => {
    expect(() => parseQuery('a=1&a=2&a=3', 2)).toThrow('Too many parameters in query string (limit 2)');
    expect(() => parseQuery('a=1&a=2', 2)).not.toThrow();
  });

  it('round-trips anything URLSearchParams encodes', () => {
    const key = fc.string({ minLength: 1, maxLength: 8, unit: 'grapheme' });
    const value = fc.string({ maxLength: 12, unit: 'grapheme' });
    fc.assert(
      fc.property(fc.array(fc.tuple(key, value), { maxLength: 10 }), (pairs) => {
        const encoded = new URLSearchParams(pairs).toString();
        const expected = Object.create(null) as Record<string, string | string[]>;
        for (const [k, v] of pairs) {
          const existing = expected[k];
          expected[k] = existing === undefined ? v : Array.isArray(existing) ? [...existing, v] : [existing, v];
        }
        expect({ ...parseQuery(encoded) }).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });
});
