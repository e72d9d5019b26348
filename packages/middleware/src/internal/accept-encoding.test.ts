import { negotiateEncoding } from './accept-encoding.js';

describe('negotiateEncoding', () => {
  const server = ['br', 'gzip'] as const;

  it.each([
    // [Accept-Encoding, chosen coding (undefined: identity)]
    [undefined, undefined],
    ['', undefined],
    ['gzip', 'gzip'],
    ['br', 'br'],
    ['GZIP', 'gzip'],
    ['x-gzip', 'gzip'],
    ['gzip, deflate, br', 'br'],
    ['gzip, br', 'br'],
    ['br;q=0.5, gzip', 'gzip'],
    ['br;q=0.8, gzip;q=0.8', 'br'],
    ['gzip;q=0.8, br;q=0.8', 'br'],
    ['gzip;q=1.0, br;q=0.999', 'gzip'],
    ['br;q=0, gzip', 'gzip'],
    ['br;q=0, gzip;q=0', undefined],
    ['*', 'br'],
    ['*;q=0.5, gzip', 'gzip'],
    ['gzip;q=0.2, *;q=0.5', 'br'],
    ['deflate', undefined],
    ['compress, deflate', undefined],
    ['identity', undefined],
    ['gzip;q=0.5, identity', undefined],
    ['gzip;q=0.5, identity;q=0.5', 'gzip'],
    ['gzip, identity;q=0', 'gzip'],
    // Identity refused and nothing weighed: a coding the client did not refuse still goes out.
    ['identity;q=0', 'br'],
    ['identity;q=0, br;q=0', 'gzip'],
    // Everything refused: identity anyway (no 406).
    ['*;q=0', undefined],
    ['br;q=0, gzip;q=0, identity;q=0', undefined],
    ['*;q=0, gzip', 'gzip'],
    // A q that is not a qvalue drops its entry.
    ['br;q=2, gzip', 'gzip'],
    ['br;q=abc', undefined],
    ['br;q=0.0001, gzip;q=0.1', 'gzip'],
    ['br ; q = 0.9 , gzip ; q=0.8', 'br'],
    [' , ,gzip', 'gzip'],
    [['gzip;q=0.5', 'br'], 'br'],
  ])('Accept-Encoding %j → %s', (header, expected) => {
    expect(negotiateEncoding(header, server)).toBe(expected);
  });

  it('follows the server order among equal weights, whatever order the client lists them in', () => {
    expect(negotiateEncoding('br, gzip', ['gzip', 'br'])).toBe('gzip');
    expect(negotiateEncoding('*', ['gzip', 'br'])).toBe('gzip');
    expect(negotiateEncoding('gzip, deflate', ['deflate', 'gzip'])).toBe('deflate');
  });

  it('offers only the codings the server has', () => {
    expect(negotiateEncoding('zstd, br', ['br', 'gzip'])).toBe('br');
    expect(negotiateEncoding('zstd', ['br', 'gzip'])).toBeUndefined();
    expect(negotiateEncoding('gzip', [])).toBeUndefined();
  });
});
