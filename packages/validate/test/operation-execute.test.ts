import { HTTPError, isHTTPError, isValidationError, ValidationError, type RequestContext } from '@fw/core';
import { ContextVariables, runOperation } from '@fw/core/plugin';
import { z } from 'zod';
import * as zm from 'zod/mini';
import { defineOperation } from '../src/index.js';

// execute(): validation, the handler, output shaping; without a protocol in between.

function context(): RequestContext {
  const variables = new ContextVariables();
  return {
    protocol: 'grpc',
    method: 'POST',
    path: '/shop.Catalog/GetBook',
    headers: {},
    ip: '127.0.0.1',
    state: {},
    statusCode: 0,
    signal: new AbortController().signal,
    setHeader: () => undefined,
    get: (key) => variables.get(key),
    set: (key, value) => variables.set(key, value),
  };
}

/** What execute rejected with: the HTTPError's status and details, or the error's message. */
async function rejection(promise: Promise<unknown>): Promise<{ status?: number; message: string; details?: unknown; expose?: boolean }> {
  try {
    await promise;
  } catch (err) {
    if (isHTTPError(err)) return { status: err.statusCode, message: err.message, details: err.details };
    return { message: (err as Error).message };
  }
  throw new Error('execute resolved');
}

const Author = z.object({ name: z.string().min(1), born: z.date().nullable() });
const Book = z.object({ id: z.string(), title: z.string(), author: Author, tags: z.array(z.string()).default([]) }).meta({ id: 'Book' });

describe('execute() input validation', () => {
  const op = defineOperation({
    name: 'createBook',
    input: z.object({ title: z.string().min(1), author: z.object({ name: z.string() }), limit: z.coerce.number().int().max(50).default(10) }),
    output: z.object({ title: z.string(), limit: z.number() }),
    handler: (input) => input,
  });

  it('passes the parsed input (defaults and coercions applied) to the handler', async () => {
    await expect(op.execute({ title: 'Dune', author: { name: 'Frank' }, limit: '20' }, context())).resolves.toEqual({ title: 'Dune', limit: 20 });
    await expect(op.execute({ title: 'Dune', author: { name: 'Frank' } }, context())).resolves.toEqual({ title: 'Dune', limit: 10 });
  });

  it('answers 400 Validation failed with each field by its plain path without an origin', async () => {
    const failed = await rejection(op.execute({ title: '', author: {}, limit: '99' }, context()));
    expect(failed).toEqual({
      status: 400,
      message: 'Validation failed',
      details: {
        errors: [
          { field: 'title', message: 'Too small: expected string to have >=1 characters', code: 'too_small' },
          { field: 'author.name', message: 'Invalid input: expected string, received undefined', code: 'invalid_type' },
          { field: 'limit', message: 'Too big: expected number to be <=50', code: 'too_big' },
        ],
      },
    });
  });

  it('rejects with a ValidationError, which every protocol recognises by its class', async () => {
    const thrown = await op.execute({ title: '' }, context()).catch((err: unknown) => err);
    expect(thrown).toBeInstanceOf(ValidationError);
    expect(isValidationError(thrown)).toBe(true);
  });

  it('prefixes each field with where its top-level key came from when an origin is given', async () => {
    const origin = (key: string): string | undefined => (key === 'limit' ? 'query' : key === 'title' ? 'params' : key === 'author' ? 'body' : undefined);
    const failed = await rejection(op.execute({ title: '', author: {}, limit: '99' }, context(), origin));
    expect((failed.details as { errors: Array<{ field: string }> }).errors.map((e) => e.field)).toEqual(['params.title', 'body.author.name', 'query.limit']);
  });

  it('names an issue about the whole input by the origin of the input, else the empty path', async () => {
    const whole = await rejection(op.execute(['not', 'an', 'object'], context(), () => 'body'));
    expect(whole.details).toEqual({ errors: [{ field: 'body', message: 'Invalid input: expected object, received array', code: 'invalid_type' }] });
    const bare = await rejection(op.execute('text', context()));
    expect(bare.details).toEqual({ errors: [{ field: '', message: 'Invalid input: expected object, received string', code: 'invalid_type' }] });
  });

  it('runs async refinements, and keeps an HTTPError a refinement throws', async () => {
    const taken = defineOperation({
      name: 'signup',
      input: z.object({
        email: z.string().refine(async (email) => {
          await Promise.resolve();
          if (email === 'boom@x.io') throw new HTTPError(409, 'Email already registered');
          return email !== 'taken@x.io';
        }, 'Email is taken'),
      }),
      output: z.object({ ok: z.boolean() }),
      handler: () => ({ ok: true }),
    });
    await expect(taken.execute({ email: 'new@x.io' }, context())).resolves.toEqual({ ok: true });
    expect((await rejection(taken.execute({ email: 'taken@x.io' }, context()))).details).toEqual({
      errors: [{ field: 'email', message: 'Email is taken', code: 'custom' }],
    });
    expect(await rejection(taken.execute({ email: 'boom@x.io' }, context()))).toMatchObject({ status: 409, message: 'Email already registered' });
  });

  it('does not run the handler when the input is invalid', async () => {
    const handler = jest.fn(() => ({ ok: true }));
    const guarded = defineOperation({ name: 'g', input: z.object({ n: z.number() }), output: z.object({ ok: z.boolean() }), handler });
    await expect(guarded.execute({ n: 'x' }, context())).rejects.toThrow('Validation failed');
    expect(handler).not.toHaveBeenCalled();
  });
});

