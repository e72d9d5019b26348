import { HTTPError } from '../index.js';
import { parseJSON } from '../plugin.js';

const nested = (depth: number, inner = '1'): string => `${'['.repeat(depth)}${inner}${']'.repeat(depth)}`;

function refusal(fn: () => unknown): HTTPError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(HTTPError);
    return err as HTTPError;
  }
  throw new Error('expected a refusal');
}

describe('parseJSON', () => {
  it('parses ordinary JSON', () => {
    expect(parseJSON('{"a":[1,{"b":"c"}],"d":null}')).toEqual({ a: [1, { b: 'c' }], d: null });
  });

  it('refuses malformed JSON with a 400', () => {
    const err = refusal(() => parseJSON('{"a":'));
    expect(err.statusCode).toBe(400);
    expect(err.message).toBe('Malformed JSON in request body');
  });

  it('refuses __proto__ and constructor.prototype keys at any depth, also when escaped', () => {
    for (const text of ['{"__proto__":{}}', '[{"a":{"constructor":{"prototype":{}}}}]', '{"\\u005f_proto__":1}', '{"x":{"\\u005F\\u005Fproto__":1}}']) {
      expect(refusal(() => parseJSON(text)).statusCode).toBe(400);
    }
    expect(parseJSON('{"constructor":"fine","s":"\\"__proto__\\": no"}')).toEqual({ constructor: 'fine', s: '"__proto__": no' });
  });

  it('accepts nesting exactly at the default limit of 64 and refuses one level more', () => {
    expect(parseJSON(nested(64))).toBeInstanceOf(Array);
    const err = refusal(() => parseJSON(nested(65)));
    expect(err.statusCode).toBe(400);
    expect(err.message).toBe('JSON nested deeper than 64 levels');
  });

  it('counts objects and arrays alike', () => {
    const objects = (depth: number): string => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
    expect(parseJSON(objects(64))).toBeDefined();
    expect(refusal(() => parseJSON(objects(65))).message).toBe('JSON nested deeper than 64 levels');
  });

  it('ignores brackets inside strings, escaped quotes included', () => {
    const inString = `["${'['.repeat(200)}\\"${'{'.repeat(200)}"]`;
    expect(parseJSON(inString, { maxDepth: 1 })).toEqual([`${'['.repeat(200)}"${'{'.repeat(200)}`]);
    expect(parseJSON('["\\\\", [1]]', { maxDepth: 2 })).toEqual(['\\', [1]]);
    expect(refusal(() => parseJSON('["\\\\", [[1]]]', { maxDepth: 2 })).statusCode).toBe(400);
  });

  it('counts nesting, not brackets: siblings beyond the limit pass, mixed nesting one over fails', () => {
    expect(parseJSON(`[${Array(100).fill('{}').join(',')}]`, { maxDepth: 2 })).toHaveLength(100);
    const mixed = (pairs: number, extra: string): string => `${'{"a":['.repeat(pairs)}${extra}${']}'.repeat(pairs)}`;
    expect(parseJSON(mixed(32, '1'))).toBeDefined();
    expect(refusal(() => parseJSON(mixed(32, '{}'))).message).toBe('JSON nested deeper than 64 levels');
  });

  it('takes the limit from maxDepth', () => {
    expect(parseJSON(nested(3), { maxDepth: 3 })).toEqual([[[1]]]);
    expect(refusal(() => parseJSON(nested(4), { maxDepth: 3 })).message).toBe('JSON nested deeper than 3 levels');
    expect(parseJSON(nested(1000), { maxDepth: 1000 })).toBeInstanceOf(Array);
  });

  it('answers 400, not a stack overflow, for 100,000 levels of brackets', () => {
    expect(refusal(() => parseJSON('['.repeat(100_000))).statusCode).toBe(400);
    expect(refusal(() => parseJSON(nested(100_000, '{"\\u005f_proto__":1}'))).statusCode).toBe(400);
  });

  it('rejects a maxDepth that is not a positive integer', () => {
    for (const maxDepth of [0, -1, 2.5, Number.NaN]) expect(() => parseJSON('1', { maxDepth })).toThrow(TypeError);
  });
});
