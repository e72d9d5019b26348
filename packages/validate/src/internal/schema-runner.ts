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

/** A runner that answers synchronously when the schema lets it, else with a promise. */
export type EagerSchemaRunner = (value: unknown, name: FieldNamer) => PartResult | Promise<PartResult>;

interface ZodSync extends ZodLike {
  safeParse(data: unknown): ZodLikeResult<unknown>;
}

/**
 * Like `namedSchemaRunner`, but answers without a promise when it can: zod through its synchronous
 * `safeParse` until the schema turns out to have async parts (zod then throws its async error), from
 * when on it goes through `safeParseAsync` for good — the call that found out is run again there, so
 * an async refinement runs twice on that one call. Any other Standard Schema validator answers as its
 * `~standard.validate` does.
 */
export function eagerSchemaRunner(schema: Schema): EagerSchemaRunner {
  const zod = schema as Partial<ZodSync>;
  if (typeof zod.safeParseAsync === 'function') {
    const parseAsync = zod.safeParseAsync.bind(zod);
    const parseSync = typeof zod.safeParse === 'function' ? zod.safeParse.bind(zod) : undefined;
    // A schema that runs code of the user's (a refinement, a transform) may turn out async; its sync
    // parse would then throw, dropping the promise that code returned (and a rejection of it would go
    // unhandled): such schemas go through `safeParseAsync`, as `namedSchemaRunner` does.
    let isAsync = parseSync === undefined || runsUserCode(schema);
    return (value, name) => {
      if (!isAsync) {
        try {
          return zodResult(parseSync!(value), name);
        } catch (err) {
          if (!isZodAsyncError(err)) throw err;
          isAsync = true;
        }
      }
      return parseAsync(value).then((result) => zodResult(result, name));
    };
  }
  const props = (schema as StandardSchemaV1)['~standard'];
  return (value, name) => {
    const pending = props.validate(value);
    return pending instanceof Promise ? pending.then((result) => standardResult(result, name)) : standardResult(pending, name);
  };
}

/** zod 4 definition types whose parse calls a function of the user's, which may return a promise. */
const USER_CODE_TYPES = new Set(['transform', 'custom', 'promise', 'function']);

/**
 * Whether a zod 4 schema calls code of the user's when parsing: a refinement or other custom check,
 * a transform, `z.custom`, `z.promise`. Walks the definition (each schema once, so recursive schemas
 * end); anything that is not a zod 4 schema counts as running user code.
 */
export function runsUserCode(schema: unknown, seen = new Set<object>()): boolean {
  if (typeof schema !== 'object' || schema === null || seen.has(schema)) return false;
  seen.add(schema);
  const internals = (schema as { _zod?: { def?: unknown } })._zod;
  const def = internals?.def as ({ type?: unknown; checks?: unknown; getter?: unknown } & Record<string, unknown>) | undefined;
  if (typeof def !== 'object' || def === null || typeof def.type !== 'string') return true;
  if (USER_CODE_TYPES.has(def.type)) return true;
  if (Array.isArray(def.checks)) {
    for (const check of def.checks as unknown[]) {
      const kind = (check as { _zod?: { def?: { check?: unknown } } } | null)?._zod?.def?.check;
      if (kind === 'custom' || typeof kind !== 'string') return true;
    }
  }
  if (def.type === 'lazy' && typeof def.getter === 'function') return runsUserCode((def.getter as () => unknown)(), seen);
  for (const key of Object.keys(def)) {
    if (key === 'checks') continue;
    const value = def[key];
    if (typeof value !== 'object' || value === null) continue;
    if ('_zod' in value) {
      if (runsUserCode(value, seen)) return true;
    } else if (Array.isArray(value) || Object.getPrototypeOf(value) === Object.prototype || Object.getPrototypeOf(value) === null) {
      for (const item of Object.values(value) as unknown[]) {
        if (typeof item === 'object' && item !== null && '_zod' in item && runsUserCode(item, seen)) return true;
      }
    }
  }
  return false;
}

function zodResult(result: ZodLikeResult<unknown>, name: FieldNamer): PartResult {
  if (result.success) return { ok: true, value: result.data };
  return { ok: false, errors: result.error.issues.map((issue) => zodEntry(name, issue)) };
}

function standardResult(result: StandardSchemaV1.Result<unknown>, name: FieldNamer): PartResult {
  if (result.issues === undefined) return { ok: true, value: result.value };
  return { ok: false, errors: result.issues.map((issue) => standardEntry(name, issue)) };
}

/** zod's error for a promise met during a synchronous parse (`$ZodAsyncError`, zod 4 and `zod/v4`). */
function isZodAsyncError(err: unknown): boolean {
  return err instanceof Error && (err.constructor.name === '$ZodAsyncError' || err.message.startsWith('Encountered Promise during synchronous parse'));
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
