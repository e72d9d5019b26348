import { decodeUnreserved, originForm } from './target.js';

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