describe('execute() handler and context', () => {
  it('gives the handler the context, and passes on what it throws', async () => {
    const ctx = context();
    const seen: unknown[] = [];
    const op = defineOperation({
      name: 'getBook',
      input: z.object({ id: z.string() }),
      output: z.object({ id: z.string() }),
      handler: ({ id }, c) => {
        seen.push(c);
        if (id === 'gone') throw new HTTPError(404, 'No such book');
        return { id };
      },
    });
    await expect(op.execute({ id: '1' }, ctx)).resolves.toEqual({ id: '1' });
    expect(seen).toEqual([ctx]);
    expect(await rejection(op.execute({ id: 'gone' }, ctx))).toMatchObject({ status: 404, message: 'No such book' });
  });
});

describe('execute() output shaping', () => {
  const born = new Date('1920-01-02T03:04:05.000Z');

  it('strips unknown keys at every depth, and turns dates into ISO strings', async () => {
    const op = defineOperation({
      name: 'getBook',
      input: z.object({ id: z.string() }),
      output: Book,
      handler: ({ id }) => ({ id, title: 'Dune', secret: 'x', author: { name: 'Frank', born, password: 'y' } }),
    });
    await expect(op.execute({ id: '1' }, context())).resolves.toEqual({
      id: '1',
      title: 'Dune',
      author: { name: 'Frank', born: '1920-01-02T03:04:05.000Z' },
      tags: [],
    });
  });

  it('turns dates into ISO strings inside lists, nullables, maps and at the root', async () => {
    const output = z.object({
      at: z.date(),
      maybe: z.date().nullable(),
      optional: z.date().optional(),
      list: z.array(z.date()),
      map: z.record(z.string(), z.date()),
      nested: z.array(z.object({ at: z.date() }).nullable()),
    });
    const shared = { at: born };
    const op = defineOperation({
      name: 'dates',
      input: z.object({}),
      output,
      handler: () => ({ at: born, maybe: null, list: [born, born], map: { a: born }, nested: [shared, null] }),
    });
    const iso = born.toISOString();
    await expect(op.execute({}, context())).resolves.toEqual({ at: iso, maybe: null, list: [iso, iso], map: { a: iso }, nested: [{ at: iso }, null] });
    expect(shared.at).toBe(born);
    const root = defineOperation({ name: 'now', input: z.object({}), output: z.date(), handler: () => born });
    await expect(root.execute({}, context())).resolves.toBe(iso);
  });

  it('does not touch a .catch() value when it turns dates into strings', async () => {
    const fallback = { at: born };
    const op = defineOperation({
      name: 'fallback',
      input: z.object({}),
      output: z.object({ at: z.date() }).catch(fallback),
      handler: () => ({ at: 'not a date' }) as never,
    });
    await expect(op.execute({}, context())).resolves.toEqual({ at: born.toISOString() });
    expect(fallback.at).toBe(born);
  });

  it('throws a plain Error naming the operation and each mismatch when the result does not match the output', async () => {
    const op = defineOperation({
      name: 'getBook',
      input: z.object({ id: z.string() }),
      output: Book,
      handler: () => ({ id: 1, title: 'Dune', author: { name: '', born: null } }) as never,
    });
    const failed = await rejection(op.execute({ id: '1' }, context()));
    expect(failed.status).toBeUndefined();
    expect(failed.message).toBe(
      'Operation "getBook" returned a value that does not match its output: id: Invalid input: expected string, received number; author.name: Too small: expected string to have >=1 characters',
    );
    const scalar = defineOperation({ name: 'count', input: z.object({}), output: z.int32(), handler: () => 'many' as never });
    expect((await rejection(scalar.execute({}, context()))).message).toBe(
      'Operation "count" returned a value that does not match its output: Invalid input: expected number, received string',
    );
  });

  it('refuses extra keys when the output is a strict object', async () => {
    const op = defineOperation({ name: 'strict', input: z.object({}), output: z.strictObject({ a: z.string() }), handler: () => ({ a: 'x', b: 'y' }) });
    expect((await rejection(op.execute({}, context()))).message).toBe(
      'Operation "strict" returned a value that does not match its output: Unrecognized key: "b"',
    );
  });
});

