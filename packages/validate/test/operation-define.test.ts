import { isOperation, type Middleware, type RequestContext } from '@fw/core';
import { OPERATION_BRAND } from '@fw/core/plugin';
import { z } from 'zod';
import { z as z3 } from 'zod3';
import { z as z325v4 } from 'zod3/v4';
import { defineOperation } from '../src/index.js';

// Definition checks at define time: every mistake is a TypeError naming the operation.

const Input = z.object({ id: z.string(), limit: z.coerce.number().int().optional() });
const Output = z.object({ id: z.string() });
const handler = ({ id }: { id: string }): { id: string } => ({ id });

/** A valid definition with `change` applied (keys set to undefined are removed). */
function define(change: Record<string, unknown>): unknown {
  const definition: Record<string, unknown> = { name: 'getBook', input: Input, output: Output, handler, ...change };
  for (const key of Object.keys(definition)) if (definition[key] === undefined) delete definition[key];
  return defineOperation(definition as never);
}

function refused(change: Record<string, unknown>, message: string): void {
  expect(() => define(change)).toThrow(TypeError);
  expect(() => define(change)).toThrow(message);
}

describe('defineOperation()', () => {
  it('returns a branded, frozen operation with its definition', () => {
    const auth: Middleware<RequestContext> = (_ctx, next) => next();
    const op = defineOperation({
      name: 'getBook',
      description: 'One book by id',
      input: Input,
      output: Output,
      middleware: [auth],
      handler,
      rest: { method: 'GET', path: '/books/:id' },
      graphql: { type: 'query' },
      grpc: { service: 'bookstore.v1.Catalog' },
    });
    expect(isOperation(op)).toBe(true);
    expect(op[OPERATION_BRAND]).toBe(true);
    expect(op).toMatchObject({
      name: 'getBook',
      description: 'One book by id',
      rest: { method: 'GET', path: '/books/:id' },
      graphql: { type: 'query' },
      grpc: { service: 'bookstore.v1.Catalog' },
      middleware: [auth],
      schemas: { input: Input, output: Output },
    });
    expect(Object.isFrozen(op)).toBe(true);
    expect(Object.isFrozen(op.middleware)).toBe(true);
    expect(Object.isFrozen(op.rest)).toBe(true);
  });

  it('does not share the definition objects it was given', () => {
    const middleware: Array<Middleware<RequestContext>> = [];
    const rest = { method: 'GET' as const, path: '/books/:id' };
    const op = defineOperation({ name: 'getBook', input: Input, output: Output, handler, middleware, rest });
    middleware.push(() => undefined);
    rest.path = '/changed';
    expect(op.middleware).toEqual([]);
    expect(op.rest?.path).toBe('/books/:id');
  });

  it('needs a definition object', () => {
    expect(() => defineOperation(undefined as never)).toThrow('defineOperation() expects a definition object');
  });

  it('needs a name that is a GraphQL-safe identifier', () => {
    refused({ name: undefined }, 'defineOperation(): name must be a string');
    refused({ name: 'get-book' }, 'defineOperation("get-book"): name must match /^[_A-Za-z][_0-9A-Za-z]*$/ (it is the GraphQL field name)');
    refused({ name: '1book' }, 'defineOperation("1book"): name must match');
    refused({ name: '' }, 'defineOperation(""): name must match');
    expect(() => define({ name: '_get_Book2' })).not.toThrow();
  });

  it('refuses unknown keys, so that typos do not pass silently', () => {
    refused({ respone: {} }, 'defineOperation("getBook"): unknown key "respone"');
    refused({ rest: { method: 'GET', path: '/b', stauts: 201 } }, 'defineOperation("getBook"): unknown key "rest.stauts"');
  });

  it('checks description, handler and middleware', () => {
    refused({ description: 42 }, 'defineOperation("getBook"): description must be a string');
    refused({ handler: undefined }, 'defineOperation("getBook"): handler must be a function');
    refused({ middleware: () => undefined }, 'defineOperation("getBook"): middleware must be an array of functions');
    refused({ middleware: [(_: unknown, next: () => Promise<void>) => next(), 'auth'] }, 'defineOperation("getBook"): middleware[1] must be a function');
  });

  it('needs a zod 4 object input and a zod 4 output schema', () => {
    refused({ input: undefined }, 'defineOperation("getBook"): input must be a zod 4 object schema (z.object({ ... }))');
    refused({ input: z.string() }, 'defineOperation("getBook"): input must be a zod 4 object schema (z.object({ ... })), got z.string()');
    refused({ input: Input.optional() }, 'got z.optional()');
    refused({ output: { parse: () => 1 } }, 'defineOperation("getBook"): output must be a zod 4 schema');
    refused({ output: undefined }, 'defineOperation("getBook"): output must be a zod 4 schema');
  });

  it('refuses zod 3 schemas with a clear TypeError', () => {
    const message = "is a zod 3 schema: operations need zod 4 (import { z } from 'zod' with zod 4, or from 'zod/v4' with zod 3.25)";
    refused({ input: z3.object({ id: z3.string() }) }, `defineOperation("getBook"): input ${message}`);
    refused({ output: z3.string() }, `defineOperation("getBook"): output ${message}`);
  });

  it('accepts the zod 4 schemas of zod 3.25 (zod/v4), with their names and descriptions', () => {
    const Book = z325v4.object({ title: z325v4.string().describe('The title') }).meta({ id: 'Book' });
    const op = defineOperation({ name: 'v4', input: z325v4.object({ id: z325v4.string() }), output: z325v4.array(Book), handler: () => [] });
    expect(op.output).toEqual({
      kind: 'list',
      of: { kind: 'object', name: 'Book', source: Book, fields: [{ name: 'title', type: { kind: 'scalar', scalar: 'string', description: 'The title' }, optional: false, description: 'The title' }] },
    });
  });

  describe('rest', () => {
    it('needs one of GET POST PUT PATCH DELETE and a path starting with /', () => {
      refused({ rest: 'GET /books' }, 'defineOperation("getBook"): rest must be an object { method, path, status? }');
      refused({ rest: { method: 'HEAD', path: '/books/:id' } }, 'defineOperation("getBook"): rest.method must be one of GET, POST, PUT, PATCH, DELETE, got "HEAD"');
      refused({ rest: { method: 'get', path: '/books/:id' } }, 'rest.method must be one of');
      refused({ rest: { method: 'GET', path: 'books/:id' } }, 'defineOperation("getBook"): rest.path must be a string starting with "/", got "books/:id"');
      refused({ rest: { method: 'GET' } }, 'rest.path must be a string starting with "/"');
    });

    it('needs every :param of the path to be an input field', () => {
      refused(
        { rest: { method: 'GET', path: '/authors/:author/books/:id' } },
        'defineOperation("getBook"): rest.path parameter ":author" is not a field of the input (fields: id, limit)',
      );
      expect(() => define({ rest: { method: 'DELETE', path: '/books/:id' } })).not.toThrow();
    });

    it('refuses path params and query fields that can never arrive as strings', () => {
      refused(
        { input: z.object({ id: z.number() }), rest: { method: 'GET', path: '/books/:id' } },
        'defineOperation("getBook"): input.id: z.number() never accepts the string a REST path parameter is (use z.coerce.number())',
      );
      refused(
        { input: z.object({ id: z.string(), all: z.boolean().optional() }), rest: { method: 'DELETE', path: '/books/:id' } },
        'defineOperation("getBook"): input.all: z.boolean() never accepts the string a REST query parameter is (use z.stringbool())',
      );
      refused(
        { input: z.object({ id: z.string(), pages: z.array(z.int()).optional() }), rest: { method: 'GET', path: '/books/:id' } },
        'defineOperation("getBook"): input.pages: z.number() never accepts the string a REST query parameter is (use z.coerce.number())',
      );
      // The body carries JSON types; query fields that coerce, strings, enums and pipes are fine.
      expect(() => define({ input: z.object({ id: z.string(), n: z.number(), at: z.date() }), rest: { method: 'POST', path: '/books/:id' } })).not.toThrow();
      const Query = z.object({
        id: z.string(),
        n: z.coerce.number().int().default(1),
        b: z.stringbool().optional(),
        e: z.enum(['a', 'b']).optional(),
        l: z.literal('x').optional(),
        at: z.coerce.date().optional(),
        // ISO date-time strings are read as dates before validation.
        since: z.date().optional(),
        tags: z.array(z.string()).optional(),
      });
      expect(() => define({ input: Query, rest: { method: 'GET', path: '/books/:id' } })).not.toThrow();
    });

    it('takes a 2xx status', () => {
      expect(() => define({ rest: { method: 'POST', path: '/books', status: 201 } })).not.toThrow();
      refused({ rest: { method: 'POST', path: '/books', status: 404 } }, 'defineOperation("getBook"): rest.status must be an integer from 200 to 299, got 404');
      refused({ rest: { method: 'POST', path: '/books', status: '201' } }, 'rest.status must be an integer from 200 to 299, got "201"');
    });

    it('takes rest.accepts, the bodies a POST, PUT or PATCH route takes: "json" and "form"', () => {
      const op = define({ rest: { method: 'POST', path: '/books', accepts: ['json', 'form'] } }) as { rest: unknown };
      expect(op.rest).toEqual({ method: 'POST', path: '/books', accepts: ['json', 'form'] });
      expect(Object.isFrozen((op.rest as { accepts: unknown }).accepts)).toBe(true);
      refused(
        { rest: { method: 'POST', path: '/books', accepts: ['xml'] } },
        'defineOperation("getBook"): rest.accepts must be a non-empty list of "json", "form" and "multipart", got ["xml"]',
      );
      refused({ rest: { method: 'PUT', path: '/books', accepts: [] } }, 'rest.accepts must be a non-empty list of "json", "form" and "multipart", got []');
      refused({ rest: { method: 'PATCH', path: '/books', accepts: 'form' } }, 'rest.accepts must be a non-empty list of "json", "form" and "multipart", got "form"');
      refused(
        { rest: { method: 'GET', path: '/books/:id', accepts: ['form'] } },
        'defineOperation("getBook"): rest.accepts is for POST, PUT and PATCH, which read a body; GET reads the query',
      );
    });
  });

  describe('graphql', () => {
    it('needs type query or mutation', () => {
      expect(() => define({ graphql: { type: 'mutation' } })).not.toThrow();
      refused({ graphql: { type: 'field' } }, 'defineOperation("getBook"): graphql.type must be "query" or "mutation", got "field"');
      refused(
        { graphql: { type: 'subscription' } },
        'defineOperation("getBook"): graphql.type "subscription" is for streaming operations: add stream: true and make the handler an async generator',
      );
      refused({ graphql: true }, 'defineOperation("getBook"): graphql must be an object { type }');
    });
  });

  describe('grpc', () => {
    it('needs a service <package>.<Service> and an optional PascalCase method', () => {
      expect(() => define({ grpc: { service: 'shop.Catalog', method: 'FetchBook' } })).not.toThrow();
      expect(() => define({ grpc: { service: 'acme.shop.v1.Catalog' } })).not.toThrow();
      for (const service of ['Catalog', 'shop.', 'shop.catalog', 'shop..Catalog', 'shop.Cata-log', '1shop.Catalog']) {
        refused({ grpc: { service } }, `defineOperation("getBook"): grpc.service must be "<package>.<Service>" (e.g. "bookstore.Catalog"), got ${JSON.stringify(service)}`);
      }
      for (const method of ['fetchBook', 'Fetch_Book', 'Fetch Book', '']) {
        refused({ grpc: { service: 'shop.Catalog', method } }, `defineOperation("getBook"): grpc.method must be a PascalCase identifier (e.g. "GetBook"), got ${JSON.stringify(method)}`);
      }
      refused({ grpc: 'shop.Catalog' }, 'defineOperation("getBook"): grpc must be an object { service, method? }');
    });
  });
});
