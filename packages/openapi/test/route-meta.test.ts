import { Application, withMeta, type Next } from '@fw/core';
import { describeRoute, openapi, type OpenAPIWarning } from '../src/index.js';

/** A middleware that only passes on (withMeta marks the function it is given, so each use gets its own). */
const passOn = () => (_ctx: unknown, next: Next): Promise<void> => next();

describe('the route meta @fw/openapi declares', () => {
  it('is accepted by withMeta with its types, and documented from any middleware that carries it', () => {
    const app = new Application();
    const documented = withMeta(passOn(), {
      summary: 'Archive a book',
      operationId: 'archiveBook',
      deprecated: true,
      errors: { 423: 'The book is locked' },
      openapi: { 'x-audited': true },
    });
    app.post('/books/:id/archive', documented, (ctx) => ctx.status(204));
    app.get('/internal', withMeta(passOn(), { hidden: true }), (ctx) => ctx.json(1));
    const operation = openapi(app).paths['/books/{id}/archive']!.post!;
    expect(operation).toMatchObject({ summary: 'Archive a book', operationId: 'archiveBook', deprecated: true, 'x-audited': true });
    expect(operation.responses['423']).toMatchObject({ description: 'The book is locked' });
    expect(Object.keys(openapi(app).paths)).toEqual(['/books/{id}/archive']);
  });

  it('is what describeRoute attaches, merged the way withMeta merges', () => {
    const described = describeRoute({ summary: 'One book', tags: ['books'], errors: [404] });
    const tagged = withMeta(described, { tags: ['catalogue'] });
    const app = new Application();
    app.get('/books/:id', tagged, (ctx) => ctx.json({}));
    expect(app.getRoutes()[0]!.meta).toEqual({ summary: 'One book', tags: ['catalogue'], errors: [404] });
  });
});

describe('openapi() without onWarning', () => {
  it("reports warnings through fw's default log (on stderr) rather than console.warn", () => {
    const app = new Application();
    app.route({ method: 'POST', path: '/a', handler: (ctx) => ctx.json(1), schema: { body: () => 'no schema' } });
    const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    const error = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      openapi(app);
      expect(warn).not.toHaveBeenCalled();
      expect(error).toHaveBeenCalledTimes(1);
      const [line] = error.mock.calls[0] as [string];
      expect(line).toMatch(/^\[@fw\/openapi\] .*POST \/a/);
    } finally {
      warn.mockRestore();
      error.mockRestore();
    }
  });

  it('still hands every warning to onWarning when one is given', () => {
    const warnings: OpenAPIWarning[] = [];
    const app = new Application();
    app.route({ method: 'POST', path: '/a', handler: (ctx) => ctx.json(1), schema: { body: () => 'no schema' } });
    openapi(app, { onWarning: (w) => warnings.push(w) });
    expect(warnings).toHaveLength(1);
  });
});
