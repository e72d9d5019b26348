import { Application } from '@fw/core';
import { validate } from '@fw/validate';
import * as v from 'valibot';
import { z } from 'zod';
import { z as z3 } from 'zod3';
import * as z3v4 from 'zod3/v4';
import { openapi, type JSONSchema, type OpenAPIDocument } from '../src/index.js';
import { collect, validateOpenAPI } from './helpers.js';

/** The document of one POST /x route whose body is `schema`, and the warnings. */
function documentBody(schema: unknown, options: Parameters<typeof openapi>[1] = {}) {
  const app = new Application();
  app.route({ method: 'POST', path: '/x', handler: (ctx) => ctx.json(1), schema: { body: schema } });
  const { warnings, onWarning } = collect();
  const document = openapi(app, { errorResponses: false, onWarning, ...options });
  const body = (document.paths['/x']!.post!.requestBody as { content: Record<string, { schema: JSONSchema }> }).content['application/json']!.schema;
  return { document, body, warnings };
}

describe('zod 4', () => {
  it('converts with zod\'s own converter, input side for requests: coercion and defaults as the client sends them', () => {
    const { body, warnings } = documentBody(
      z.object({
        n: z.coerce.number().int(),
        when: z.coerce.date(),
        mode: z.literal(['a', 'b']).default('a'),
        trimmed: z.string().transform((s) => s.trim()),
        nullable: z.string().nullable(),
      }),
    );
    expect(body).toEqual({
      type: 'object',
      properties: {
        n: { type: 'integer', minimum: -Number.MAX_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER },
        when: { type: 'string', format: 'date-time' },
        mode: { default: 'a', type: 'string', enum: ['a', 'b'] },
        trimmed: { type: 'string' },
        nullable: { type: ['string', 'null'] },
      },
      required: ['n', 'when', 'trimmed', 'nullable'],
    });
    expect(warnings).toEqual([]);
  });

  it('documents the output side for responses: dates as ISO strings, defaults required', () => {
    const app = new Application();
    app.route({
      method: 'GET',
      path: '/x',
      handler: (ctx) => ctx.json(1),
      schema: { responses: { 200: z.object({ at: z.date(), n: z.number().default(1) }) } },
    });
    const doc = openapi(app, { errorResponses: false });
    expect(doc.paths['/x']!.get!.responses['200']).toEqual({
      description: 'OK',
      content: {
        'application/json': {
          schema: { type: 'object', properties: { at: { type: 'string', format: 'date-time' }, n: { default: 1, type: 'number' } }, required: ['at', 'n'], additionalProperties: false },
        },
      },
    });
  });

  it('documents what JSON cannot carry as {} with a warning naming the place, never a crash', () => {
    const { body, warnings } = documentBody(z.object({ big: z.bigint(), at: z.date(), fn: z.custom<string>(() => true) }));
    expect(body).toEqual({ type: 'object', properties: { big: {}, at: {}, fn: {} }, required: ['big', 'at', 'fn'] });
    expect(warnings.map((w) => w.code)).toEqual(['unrepresentable-type', 'unrepresentable-type', 'unrepresentable-type']);
    expect(warnings.map((w) => w.message).sort()).toEqual([
      'zod type "bigint" in the body schema of POST /x (at big) has no JSON Schema; documented as {}',
      'zod type "custom" in the body schema of POST /x (at fn) has no JSON Schema; documented as {}',
      'zod type "date" in the body schema of POST /x (at at) has no JSON Schema; documented as {}',
    ]);
    expect(warnings[0]).toMatchObject({ method: 'POST', path: '/x' });
  });

  it('moves recursive definitions and .meta({ id }) schemas into components, shared once', () => {
    interface Category {
      name: string;
      children: Category[];
    }
    const Category: z.ZodType<Category> = z.object({ name: z.string(), get children() { return z.array(Category); } });
    const Tag = z.object({ label: z.string() }).meta({ id: 'Tag', description: 'A label' });
    const app = new Application();
    app.route({ method: 'POST', path: '/a', handler: (ctx) => ctx.json(1), schema: { body: z.object({ tree: Category, tag: Tag }) } });
    app.route({ method: 'POST', path: '/b', handler: (ctx) => ctx.json(1), schema: { body: z.object({ tags: z.array(Tag) }) } });
    const doc = openapi(app, { errorResponses: false });
    const schemas = doc.components!.schemas!;
    expect(Object.keys(schemas)).toEqual(['PostABody_schema0', 'Tag']);
    expect(schemas.Tag).toEqual({ type: 'object', properties: { label: { type: 'string' } }, required: ['label'], description: 'A label' });
    expect(schemas.PostABody_schema0).toEqual({
      type: 'object',
      properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#/components/schemas/PostABody_schema0' } } },
      required: ['name', 'children'],
    });
    expect(JSON.stringify(doc)).not.toContain('#/$defs/');
    expect(validateOpenAPI(doc)[0]!.valid).toBe(true);
  });

  it('gives a different schema with a taken id its own name', () => {
    const app = new Application();
    app.route({ method: 'POST', path: '/a', handler: (ctx) => ctx.json(1), schema: { body: z.object({ x: z.string() }).meta({ id: 'Thing' }) } });
    app.route({ method: 'POST', path: '/b', handler: (ctx) => ctx.json(1), schema: { body: z.object({ y: z.number() }).meta({ id: 'Thing' }) } });
    const doc = openapi(app, { errorResponses: false });
    expect(Object.keys(doc.components!.schemas!)).toEqual(['Thing', 'ThingInput']);
    expect(doc.paths['/b']!.post!.requestBody).toEqual({ required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/ThingInput' } } } });
  });

  it('marks an optional body as not required', () => {
    expect(documentBody(z.object({ a: z.string() }).optional()).document.paths['/x']!.post!.requestBody).toMatchObject({ required: false });
  });

  it('reads the schemas validate() attaches', () => {
    const app = new Application();
    app.get('/q', validate({ query: z.object({ size: z.enum(['s', 'm']) }) }), (ctx) => ctx.json(1));
    expect(openapi(app).paths['/q']!.get!.parameters).toEqual([{ name: 'size', in: 'query', required: true, schema: { type: 'string', enum: ['s', 'm'] } }]);
  });
});

describe('zod 3.25 packages', () => {
  it('documents a zod 3 schema as {} with a warning: zod 3 has no converter', () => {
    const { body, warnings } = documentBody(z3.object({ a: z3.string() }));
    expect(body).toEqual({});
    expect(warnings).toEqual([
      {
        code: 'unconvertible-schema',
        method: 'POST',
        path: '/x',
        message: 'The body schema of POST /x is documented as {} (zod 3 has no JSON Schema converter; move the schema to zod 4 or pass a convert option such as zod-to-json-schema)',
      },
    ]);
  });

  it('converts zod/v4 schemas of zod 3.25 with the z.toJSONSchema it is given, and warns without it', () => {
    const schema = z3v4.z.object({ a: z3v4.z.string().min(2), b: z3v4.z.number().default(3) });
    const given = documentBody(schema, { zodToJSONSchema: z3v4.toJSONSchema });
    expect(given.body).toEqual({ type: 'object', properties: { a: { type: 'string', minLength: 2 }, b: { default: 3, type: 'number' } }, required: ['a'] });
    expect(given.warnings).toEqual([]);
    const missing = documentBody(schema);
    expect(missing.body).toEqual({});
    expect(missing.warnings[0]!.message).toContain('pass zodToJSONSchema: z.toJSONSchema');
  });

  it('lets a convert option handle what nothing else can', () => {
    const { body, warnings } = documentBody(z3.object({ a: z3.string() }), {
      convert: (schema, context) => (context.part === 'body' && schema instanceof z3.ZodObject ? { type: 'object', 'x-from': 'custom' } : undefined),
    });
    expect(body).toEqual({ type: 'object', 'x-from': 'custom' });
    expect(warnings).toEqual([]);
  });
});

describe('Standard Schema validators', () => {
  it('converts valibot through @valibot/to-json-schema, input side', () => {
    const { body, warnings } = documentBody(v.object({ email: v.pipe(v.string(), v.email()), age: v.optional(v.number(), 18), role: v.picklist(['a', 'b']) }));
    expect(body).toEqual({
      type: 'object',
      properties: { email: { type: 'string', format: 'email' }, age: { type: 'number', default: 18 }, role: { type: 'string', enum: ['a', 'b'] } },
      required: ['email', 'role'],
    });
    expect(warnings).toEqual([]);
  });

  it('keeps what valibot can express and warns about the rest', () => {
    const { body, warnings } = documentBody(v.object({ a: v.string(), at: v.date() }));
    expect(body).toEqual({ type: 'object', properties: { a: { type: 'string' }, at: {} }, required: ['a', 'at'] });
    expect(warnings.map((w) => w.code)).toEqual(['unrepresentable-type']);
  });

  it('uses ~standard.jsonSchema (Standard JSON Schema) of any vendor, input or output side', () => {
    const calls: string[] = [];
    const schema = {
      '~standard': {
        version: 1,
        vendor: 'acme',
        validate: (value: unknown) => ({ value }),
        jsonSchema: {
          input: ({ target }: { target: string }) => (calls.push(`input ${target}`), { $schema: 'x', type: 'string' }),
          output: ({ target }: { target: string }) => (calls.push(`output ${target}`), { type: 'number' }),
        },
      },
    };
    const app = new Application();
    app.route({ method: 'POST', path: '/x', handler: (ctx) => ctx.json(1), schema: { body: schema, responses: { 200: schema } } });
    const doc = openapi(app, { errorResponses: false });
    expect(doc.paths['/x']!.post!.requestBody).toEqual({ required: true, content: { 'application/json': { schema: { type: 'string' } } } });
    expect(doc.paths['/x']!.post!.responses['200']).toEqual({ description: 'OK', content: { 'application/json': { schema: { type: 'number' } } } });
    expect(calls).toEqual(['input draft-2020-12', 'output draft-2020-12']);
  });

  it('documents a Standard Schema without JSON Schema, a throwing converter and a non-schema as {} with warnings', () => {
    const plain = { '~standard': { version: 1, vendor: 'acme', validate: (value: unknown) => ({ value }) } };
    const throwing = { '~standard': { version: 1, vendor: 'acme', validate: (value: unknown) => ({ value }), jsonSchema: { input: () => { throw new Error('nope'); }, output: () => ({}) } } };
    const app = new Application();
    app.route({ method: 'POST', path: '/a', handler: (ctx) => ctx.json(1), schema: { body: plain } });
    app.route({ method: 'POST', path: '/b', handler: (ctx) => ctx.json(1), schema: { body: throwing } });
    app.route({ method: 'POST', path: '/c', handler: (ctx) => ctx.json(1), schema: { body: () => 'not a schema' } });
    app.route({ method: 'POST', path: '/d', handler: (ctx) => ctx.json(1), schema: { body: z.string() }, meta: {} });
    const { warnings, onWarning } = collect();
    const doc: OpenAPIDocument = openapi(app, { onWarning, convert: (s) => (s === plain ? undefined : undefined) });
    expect(warnings.map((w) => w.message)).toEqual([
      'The body schema of POST /a is documented as {} (acme offers no JSON Schema (~standard.jsonSchema); pass a convert option)',
      'The body schema of POST /b is documented as {} (acme could not convert it: nope)',
      'The body schema of POST /c is documented as {} (not a zod, Standard Schema or JSON Schema object)',
    ]);
    expect(validateOpenAPI(doc)[0]!.valid).toBe(true);
  });

  it('survives a convert option that throws', () => {
    const { body, warnings } = documentBody(z.string(), {
      convert: () => {
        throw new Error('boom');
      },
    });
    expect(body).toEqual({});
    expect(warnings[0]!.message).toBe('The body schema of POST /x is documented as {} (the convert option threw: boom)');
  });
});

describe('query and params schemas that are not plain objects', () => {
  it('merges allOf (zod intersections), warns about non-object query schemas and object-valued parameters', () => {
    const app = new Application();
    app.route({
      method: 'GET',
      path: '/a',
      handler: (ctx) => ctx.json(1),
      schema: { query: z.intersection(z.object({ a: z.string() }), z.object({ b: z.string().optional() })) },
    });
    app.route({ method: 'GET', path: '/b', handler: (ctx) => ctx.json(1), schema: { query: z.string() } });
    app.route({ method: 'GET', path: '/c', handler: (ctx) => ctx.json(1), schema: { query: z.object({ filter: z.object({ x: z.string() }) }) } });
    app.route({ method: 'GET', path: '/d/:id', handler: (ctx) => ctx.json(1), schema: { params: z.string() } });
    const { warnings, onWarning } = collect();
    const doc = openapi(app, { onWarning, errorResponses: false });
    expect(doc.paths['/a']!.get!.parameters).toEqual([
      { name: 'a', in: 'query', required: true, schema: { type: 'string' } },
      { name: 'b', in: 'query', required: false, schema: { type: 'string' } },
    ]);
    expect(doc.paths['/b']!.get!.parameters).toBeUndefined();
    expect(doc.paths['/d/{id}']!.get!.parameters).toEqual([{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }]);
    expect(warnings.map((w) => `${w.code} ${w.path}`)).toEqual(['query-not-object /b', 'nested-query-parameter /c', 'params-not-object /d/:id']);
  });
});
