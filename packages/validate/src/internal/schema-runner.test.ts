import { z } from 'zod';
import { fieldName, isSchema, issueCode, schemaRunner } from './schema-runner.js';

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
