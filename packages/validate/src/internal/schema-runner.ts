import type { Schema, StandardSchemaV1, ValidationErrorEntry, ValidationPart, ZodLikeIssue, ZodLikeResult } from '../types.js';

/** What running one schema on one part gives: the output value, or the error entries. */
export type PartResult = { ok: true; value: unknown } | { ok: false; errors: ValidationErrorEntry[] };

/** Runs a schema on a value; rejects only when the schema itself throws. */
export type SchemaRunner = (value: unknown) => Promise<PartResult>;

interface ZodLike {
  safeParseAsync(data: unknown): Promise<ZodLikeResult<unknown>>;
}

/** Whether `value` can be used as a schema (zod, or any Standard Schema v1 validator). */
export function isSchema(value: unknown): value is Schema {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    (typeof (value as Partial<ZodLike>).safeParseAsync === 'function' || isStandardSchema(value))
  );
}

function isStandardSchema(value: object): value is StandardSchemaV1 {
  const props = (value as Partial<StandardSchemaV1>)['~standard'];
  return typeof props === 'object' && props !== null && props.version === 1 && typeof props.validate === 'function';
}

/** Names the field of an issue from its path. */
export type FieldNamer = (path: ReadonlyArray<PropertyKey | StandardSchemaV1.PathSegment> | undefined) => string;

/** Runs a schema on a value, naming the fields of its issues with the namer given per call. */
export type NamedSchemaRunner = (value: unknown, name: FieldNamer) => Promise<PartResult>;

/** Builds the runner for one part: issues are named `<part>.<path>`. */
export function schemaRunner(part: ValidationPart, schema: Schema): SchemaRunner {
  const run = namedSchemaRunner(schema);
  const name: FieldNamer = (path) => fieldName(part, path);
  return (value) => run(value, name);
}

/**
 * Builds a runner whose issues are named by the caller. zod goes through `safeParseAsync` (async
 * refinements and transforms work, and zod's issue objects keep their `code`); any other Standard
 * Schema validator (zod mini included) through `~standard.validate`, awaited only when it answers
 * with a promise.
 */
export function namedSchemaRunner(schema: Schema): NamedSchemaRunner {
  if (typeof (schema as Partial<ZodLike>).safeParseAsync === 'function') {
    const zod = schema as ZodLike;
    return async (value, name) => {
      const result = await zod.safeParseAsync(value);
      if (result.success) return { ok: true, value: result.data };
      return { ok: false, errors: result.error.issues.map((issue) => zodEntry(name, issue)) };
    };
  }
  const props = (schema as StandardSchemaV1)['~standard'];
  return async (value, name) => {
    const pending = props.validate(value);
    const result = pending instanceof Promise ? await pending : pending;
    if (result.issues === undefined) return { ok: true, value: result.value };
    return { ok: false, errors: result.issues.map((issue) => standardEntry(name, issue)) };
  };
}

function zodEntry(name: FieldNamer, issue: ZodLikeIssue): ValidationErrorEntry {
  return { field: name(issue.path), message: issue.message, code: issue.code };
}

function standardEntry(name: FieldNamer, issue: StandardSchemaV1.Issue): ValidationErrorEntry {
  return { field: name(issue.path), message: issue.message, code: issueCode(issue) };
}

/**
 * The library's code for a Standard Schema issue: `code` (zod, arktype), else `type` (valibot:
 * `min_length`, `email`, ...), else `invalid` — the standard itself defines no code.
 */
export function issueCode(issue: StandardSchemaV1.Issue): string {
  const { code, type } = issue as { code?: unknown; type?: unknown };
  if (typeof code === 'string') return code;
  if (typeof type === 'string') return type;
  return 'invalid';
}

/**
 * `body` + `['items', 0, 'qty']` → `body.items.0.qty`; an empty path is the prefix itself. An
 * empty prefix gives the path alone: `items.0.qty`.
 */
export function fieldName(prefix: string, path: ReadonlyArray<PropertyKey | StandardSchemaV1.PathSegment> | undefined): string {
  if (path === undefined || path.length === 0) return prefix;
  let field = prefix;
  for (const segment of path) {
    if (field !== '') field += '.';
    field += pathKey(segment);
  }
  return field;
}

/** One segment of an issue path as text (a symbol by its description). */
export function pathKey(segment: PropertyKey | StandardSchemaV1.PathSegment): string {
  const key = typeof segment === 'object' && segment !== null ? segment.key : segment;
  return typeof key === 'symbol' ? (key.description ?? '') : String(key);
}
