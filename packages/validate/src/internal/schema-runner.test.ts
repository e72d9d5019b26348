import { z } from 'zod';
import { eagerSchemaRunner, fieldName, isSchema, issueCode, runsUserCode, schemaRunner, type FieldNamer } from './schema-runner.js';

describe('fieldName', () => {
  it('names the part itself for an empty or missing path', () => {
    expect(fieldName('body', [])).toBe('body');
    expect(fieldName('query', undefined)).toBe('query');
  });

  it('joins keys and array indexes with dots', () => {
    expect(fieldName('body', ['items', 0, 'qty'])).toBe('body.items.0.qty');
    expect(fieldName('params', ['id'])).toBe('params.id');
  });

  it('reads Standard Schema path segments given as objects', () => {
    expect(fieldName('body', [{ key: 'address' }, { key: 'city' }])).toBe('body.address.city');
    expect(fieldName('query', ['list', { key: 2 }])).toBe('query.list.2');
  });

  it('writes a symbol key by its description', () => {
    expect(fieldName('body', [Symbol('meta'), 'x'])).toBe('body.meta.x');
  });
});

describe('issueCode', () => {
  it('prefers the issue code, then the valibot type, then "invalid"', () => {
    expect(issueCode({ message: 'm', code: 'too_small' } as never)).toBe('too_small');
    expect(issueCode({ message: 'm', kind: 'validation', type: 'min_length' } as never)).toBe('min_length');
    expect(issueCode({ message: 'm' })).toBe('invalid');
  });
});

describe('isSchema', () => {
  it('accepts zod schemas and Standard Schema objects, nothing else', () => {
    expect(isSchema(z.string())).toBe(true);
    expect(isSchema({ '~standard': { version: 1, vendor: 'x', validate: () => ({ value: 1 }) } })).toBe(true);
    expect(isSchema({ '~standard': { version: 2, vendor: 'x', validate: () => ({ value: 1 }) } })).toBe(false);
    expect(isSchema({ parse: () => 1 })).toBe(false);
    expect(isSchema(null)).toBe(false);
    expect(isSchema('string')).toBe(false);
  });
});

describe('schemaRunner', () => {
  it('gives the output on success and prefixed entries on failure', async () => {
    const run = schemaRunner('query', z.object({ n: z.coerce.number() }));
    await expect(run({ n: '4' })).resolves.toEqual({ ok: true, value: { n: 4 } });
    await expect(run({ n: 'x' })).resolves.toEqual({
      ok: false,
      errors: [{ field: 'query.n', message: 'Invalid input: expected number, received NaN', code: 'invalid_type' }],
    });
  });

  it('handles a Standard Schema validator that answers synchronously or with a promise', async () => {
    const sync = schemaRunner('body', { '~standard': { version: 1, vendor: 't', validate: (v) => ({ value: [v] }) } });
    await expect(sync(1)).resolves.toEqual({ ok: true, value: [1] });
    const later = schemaRunner('body', {
      '~standard': { version: 1, vendor: 't', validate: async () => ({ issues: [{ message: 'no', path: ['a'] }] }) },
    });
    await expect(later(1)).resolves.toEqual({ ok: false, errors: [{ field: 'body.a', message: 'no', code: 'invalid' }] });
  });

  it('rejects when the schema throws, synchronously or not', async () => {
    const boom = new Error('boom');
    const sync = schemaRunner('body', { '~standard': { version: 1, vendor: 't', validate: () => { throw boom; } } });
    await expect(sync(1)).rejects.toBe(boom);
    const zod = schemaRunner('body', z.string().transform(() => { throw boom; }));
    await expect(zod('x')).rejects.toBe(boom);
  });
});

describe('eagerSchemaRunner', () => {
  const name: FieldNamer = (path) => fieldName('', path);

  it('answers a zod schema without user code synchronously, stripping unknown keys', () => {
    const run = eagerSchemaRunner(z.object({ name: z.string().min(1).trim() }));
    expect(run({ name: ' a ', extra: 1 }, name)).toEqual({ ok: true, value: { name: 'a' } });
    expect(run({ name: '' }, name)).toEqual({ ok: false, errors: [{ field: 'name', message: 'Too small: expected string to have >=1 characters', code: 'too_small' }] });
  });

  it('runs a schema with a refinement through the async parse, calling the refinement once per value', async () => {
    const refine = jest.fn(async (v: string) => {
      await Promise.resolve();
      return v !== 'taken';
    });
    const run = eagerSchemaRunner(z.object({ name: z.string().refine(refine, 'taken') }));
    const pending = run({ name: 'free' }, name);
    expect(pending).toBeInstanceOf(Promise);
    await expect(pending).resolves.toEqual({ ok: true, value: { name: 'free' } });
    await expect(run({ name: 'taken' }, name)).resolves.toEqual({ ok: false, errors: [{ field: 'name', message: 'taken', code: 'custom' }] });
    expect(refine).toHaveBeenCalledTimes(2);
  });

  it('answers a Standard Schema validator as its validate does, sync or async', async () => {
    const sync = { '~standard': { version: 1 as const, vendor: 't', validate: (value: unknown) => ({ value }) } };
    expect(eagerSchemaRunner(sync)(1, name)).toEqual({ ok: true, value: 1 });
    const later = { '~standard': { version: 1 as const, vendor: 't', validate: () => Promise.resolve({ issues: [{ message: 'no', path: ['a'] }] }) } };
    await expect(eagerSchemaRunner(later)(1, name)).resolves.toEqual({ ok: false, errors: [{ field: 'a', message: 'no', code: 'invalid' }] });
  });
});

describe('runsUserCode', () => {
  it('is false for plain zod types and their built-in checks, recursive ones included', () => {
    type Node = { name: string; children: Node[] };
    const node: z.ZodType<Node> = z.lazy(() => z.object({ name: z.string(), children: z.array(node) }));
    expect(runsUserCode(z.object({ a: z.string().min(1).max(5).trim(), b: z.array(z.number().int()).optional(), c: z.union([z.literal('x'), z.null()]) }))).toBe(false);
    expect(runsUserCode(node)).toBe(false);
  });

  it('is true for refinements, transforms, custom and promise types, at any depth', () => {
    expect(runsUserCode(z.object({ a: z.array(z.string().refine(() => true)) }))).toBe(true);
    expect(runsUserCode(z.object({ a: z.string().optional() }).superRefine(() => undefined))).toBe(true);
    expect(runsUserCode(z.object({ a: z.string().transform((s) => s.length) }))).toBe(true);
    expect(runsUserCode(z.object({ a: z.custom<string>(() => true) }))).toBe(true);
    expect(runsUserCode({ '~standard': {} })).toBe(true);
  });
});
