import { HTTPError, isHTTPError, ROUTE_SCHEMA, ValidationError, type Context, type Next } from '@fw/core';
import { isSchema, schemaRunner, type PartResult, type SchemaRunner } from './internal/schema-runner.js';
import { stringRefusingFields } from './internal/string-fields.js';
import type { ValidationErrorEntry, ValidationMiddleware, ValidationPart, ValidationSchema } from './types.js';

const PARTS: readonly ValidationPart[] = ['body', 'query', 'params'];

/** Issue code of the entry for a part nested deeper than its schema could follow (the stack ran out). */
export const TOO_DEEP_CODE = 'too_deep';
/** Message of that entry. */
export const TOO_DEEP_MESSAGE = 'Input is nested too deeply to validate';

interface CompiledPart {
  part: ValidationPart;
  run: SchemaRunner;
}

/**
 * Middleware that validates the request parts given (body, query, route params) and replaces
 * `ctx.body` / `ctx.query` / `ctx.params` with the validated output (coercions, defaults and
 * transforms applied). Every part is checked; all issues go into one `ValidationError` (a 400
 * HTTPError) `Validation failed` with `details.errors: [{ field, message, code }]`. Input nested
 * deeper than a recursive schema can follow (the stack overflows) is invalid input too: one entry
 * `{ field: '<part>', code: 'too_deep' }`. Any other throw from a schema is a 500 (an HTTPError
 * it throws keeps its own status). A `params` or `query` field that never accepts a string (path
 * params and query values are strings: `z.number()`, `z.boolean()`) throws a `TypeError` here,
 * naming the field and what accepts one (`z.coerce.number()`).
 * @example
 * app.post('/users', validate({ body: z.object({ name: z.string() }) }), (ctx) => ctx.json(ctx.body, 201));
 */
export function validate<S extends ValidationSchema>(schema: S): ValidationMiddleware<S> {
  return validation(schema, 'validate()');
}

/** What a request part arrives as, when it is a string whatever the client sent. */
const STRING_PARTS: Partial<Record<ValidationPart, string>> = { params: 'a path parameter', query: 'a query parameter' };

/**
 * `validate()`, with definition errors that start with `caller` (`validate()`, `createHandler()`):
 * the function the user called, not the one it calls.
 */
export function validation<S extends ValidationSchema>(schema: S, caller: string): ValidationMiddleware<S> {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) {
    throw new TypeError(`${caller} expects an object with body, query and/or params schemas`);
  }
  for (const key of Object.keys(schema)) {
    if (!(PARTS as readonly string[]).includes(key)) throw new TypeError(`${caller}: unknown part "${key}"; use body, query or params`);
  }
  const parts: CompiledPart[] = [];
  const attached: ValidationSchema = {};
  for (const part of PARTS) {
    const partSchema: unknown = schema[part];
    if (partSchema === undefined) continue;
    if (!isSchema(partSchema)) {
      throw new TypeError(`${caller}: the ${part} schema is neither a zod schema nor a Standard Schema validator`);
    }
    // Path params and query values are strings: a field that refuses every string would answer
    // every request 400, so say so now (Fastify coerces them; zod needs z.coerce).
    const arrives = STRING_PARTS[part];
    const [refused] = arrives === undefined ? [] : stringRefusingFields(partSchema);
    if (refused !== undefined) {
      const [field, { kind, use }] = refused;
      throw new TypeError(`${caller}: ${part}.${field}: ${kind} never accepts the string ${arrives} is, so every request would be refused with 400 (use ${use})`);
    }
    parts.push({ part, run: schemaRunner(part, partSchema) });
    attached[part] = partSchema;
  }
  const count = parts.length;

  const validateRequest = async function validateRequest(ctx: Context, next: Next): Promise<void> {
    const values: unknown[] = new Array<unknown>(count);
    let errors: ValidationErrorEntry[] | undefined;
    for (let i = 0; i < count; i++) {
      const { part, run } = parts[i]!;
      // As global middleware, validate runs before the framework has read the body.
      const input = part === 'body' ? (typeof ctx.parseBody === 'function' ? await ctx.parseBody() : ctx.body) : ctx[part];
      let result: PartResult;
      try {
        result = await run(input);
      } catch (err) {
        // Hostile nesting, not a schema bug: a 400 the client can act on, not a 500.
        if (!isStackOverflow(err)) throw schemaFailure(part, err);
        result = { ok: false, errors: [{ field: part, message: TOO_DEEP_MESSAGE, code: TOO_DEEP_CODE }] };
      }
      if (result.ok) values[i] = result.value;
      else if (errors === undefined) errors = result.errors;
      else errors.push(...result.errors);
    }
    if (errors !== undefined) throw new ValidationError(errors);
    // Replace only once every part passed, so a failed request leaves the context as it came.
    for (let i = 0; i < count; i++) ctx[parts[i]!.part] = values[i];
    await next();
  };
  (validateRequest as { [ROUTE_SCHEMA]?: ValidationSchema })[ROUTE_SCHEMA] = attached;
  return validateRequest as ValidationMiddleware<S>;
}

/** A schema that throws is a bug in user code, not bad input: a 500 whose cause is kept for the log. */
function schemaFailure(part: ValidationPart, err: unknown): HTTPError {
  if (isHTTPError(err)) return err;
  const reason = err instanceof Error ? err.message : String(err);
  return new HTTPError(500, `The ${part} schema threw while validating: ${reason}`, undefined, { cause: err, expose: false });
}

/** V8's "Maximum call stack size exceeded" (other engines word it differently; all are RangeErrors). */
function isStackOverflow(err: unknown): boolean {
  return err instanceof Error && err.name === 'RangeError' && /call stack|too much recursion|stack overflow/i.test(err.message);
}
