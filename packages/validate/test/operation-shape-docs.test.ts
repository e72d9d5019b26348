import type { ObjectShape, TypeShape } from '@fw/core';
import { z } from 'zod';
import { defineOperation } from '../src/index.js';

// What the shapes carry for documents that describe types with JSON Schema (OpenAPI): the checks as
// zod's toJSONSchema states them, and the annotations of .meta().

const handler = (): never => {
  throw new Error('not called');
};

const outputOf = (output: z.ZodType): TypeShape => defineOperation({ name: 'probe', input: z.object({}), output, handler }).output;
const inputOf = (input: z.ZodObject): ObjectShape => defineOperation({ name: 'probe', input, output: z.string(), handler }).input;

it('carries the length bounds, patterns and format of a string', () => {
  expect(outputOf(z.string().min(2).max(5).regex(/^a/))).toEqual({ kind: 'scalar', scalar: 'string', minLength: 2, maxLength: 5, patterns: ['^a'] });
  expect(outputOf(z.url())).toEqual({ kind: 'scalar', scalar: 'string', format: 'uri' });
  expect(outputOf(z.email())).toMatchObject({ format: 'email', patterns: [expect.any(String)] });
  expect(outputOf(z.iso.datetime({ local: true }))).not.toHaveProperty('format');
});

it('carries the bounds and divisors of a number, the tighter bound of each side', () => {
  expect(outputOf(z.number().gt(1).gte(0).lte(5).multipleOf(0.5))).toEqual({ kind: 'scalar', scalar: 'float', exclusiveMinimum: 1, maximum: 5, multipleOf: [0.5] });
  expect(outputOf(z.int32())).toEqual({ kind: 'scalar', scalar: 'int32', minimum: -(2 ** 31), maximum: 2 ** 31 - 1 });
});

it('carries the length bounds of a list, the size and media types of a file, and strictness of an object', () => {
  expect(outputOf(z.array(z.boolean()).min(1).max(3))).toEqual({ kind: 'list', of: { kind: 'scalar', scalar: 'boolean' }, minItems: 1, maxItems: 3 });
  expect(inputOf(z.object({ f: z.file().max(10).mime(['image/png']) })).fields[0]!.type).toEqual({ kind: 'scalar', scalar: 'file', maxLength: 10, mime: ['image/png'] });
  expect(inputOf(z.strictObject({ a: z.string() }))).toMatchObject({ strict: true });
});

it('carries the annotations of .meta() on the type, and those of the wrappers on the field', () => {
  const Tag = z.string().meta({ title: 'Tag', examples: ['a'], deprecated: true, 'x-internal': true });
  expect(outputOf(Tag)).toEqual({ kind: 'scalar', scalar: 'string', title: 'Tag', examples: ['a'], deprecated: true, annotations: { 'x-internal': true } });
  const shape = inputOf(z.object({ n: z.int32().default(3).describe('three'), s: z.string().readonly().optional().meta({ examples: ['x'] }) }));
  expect(shape.fields.map((f) => f.annotations)).toEqual([{ default: 3, description: 'three' }, { readOnly: true, examples: ['x'] }]);
});

it('keeps one frozen shape per schema', () => {
  const Author = z.object({ name: z.string().min(1) }).meta({ id: 'Author' });
  const shape = outputOf(z.object({ a: Author, b: Author })) as ObjectShape;
  expect(shape.fields[0]!.type).toBe(shape.fields[1]!.type);
  expect(Object.isFrozen(shape.fields[0]!.type)).toBe(true);
});
