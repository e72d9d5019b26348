import fc from 'fast-check';
import { Application, HTTPError, Router, type RouteContext } from '../../src/index.js';

// Property-based tests of route matching against a reference implementation written straight
// from the spec's rules (interface spec, "Route matching rules"):
// 1. `:name` segments are dynamic and match one non-empty segment; values are decoded strings;
// 2. exact static routes are matched first; dynamic routes next, in registration order;
// plus the documented choices: one trailing slash is ignored, paths are case-sensitive.

type Segment = { kind: 'static'; text: string } | { kind: 'param' };

/** Few static words, so that random tables overlap and precedence is really exercised. */
const WORDS = ['a', 'b', 'A', 'users', 'me', 'x-y', 'v1'] as const;

const segmentArb: fc.Arbitrary<Segment> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...WORDS).map((text): Segment => ({ kind: 'static', text })) },
  { weight: 2, arbitrary: fc.constant<Segment>({ kind: 'param' }) },
);

/** A route path from segments; params are named p0, p1… by position. */
function routePath(segments: Segment[]): string {
  if (segments.length === 0) return '/';
  return '/' + segments.map((s, i) => (s.kind === 'param' ? `:p${i}` : s.text)).join('/');
}

// A path is registered once: registering the same method and path shape twice throws. Params are
// named by position, so paths of the same shape are the same string.
const tableArb = fc.uniqueArray(fc.array(segmentArb, { minLength: 0, maxLength: 4 }).map(routePath), { minLength: 1, maxLength: 12 });

/** A param value: any text, percent-encoded on the way in. */
const valueArb = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 6 });

const normalize = (path: string): string => (path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path);

/** The spec's rules, the slow and obvious way. */
function referenceMatch(table: string[], path: string): { index: number; params: Record<string, string> } | null {
  const target = normalize(path);
  const staticIndex = table.findIndex((route) => !route.includes('/:') && route === target);
  if (staticIndex !== -1) return { index: staticIndex, params: {} };
  const parts = target.split('/');
  for (let index = 0; index < table.length; index++) {
    const route = table[index]!;
    if (!route.includes('/:')) continue;
    const pattern = route.split('/');
    if (pattern.length !== parts.length) continue;
    const params: Record<string, string> = {};
    const matches = pattern.every((segment, i) => {
      if (!segment.startsWith(':')) return segment === parts[i];
      if (parts[i] === '') return false;
      params[segment.slice(1)] = decodeURIComponent(parts[i]!);
      return true;
    });
    if (matches) return { index, params };
  }
  return null;
}

/** Registers the table on a router, each route with its own handler; returns handler → index. */
function build(table: string[]): { router: Router; indexOf: Map<unknown, number> } {
  const router = new Router();
  const indexOf = new Map<unknown, number>();
  table.forEach((path, index) => {
    const handler = (): void => undefined;
    indexOf.set(handler, index);
    router.get(path, handler);
  });
  return { router, indexOf };
}

/** A request path: one of the table's routes with its params filled in, or random segments. */
function requestArb(table: string[]): fc.Arbitrary<string> {
  const fromRoute = fc.tuple(fc.constantFrom(...table), fc.array(valueArb, { minLength: 4, maxLength: 4 }), fc.boolean()).map(([route, values, slash]) => {
    const path = route.split('/').map((segment, i) => (segment.startsWith(':') ? encodeURIComponent(values[i % values.length]!) : segment)).join('/');
    return slash && path !== '/' ? `${path}/` : path;
  });
  const random = fc
    .array(fc.oneof(fc.constantFrom(...WORDS, ''), valueArb.map(encodeURIComponent)), { minLength: 0, maxLength: 5 })
    .map((segments) => '/' + segments.join('/'));
  return fc.oneof({ weight: 3, arbitrary: fromRoute }, { weight: 1, arbitrary: random });
}

