import { getIntrospectionQuery, parse } from 'graphql';
import { DEFAULT_GRAPHQL_LIMITS } from '../config.js';
import { checkDocumentLimits, oversizeBytes } from './limits.js';

const limits = (overrides: Partial<typeof DEFAULT_GRAPHQL_LIMITS> = {}) => ({ ...DEFAULT_GRAPHQL_LIMITS, ...overrides });

describe('checkDocumentLimits', () => {
  it('passes an ordinary query', () => {
    expect(checkDocumentLimits(parse('{ a { b { c } } d: e }'), limits())).toBeUndefined();
  });

  it('measures depth as the deepest field path, through inline fragments and spreads', () => {
    const document = parse('{ a { ... on T { b { ...F } } } } fragment F on T { c { d } }');
    expect(checkDocumentLimits(document, limits({ maxDepth: 4 }))).toBeUndefined();
    expect(checkDocumentLimits(document, limits({ maxDepth: 3 }))).toEqual({ limit: 'maxDepth', message: 'The operation is too deep: depth 4 exceeds the maximum depth of 3.' });
  });

  it('counts aliases once per use of a fragment', () => {
    const document = parse('{ x: a { ...F } y: a { ...F } } fragment F on T { p: b q: b }');
    expect(checkDocumentLimits(document, limits({ maxAliases: 6 }))).toBeUndefined();
    expect(checkDocumentLimits(document, limits({ maxAliases: 5 }))?.message).toBe('The operation uses 6 aliases; the maximum is 5.');
  });

  it('counts root fields through fragments and checks every operation', () => {
    const document = parse('query One { a } query Two { a ...F ... on Query { d } } fragment F on Query { b c }');
    expect(checkDocumentLimits(document, limits({ maxRootFields: 4 }))).toBeUndefined();
    expect(checkDocumentLimits(document, limits({ maxRootFields: 3 }))?.message).toBe('Operation "Two" selects 4 root fields; the maximum is 3.');
  });

  it('stays linear on fragments that fan out exponentially', () => {
    // Each fragment spreads the next one twice: 2^40 fields once expanded.
    const fanOut = (levels: number) => {
      const names = Array.from({ length: levels + 1 }, (_, i) => `F${i}`);
      const fragments = names.slice(0, -1).map((name, i) => `fragment ${name} on Query { ...${names[i + 1]} ...${names[i + 1]} }`);
      return parse(`{ ...F0 } ${fragments.join(' ')} fragment F${levels} on Query { a: b }`);
    };
    /** The best of five timings (the least disturbed by whatever else the machine runs). */
    const best = (document: ReturnType<typeof parse>): number =>
      Math.min(
        ...Array.from({ length: 5 }, () => {
          const started = performance.now();
          checkDocumentLimits(document, limits());
          return performance.now() - started;
        }),
      );
    const document = fanOut(40);
    // Twice the levels: linear work about doubles, expanded work would grow 2^20 times.
    const ratio = best(document) / Math.max(best(fanOut(20)), 0.01);
    expect(ratio).toBeLessThan(100);
    const violation = checkDocumentLimits(document, limits());
    expect(violation?.limit).toBe('maxAliases');
    expect(violation?.message).toBe(`The operation uses ${2 ** 40} aliases; the maximum is 30.`);
  });

  it('survives fragment cycles and unknown fragments (validation reports them)', () => {
    const document = parse('{ ...A ...Missing } fragment A on Query { x { ...B } } fragment B on X { y { ...A } }');
    expect(checkDocumentLimits(document, limits())).toBeUndefined();
  });

  it('does not count introspection nesting as depth, but counts its aliases', () => {
    expect(checkDocumentLimits(parse(getIntrospectionQuery({ inputValueDeprecation: true })), limits({ maxDepth: 3 }))).toBeUndefined();
    const aliased = parse(`{ __schema { ${Array.from({ length: 31 }, (_, i) => `t${i}: types { name }`).join(' ')} } }`);
    expect(checkDocumentLimits(aliased, limits())?.limit).toBe('maxAliases');
  });

  it('checks nothing when every limit is off', () => {
    const off = limits({ maxDepth: false, maxAliases: false, maxRootFields: false });
    expect(checkDocumentLimits(parse(`{ ${'a { '.repeat(50)}b${' }'.repeat(50)} }`), off)).toBeUndefined();
  });
});

describe('oversizeBytes', () => {
  it('counts UTF-8 bytes, not characters', () => {
    expect(oversizeBytes('abc', 3)).toBeUndefined();
    expect(oversizeBytes('abcd', 3)).toBe(4);
    expect(oversizeBytes('éé', 3)).toBe(4);
    expect(oversizeBytes('é', 3)).toBeUndefined();
    expect(oversizeBytes('😀', 3)).toBe(4);
  });
});
