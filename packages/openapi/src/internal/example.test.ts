import { exampleFor, NoExampleError } from './example.js';
import type { JSONSchema } from '../types.js';

const none = (): undefined => undefined;
const ex = (schema: JSONSchema, resolve: (ref: string) => JSONSchema | undefined = none): unknown => exampleFor(schema, resolve);

describe('exampleFor', () => {
  it('prefers the values the schema gives: examples, example, default, const, enum', () => {
    expect(ex({ type: 'string', examples: ['a', 'b'], default: 'c' })).toBe('a');
    expect(ex({ type: 'string', example: 'e', default: 'c' })).toBe('e');
    expect(ex({ type: 'integer', default: 7 })).toBe(7);
    expect(ex({ const: 'fixed' })).toBe('fixed');
    expect(ex({ enum: [null, 'x'] })).toBe('x');
  });

  it('builds strings from format and length bounds, and refuses patterns', () => {
    expect(ex({ type: 'string', format: 'email' })).toBe('user@example.com');
    expect(ex({ type: 'string', format: 'uuid' })).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(ex({ type: 'string', minLength: 10 })).toBe('examplexxx');
    expect(ex({ type: 'string', maxLength: 3 })).toBe('exa');
    expect(() => ex({ type: 'string', pattern: '^\\d+$' })).toThrow(NoExampleError);
  });

  it('builds numbers inside their bounds and multiples', () => {
    expect(ex({ type: 'integer' })).toBe(1);
    expect(ex({ type: 'integer', minimum: 5 })).toBe(5);
    expect(ex({ type: 'integer', exclusiveMinimum: 0 })).toBe(1);
    expect(ex({ type: 'integer', maximum: -3 })).toBe(-3);
    expect(ex({ type: 'number', exclusiveMinimum: 1 })).toBe(1.5);
    expect(ex({ type: 'integer', minimum: 3, multipleOf: 5 })).toBe(5);
    expect(() => ex({ type: 'integer', minimum: 3, maximum: 4, multipleOf: 5 })).toThrow('no multiple of 5');
    expect(() => ex({ type: 'integer', minimum: 1.2, maximum: 1.8 })).toThrow(NoExampleError);
  });

  it('builds objects from their required properties, arrays with the fewest items allowed, unions from the first non-null branch', () => {
    expect(ex({ type: 'object', properties: { a: { type: 'string' }, b: { type: 'boolean' } }, required: ['a'] })).toEqual({ a: 'example' });
    expect(ex({ type: 'array', items: { type: 'integer' }, minItems: 2 })).toEqual([1, 1]);
    expect(ex({ type: 'array', items: { type: 'integer' } })).toEqual([1]);
    expect(ex({ type: 'array', items: { type: 'integer' }, maxItems: 0 })).toEqual([]);
    expect(ex({ type: 'array', prefixItems: [{ type: 'string' }, { type: 'boolean' }] })).toEqual(['example', true]);
    expect(ex({ anyOf: [{ type: 'null' }, { type: 'integer', minimum: 2 }] })).toBe(2);
    expect(ex({ type: ['null', 'boolean'] })).toBe(true);
    expect(ex({ allOf: [{ type: 'object', properties: { a: { type: 'string' } }, required: ['a'] }, { type: 'object', properties: { b: { type: 'integer' } }, required: ['b'] }] })).toEqual({ a: 'example', b: 1 });
    expect(ex({})).toBe('example');
  });

  it('follows $refs, and stops on a recursion that every value must repeat', () => {
    const schemas: Record<string, JSONSchema> = {
      '#/components/schemas/Tag': { type: 'object', properties: { label: { type: 'string', minLength: 2 } }, required: ['label'] },
      '#/components/schemas/Loop': { type: 'object', properties: { next: { $ref: '#/components/schemas/Loop' } }, required: ['next'] },
    };
    const resolve = (ref: string): JSONSchema | undefined => schemas[ref];
    expect(ex({ type: 'array', items: { $ref: '#/components/schemas/Tag' } }, resolve)).toEqual([{ label: 'example' }]);
    expect(() => ex({ $ref: '#/components/schemas/Loop' }, resolve)).toThrow('nests too deep');
    expect(() => ex({ $ref: '#/components/schemas/Nope' }, resolve)).toThrow('cannot resolve #/components/schemas/Nope');
  });
});
