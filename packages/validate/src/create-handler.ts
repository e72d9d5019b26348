import type { ValidatedHandler, ValidatedRoute, ValidationSchema } from './types.js';
import { validation } from './validate.js';

/**
 * Pairs a validation middleware with a handler whose `ctx.body`, `ctx.query` and `ctx.params`
 * are typed from the schemas' output types. Spread the result into a route registration.
 * @example
 * app.post('/users', ...createHandler({ body: z.object({ name: z.string() }) }, (ctx) => ctx.json({ name: ctx.body.name }, 201)));
 */
export function createHandler<S extends ValidationSchema>(schema: S, handler: ValidatedHandler<S>): ValidatedRoute<S> {
  if (typeof handler !== 'function') throw new TypeError('createHandler(schema, handler) needs a handler function');
  // Its own name in definition errors: the user called createHandler, not validate.
  return [validation(schema, 'createHandler()'), handler];
}
