import { Application } from '@fw/core';
import { defineOperation } from '@fw/validate';
import { z } from 'zod';
import { openapi } from '../src/index.js';
import { validateOpenAPI } from './helpers.js';

// An operation's deprecation in the document, and what its former names (aliases) add there: nothing.

function app(): Application {
  const application = new Application();
  application.operation(defineOperation({ name: 'listBooks', input: z.object({}), output: z.array(z.string()), deprecated: true, rest: { method: 'GET', path: '/books' }, handler: () => [] }));
  application.operation(
    defineOperation({
      name: 'createBook',
      input: z.object({ title: z.string() }),
      output: z.string(),
      deprecationReason: 'Use POST /v2/books',
      aliases: ['addBook'],
      rest: { method: 'POST', path: '/books' },
      handler: ({ title }) => title,
    }),
  );
  application.operation(defineOperation({ name: 'getBook', input: z.object({ id: z.string() }), output: z.string(), rest: { method: 'GET', path: '/books/:id' }, handler: ({ id }) => id }));
  return application;
}

describe('a deprecated operation in the OpenAPI document', () => {
  it('is marked deprecated: true, with or without a reason, and the document stays valid', () => {
    const document = openapi(app());
    expect(document.paths['/books']!.get!.deprecated).toBe(true);
    expect(document.paths['/books']!.post!.deprecated).toBe(true);
    expect(validateOpenAPI(document).every((result) => result.valid)).toBe(true);
  });

  it('leaves an operation that is not deprecated unmarked', () => {
    expect(openapi(app()).paths['/books/{id}']!.get).not.toHaveProperty('deprecated');
  });

  it('adds no path and no operation for a former name: a REST client addresses the route, which a rename leaves as it was', () => {
    const document = openapi(app());
    expect(Object.keys(document.paths).sort()).toEqual(['/books', '/books/{id}']);
    expect(document.paths['/books']!.post!.operationId).toBe('createBook');
  });
});