describe('route matching, property-based, against a reference implementation of the spec rules', () => {
  it('finds exactly the route the rules pick, with exactly its decoded params, for random tables and paths', () => {
    fc.assert(
      fc.property(
        tableArb.chain((table) => fc.tuple(fc.constant(table), fc.array(requestArb(table), { minLength: 1, maxLength: 10 }))),
        ([table, paths]) => {
          const { router, indexOf } = build(table);
          for (const path of paths) {
            const expected = referenceMatch(table, path);
            const found = router.findRoute('GET', path);
            if (expected === null) {
              expect(found).toBeNull();
            } else {
              expect(found).not.toBeNull();
              expect(indexOf.get(found!.route.handler)).toBe(expected.index);
              expect(found!.params).toEqual(expected.params);
            }
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('always finds a registered route with exactly its params when no earlier or static route claims the path', () => {
    fc.assert(
      fc.property(fc.array(segmentArb, { minLength: 1, maxLength: 5 }), fc.array(valueArb, { minLength: 5, maxLength: 5 }), (segments, values) => {
        const route = routePath(segments);
        const { router } = build([route]);
        const expected: Record<string, string> = {};
        const path = route
          .split('/')
          .map((segment, i) => {
            if (!segment.startsWith(':')) return segment;
            expected[segment.slice(1)] = values[i - 1]!;
            return encodeURIComponent(values[i - 1]!);
          })
          .join('/');
        const found = router.findRoute('GET', path);
        expect(found?.route.path).toBe(route);
        expect(found?.params).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });

  it('lets an exact static route win over every dynamic route, wherever it was registered', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 4 }),
        fc.array(fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }), { minLength: 1, maxLength: 6 }),
        fc.nat(),
        (words, masks, position) => {
          const staticPath = '/' + words.join('/');
          // Dynamic routes that all match the static path: some of its segments made params.
          const dynamic = [...new Set(masks.map((mask) => '/' + words.map((w, i) => (mask[i] ? `:p${i}` : w)).join('/')))].filter((p) => p.includes(':'));
          const table = [...dynamic];
          table.splice(position % (table.length + 1), 0, staticPath);
          const { router, indexOf } = build(table);
          expect(indexOf.get(router.findRoute('GET', staticPath)!.route.handler)).toBe(table.indexOf(staticPath));
          expect(router.findRoute('GET', staticPath)!.params).toEqual({});
        },
      ),
      { numRuns: 200 },
    );
  });

  it('gives a path matched by several dynamic routes to the first registered, whatever their shapes', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 4 }),
        fc.array(fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }), { minLength: 2, maxLength: 6 }),
        (words, masks) => {
          const path = '/' + words.join('/');
          const table = [...new Set(masks.map((mask) => '/' + words.map((w, i) => (mask[i] ? `:p${i}` : w)).join('/')))].filter((p) => p.includes(':'));
          fc.pre(table.length >= 2);
          const { router, indexOf } = build(table);
          expect(indexOf.get(router.findRoute('GET', path)!.route.handler)).toBe(0);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('never throws anything but a 400 HTTPError, whatever the path', () => {
    const { router } = build(['/a/:p1', '/users/:p1/b', '/:p0']);
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 30 }), fc.boolean(), (junk, slash) => {
        const path = (slash ? '/' : '') + junk;
        try {
          router.findRoute('GET', path);
        } catch (err) {
          expect(err).toBeInstanceOf(HTTPError);
          expect((err as HTTPError).statusCode).toBe(400);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('hands the handler the same params through the whole application (inject)', async () => {
    await fc.assert(
      fc.asyncProperty(
        tableArb.chain((table) => fc.tuple(fc.constant(table), requestArb(table))),
        async ([table, path]) => {
          const app = new Application();
          table.forEach((route, index) => app.get(route, (ctx: RouteContext) => ctx.json({ index, params: ctx.params })));
          const expected = referenceMatch(table, path);
          const res = await app.inject(path);
          if (expected === null) expect(res.statusCode).toBe(404);
          else expect(res.json()).toEqual(expected);
        },
      ),
      { numRuns: 100 },
    );
  });
});
