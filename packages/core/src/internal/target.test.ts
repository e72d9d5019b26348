import { isHTTPError } from '../http-error.js';
import { decodePathPart, decodeUnreserved, originForm } from './target.js';

describe('originForm', () => {
  it('keeps origin-form targets and strips scheme and authority from absolute-form ones', () => {
    expect(originForm('/a/b?c=1')).toBe('/a/b?c=1');
    expect(originForm('http://h:3000/a/b?c=1')).toBe('/a/b?c=1');
    expect(originForm('HtTpS://h')).toBe('/');
    expect(originForm('http://h?x=1')).toBe('/?x=1');
    expect(originForm('*')).toBe('*');
    expect(originForm('ftp://h/a')).toBe('ftp://h/a');
  });
});

describe('decodeUnreserved', () => {
  it('decodes only unreserved characters, in either hex case', () => {
    expect(decodeUnreserved('/%61dmin/%7e%7E%2d%2E%5F%30')).toBe('/admin/~~-._0');
    expect(decodeUnreserved('/a%2Fb%20c%25d%C3%A9')).toBe('/a%2Fb%20c%25d%C3%A9');
    expect(decodeUnreserved('/plain')).toBe('/plain');
  });

  it('never decodes twice and leaves paths with invalid escapes unchanged', () => {
    expect(decodeUnreserved('/%2561')).toBe('/%2561');
    expect(decodeUnreserved(decodeUnreserved('/%25%36%31'))).toBe('/%2561');
    expect(decodeUnreserved('/%%36%31')).toBe('/%%36%31');
    expect(decodeUnreserved('/%61%6')).toBe('/%61%6');
    expect(decodeUnreserved('/%61%')).toBe('/%61%');
  });
});

describe('decodePathPart', () => {
  it('decodes every escape, reserved characters included', () => {
    expect(decodePathPart('a%2Fb%20c%25d%C3%A9')).toBe('a/b c%dé');
    expect(decodePathPart('plain')).toBe('plain');
  });

  it('refuses invalid percent-encoding with one 400, whether the part is a param or the whole path', () => {
    for (const bad of ['%', '%zz', '%E0%A4%A', '/files/%C3', '/a/%ED%A0%80']) {
      let thrown: unknown;
      try {
        decodePathPart(bad);
      } catch (err) {
        thrown = err;
      }
      expect(isHTTPError(thrown) && [thrown.statusCode, thrown.message]).toEqual([400, 'Invalid percent-encoding in path']);
    }
  });
});