describe('execute() with input dates', () => {
  it('reads ISO 8601 date-time strings as dates where the input has z.date(), on every protocol', async () => {
    const received: unknown[] = [];
    const op = defineOperation({
      name: 'schedule',
      input: z.object({ at: z.date(), slots: z.array(z.date()).optional(), window: z.object({ from: z.date().nullable() }).optional(), label: z.string() }),
      output: z.object({ ok: z.boolean() }),
      handler: (input) => (received.push(input), { ok: true }),
    });
    const raw = { at: '2024-05-01T10:00:00Z', slots: ['2024-05-01T10:00:00.500+02:00'], window: { from: null }, label: '2024-05-01T10:00:00Z' };
    await expect(op.execute(raw, context())).resolves.toEqual({ ok: true });
    expect(received).toEqual([
      { at: new Date('2024-05-01T10:00:00Z'), slots: [new Date('2024-05-01T08:00:00.500Z')], window: { from: null }, label: '2024-05-01T10:00:00Z' },
    ]);
    // The raw input is left as it came.
    expect(raw.at).toBe('2024-05-01T10:00:00Z');
    const failed = await rejection(op.execute({ at: 'yesterday', label: 'x' }, context()));
    expect(failed.details).toEqual({ errors: [{ field: 'at', message: 'Invalid input: expected date, received string', code: 'invalid_type' }] });
    const invalid = await rejection(op.execute({ at: '2024-13-45T99:00:00Z', label: 'x' }, context()));
    expect(invalid.details).toEqual({ errors: [{ field: 'at', message: expect.any(String), code: 'invalid_type' }] });
  });
});

describe('execute() with zod mini', () => {
  it('validates through the Standard Schema interface, with zod codes', async () => {
    const op = defineOperation({
      name: 'mini',
      input: zm.object({ n: zm.number().check(zm.minimum(1)) }),
      output: zm.object({ n: zm.number() }),
      handler: ({ n }) => ({ n, extra: true }),
    });
    await expect(op.execute({ n: 2 }, context())).resolves.toEqual({ n: 2 });
    expect((await rejection(op.execute({ n: 0 }, context(), () => 'body'))).details).toEqual({
      errors: [{ field: 'body.n', message: 'Too small: expected number to be >=1', code: 'too_small' }],
    });
  });
});

describe('through runOperation() (as GraphQL and gRPC run it)', () => {
  const op = defineOperation({
    name: 'whoAmI',
    input: z.object({ greeting: z.string().default('hello') }),
    output: z.object({ text: z.string() }),
    middleware: [
      async (ctx, next) => {
        if (ctx.headers.authorization !== 'Bearer good') throw new HTTPError(401, 'Unauthorized');
        ctx.user = 'ada';
        await next();
      },
    ],
    handler: ({ greeting }, ctx) => ({ text: `${greeting} ${String(ctx.user)}`, extra: 1 }),
  });

  it('runs the operation middleware, then validation, the handler and output shaping', async () => {
    const ctx = { ...context(), headers: { authorization: 'Bearer good' } };
    await expect(runOperation(op, ctx, {})).resolves.toEqual({ text: 'hello ada' });
    expect(await rejection(runOperation(op, ctx, { greeting: 7 }))).toMatchObject({ status: 400, details: { errors: [{ field: 'greeting' }] } });
  });

  it('lets the middleware refuse before validation', async () => {
    expect(await rejection(runOperation(op, context(), { greeting: 7 }))).toMatchObject({ status: 401, message: 'Unauthorized' });
  });
});
