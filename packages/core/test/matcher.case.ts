import type { Matcher } from '../src/internal/matcher.js';

/**
 * The behaviour every Matcher implementation must have (interface spec, "Route matching rules").
 * Call it from a test file with a factory for the implementation under test.
 */
export function runMatcherSuite(name: string, create: () => Matcher<string>): void {
  describe(`${name}: route matching rules`, () => {
    const match = (m: Matcher<string>, method: string, path: string) => m.match(method, path);

    it('matches a static route exactly', () => {
      const m = create();
      m.add('GET', '/users', 'users');
      expect(match(m, 'GET', '/users')?.value).toBe('users');
      expect(match(m, 'GET', '/user')).toBeNull();
      expect(match(m, 'GET', '/users/x')).toBeNull();
    });

    it('keeps methods apart', () => {
      const m = create();
      m.add('GET', '/a', 'get');
      m.add('POST', '/a', 'post');
      expect(match(m, 'GET', '/a')?.value).toBe('get');
      expect(match(m, 'POST', '/a')?.value).toBe('post');
      expect(match(m, 'PUT', '/a')).toBeNull();
    });

    it('puts :name segments into params as strings', () => {
      const m = create();
      m.add('GET', '/users/:id/posts/:postId', 'post');
      expect(match(m, 'GET', '/users/42/posts/7')).toEqual({ value: 'post', params: { id: '42', postId: '7' } });
    });

    it('does not let a param match an empty segment', () => {
      const m = create();
      m.add('GET', '/users/:id', 'user');
      expect(match(m, 'GET', '/users/')).toBeNull();
      expect(match(m, 'GET', '/users//')).toBeNull();
    });

    it('prefers a static route over a dynamic one registered earlier', () => {
      const m = create();
      m.add('GET', '/users/:id', 'dynamic');
      m.add('GET', '/users/me', 'static');
      expect(match(m, 'GET', '/users/me')?.value).toBe('static');
      expect(match(m, 'GET', '/users/you')?.value).toBe('dynamic');
    });

    it('tries dynamic routes in registration order', () => {
      const m = create();
      m.add('GET', '/a/:x/c', 'first');
      m.add('GET', '/a/b/:y', 'second');
      expect(match(m, 'GET', '/a/b/c')).toEqual({ value: 'first', params: { x: 'b' } });
      expect(match(m, 'GET', '/a/b/d')).toEqual({ value: 'second', params: { y: 'd' } });
    });

    it('tries dynamic routes in registration order the other way round too', () => {
      const m = create();
      m.add('GET', '/a/b/:y', 'first');
      m.add('GET', '/a/:x/c', 'second');
      expect(match(m, 'GET', '/a/b/c')).toEqual({ value: 'first', params: { y: 'c' } });
      expect(match(m, 'GET', '/a/z/c')).toEqual({ value: 'second', params: { x: 'z' } });
    });

    it('backtracks when a static branch dead-ends', () => {
      const m = create();
      m.add('GET', '/files/new/edit', 'static-deep');
      m.add('GET', '/files/:id', 'by-id');
      m.add('GET', '/files/:id/raw', 'raw');
      expect(match(m, 'GET', '/files/new')).toEqual({ value: 'by-id', params: { id: 'new' } });
      expect(match(m, 'GET', '/files/new/raw')).toEqual({ value: 'raw', params: { id: 'new' } });
      expect(match(m, 'GET', '/files/new/edit')?.value).toBe('static-deep');
    });

    it('keeps the params of the winning route only', () => {
      const m = create();
      m.add('GET', '/:a/x/:b', 'first');
      m.add('GET', '/:c/:d/y', 'second');
      expect(match(m, 'GET', '/1/2/y')).toEqual({ value: 'second', params: { c: '1', d: '2' } });
      expect(match(m, 'GET', '/1/x/z')).toEqual({ value: 'first', params: { a: '1', b: 'z' } });
    });

    it('has no optional segments', () => {
      const m = create();
      m.add('GET', '/posts/:id', 'post');
      expect(match(m, 'GET', '/posts')).toBeNull();
    });

    it('ignores one trailing slash on both sides', () => {
      const m = create();
      m.add('GET', '/users', 'users');
      m.add('GET', '/users/:id/', 'user');
      expect(match(m, 'GET', '/users/')?.value).toBe('users');
      expect(match(m, 'GET', '/users/1')?.value).toBe('user');
      expect(match(m, 'GET', '/users/1/')?.params).toEqual({ id: '1' });
    });

    it('matches case-sensitively', () => {
      const m = create();
      m.add('GET', '/Users', 'users');
      expect(match(m, 'GET', '/users')).toBeNull();
      expect(match(m, 'GET', '/Users')?.value).toBe('users');
    });

    it('matches the root path', () => {
      const m = create();
      m.add('GET', '/', 'root');
      expect(match(m, 'GET', '/')?.value).toBe('root');
    });

    it('keeps the first of two identical registrations', () => {
      const m = create();
      m.add('GET', '/same', 'first');
      m.add('GET', '/same', 'second');
      m.add('GET', '/p/:x', 'first-dyn');
      m.add('GET', '/p/:y', 'second-dyn');
      expect(match(m, 'GET', '/same')?.value).toBe('first');
      expect(match(m, 'GET', '/p/1')).toEqual({ value: 'first-dyn', params: { x: '1' } });
    });

    it('returns raw param values (decoding is the router’s job)', () => {
      const m = create();
      m.add('GET', '/q/:v', 'q');
      expect(match(m, 'GET', '/q/a%20b')?.params).toEqual({ v: 'a%20b' });
    });

    it('compares static segments as given (decoding unreserved escapes is the router’s job)', () => {
      const m = create();
      m.add('GET', '/admin/users', 'static');
      m.add('GET', '/:section/users', 'dynamic');
      expect(match(m, 'GET', '/admin/users')?.value).toBe('static');
      expect(match(m, 'GET', '/%61dmin/users')).toEqual({ value: 'dynamic', params: { section: '%61dmin' } });
      expect(match(m, 'GET', '/a%2Fb/users')).toEqual({ value: 'dynamic', params: { section: 'a%2Fb' } });
    });

    it('compares whole segments, never a prefix or a longer segment', () => {
      const m = create();
      m.add('GET', '/users/me', 'me');
      m.add('GET', '/users/:id', 'user');
      expect(match(m, 'GET', '/users/mee')).toEqual({ value: 'user', params: { id: 'mee' } });
      expect(match(m, 'GET', '/users/m')).toEqual({ value: 'user', params: { id: 'm' } });
      expect(match(m, 'GET', '/users/Me')).toEqual({ value: 'user', params: { id: 'Me' } });
      expect(match(m, 'GET', '/usersme')).toBeNull();
    });

    it('finds static segments among many of one length, and very long ones', () => {
      const m = create();
      const long = 'x'.repeat(100);
      for (let i = 0; i < 40; i++) m.add('GET', `/k/${String(i).padStart(3, '0')}/:id`, `k${i}`);
      m.add('GET', `/k/${long}`, 'long');
      m.add('GET', `/k/${long}/:id`, 'long-dyn');
      for (let i = 0; i < 40; i++) expect(match(m, 'GET', `/k/${String(i).padStart(3, '0')}/z`)).toEqual({ value: `k${i}`, params: { id: 'z' } });
      expect(match(m, 'GET', '/k/040/z')).toBeNull();
      expect(match(m, 'GET', `/k/${long}`)?.value).toBe('long');
      expect(match(m, 'GET', `/k/${long}/7`)).toEqual({ value: 'long-dyn', params: { id: '7' } });
      expect(match(m, 'GET', `/k/${long}x`)).toBeNull();
    });

    it('matches empty segments of a static route exactly', () => {
      const m = create();
      m.add('GET', '/a//b', 'gap');
      m.add('GET', '/a/:x/b', 'param');
      expect(match(m, 'GET', '/a//b')?.value).toBe('gap');
      expect(match(m, 'GET', '/a/y/b')?.value).toBe('param');
    });

    it('matches a path without a leading slash only as an exact static route', () => {
      const m = create();
      m.add('GET', '*', 'star');
      m.add('GET', '/:x', 'param');
      expect(match(m, 'GET', '*')?.value).toBe('star');
      expect(match(m, 'GET', '/*')).toEqual({ value: 'param', params: { x: '*' } });
      expect(match(m, 'GET', 'other')).toBeNull();
      expect(match(m, 'GET', '')).toBeNull();
    });

    it('finds routes added after a match as well', () => {
      const m = create();
      m.add('GET', '/a/:x', 'first');
      expect(match(m, 'GET', '/a/b')?.value).toBe('first');
      m.add('GET', '/a/b', 'static');
      m.add('GET', '/c/:y', 'later');
      m.add('POST', '/a/:x', 'post');
      expect(match(m, 'GET', '/a/b')?.value).toBe('static');
      expect(match(m, 'GET', '/a/c')).toEqual({ value: 'first', params: { x: 'c' } });
      expect(match(m, 'GET', '/c/1')).toEqual({ value: 'later', params: { y: '1' } });
      expect(match(m, 'POST', '/a/b')).toEqual({ value: 'post', params: { x: 'b' } });
    });

    it('returns a fresh params object for every dynamic match', () => {
      const m = create();
      m.add('GET', '/p/:id', 'p');
      const first = match(m, 'GET', '/p/1')!;
      first.params['id'] = 'changed';
      expect(match(m, 'GET', '/p/1')?.params).toEqual({ id: '1' });
    });

    it('finds every route of a large table with its params', () => {
      const m = create();
      const routes: Array<[string, string]> = [];
      for (let i = 0; i < 200; i++) {
        routes.push([`/r${i}/:id`, `d${i}`], [`/r${i}/static`, `s${i}`], [`/r${i}/:id/sub/:sub`, `n${i}`]);
      }
      for (const [path, value] of routes) m.add('GET', path, value);
      for (let i = 0; i < 200; i++) {
        expect(match(m, 'GET', `/r${i}/abc`)).toEqual({ value: `d${i}`, params: { id: 'abc' } });
        expect(match(m, 'GET', `/r${i}/static`)?.value).toBe(`s${i}`);
        expect(match(m, 'GET', `/r${i}/x/sub/y`)).toEqual({ value: `n${i}`, params: { id: 'x', sub: 'y' } });
      }
    });
  });
}
