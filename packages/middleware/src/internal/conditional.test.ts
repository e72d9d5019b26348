import { ifNoneMatchMatches, parseHttpDate } from './conditional.js';

describe('ifNoneMatchMatches()', () => {
  it('compares opaque tags, W/ ignored on either side', () => {
    expect(ifNoneMatchMatches('"a"', '"a"')).toBe(true);
    expect(ifNoneMatchMatches('W/"a"', '"a"')).toBe(true);
    expect(ifNoneMatchMatches('"a"', 'W/"a"')).toBe(true);
    expect(ifNoneMatchMatches('"A"', '"a"')).toBe(false);
    expect(ifNoneMatchMatches('"ab"', '"a"')).toBe(false);
  });

  it('reads a list by its grammar: separators, whitespace, tags with commas', () => {
    expect(ifNoneMatchMatches(' "x" ,\t"y", W/"a"', '"a"')).toBe(true);
    expect(ifNoneMatchMatches('"x,a"', '"a"')).toBe(false);
    expect(ifNoneMatchMatches('"x,a"', '"x,a"')).toBe(true);
    expect(ifNoneMatchMatches(',,,', '"a"')).toBe(false);
  });

  it('takes * as the whole value only', () => {
    expect(ifNoneMatchMatches('*', '"a"')).toBe(true);
    expect(ifNoneMatchMatches('"b", *', '"a"')).toBe(false);
  });

  it('compares a member that is not a quoted tag as it is written, and stops at an unterminated one', () => {
    expect(ifNoneMatchMatches('abc, "a"', '"a"')).toBe(true);
    expect(ifNoneMatchMatches('abc', 'abc')).toBe(true);
    expect(ifNoneMatchMatches('"x, "a"', '"a"')).toBe(false);
    expect(ifNoneMatchMatches('W/', '"a"')).toBe(false);
  });
});

describe('parseHttpDate()', () => {
  const TIME = Date.UTC(1994, 10, 6, 8, 49, 37);

  it('reads the three forms RFC 9110 §5.6.7 names', () => {
    expect(parseHttpDate('Sun, 06 Nov 1994 08:49:37 GMT')).toBe(TIME);
    expect(parseHttpDate('Sunday, 06-Nov-94 08:49:37 GMT')).toBe(TIME);
    expect(parseHttpDate('Sun Nov  6 08:49:37 1994')).toBe(TIME);
    expect(parseHttpDate('Sun Nov 16 08:49:37 1994')).toBe(Date.UTC(1994, 10, 16, 8, 49, 37));
  });

  it('refuses anything else: ISO dates, other zones, impossible days and times, lower-case names', () => {
    for (const value of [
      '1994-11-06T08:49:37Z',
      'Sun, 06 Nov 1994 08:49:37 +0000',
      'Sun, 6 Nov 1994 08:49:37 GMT',
      'Sun, 31 Feb 1994 08:49:37 GMT',
      'Sun, 06 Nov 1994 24:00:00 GMT',
      'Sun, 06 Nov 1994 08:60:00 GMT',
      'sun, 06 nov 1994 08:49:37 GMT',
      'Sun, 06 Xyz 1994 08:49:37 GMT',
      'Sun, 06 Nov 1994 08:49:37 GMT, Mon, 07 Nov 1994 08:49:37 GMT',
      '',
    ]) {
      expect([value, parseHttpDate(value)]).toEqual([value, undefined]);
    }
  });

  it('takes a leap second as the second before it', () => {
    expect(parseHttpDate('Sat, 31 Dec 2016 23:59:60 GMT')).toBe(Date.UTC(2016, 11, 31, 23, 59, 59));
  });
});
