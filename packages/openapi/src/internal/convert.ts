import type { ConvertContext, JSONSchema, OpenAPIOptions, OpenAPIWarning } from '../types.js';

/** What a conversion reports back: the warnings it collected on the way. */
export type Warn = (code: OpenAPIWarning['code'], message: string) => void;

/** JSON Schema 2020-12 is the dialect of OpenAPI 3.1. */
const TARGET = 'draft-2020-12';

// zod types JSON has no way to carry; zod documents them as `{}` when told `unrepresentable: 'any'`.
const UNREPRESENTABLE = new Set(['bigint', 'symbol', 'undefined', 'void', 'date', 'map', 'set', 'custom', 'function', 'nan', 'promise']);

interface ZodDef {
  type: string;
  coerce?: boolean;
}

interface ZodOverrideContext {
  zodSchema: { _zod: { def: ZodDef } };
  jsonSchema: JSONSchema;
  path: Array<string | number>;
}

interface Zod4Like {
  _zod: { def: ZodDef };
  toJSONSchema?: (params: Record<string, unknown>) => unknown;
  isOptional?: () => boolean;
}

interface StandardProps {
  version: number;
  vendor: string;
  validate: unknown;
  jsonSchema?: { input?: (options: { target: string }) => unknown; output?: (options: { target: string }) => unknown };
}

type ValibotToJsonSchema = (schema: unknown, config: Record<string, unknown>) => unknown;

/** A zod 4 schema (classic or mini, zod 4.x or `zod/v4` of zod 3.25). */
export function isZod4(value: unknown): value is Zod4Like {
  return isObjectLike(value) && isObjectLike((value as { _zod?: unknown })._zod) && isObjectLike((value as Zod4Like)._zod.def);
}

/** A zod 3 schema: it has `_def` and `safeParse`, and no `_zod`. */
function isZod3(value: unknown): boolean {
  return isObjectLike(value) && !('_zod' in value) && isObjectLike((value as { _def?: unknown })._def) && typeof (value as { safeParse?: unknown }).safeParse === 'function';
}

function standardProps(value: unknown): StandardProps | undefined {
  if (!isObjectLike(value)) return undefined;
  const props = (value as { '~standard'?: unknown })['~standard'];
  return isObjectLike(props) && (props as StandardProps).version === 1 ? (props as StandardProps) : undefined;
}

/** A plain object (literal or null-prototype) that is no validator: taken as JSON Schema as it is. */
export function isPlainJSONSchema(value: unknown): value is JSONSchema {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return false;
  return !('~standard' in value) && !('_zod' in value) && !('_def' in value) && typeof (value as { safeParse?: unknown }).safeParse !== 'function';
}

/** Whether a request-part schema accepts an absent value (a zod `.optional()` body). */
export function acceptsUndefined(schema: unknown): boolean {
  if (isZod4(schema) && typeof schema.isOptional === 'function') {
    try {
      return schema.isOptional();
    } catch {
      return false;
    }
  }
  return false;
}

/**
 * Converts one schema to JSON Schema (with its `$defs` still inside; the caller hoists them). The
 * order: the user's `convert`, zod 4 (its own `toJSONSchema`, or the `zodToJSONSchema` given), a
 * Standard JSON Schema (`~standard.jsonSchema`), valibot through `@valibot/to-json-schema`, a plain
 * JSON Schema object. Anything else, or a converter that throws, gives `{}` and a warning.
 * `datesAsStrings`: zod dates are ISO strings on input too (operations read them so on every protocol).
 */
export function convertSchema(schema: unknown, context: ConvertContext, options: OpenAPIOptions, warn: Warn, datesAsStrings = false): JSONSchema {
  const where = `${context.part} schema of ${context.method} ${context.path}`;
  const fail = (why: string, cause?: unknown): JSONSchema => {
    const reason = cause instanceof Error ? `: ${cause.message}` : '';
    warn('unconvertible-schema', `The ${where} is documented as {} (${why}${reason})`);
    return {};
  };
  if (options.convert !== undefined) {
    let custom: JSONSchema | undefined;
    try {
      custom = options.convert(schema, context);
    } catch (err) {
      return fail('the convert option threw', err);
    }
    if (custom !== undefined) return clean(custom);
  }
  if (isZod4(schema)) {
    const params = zodParams(context, where, warn, datesAsStrings);
    try {
      if (typeof schema.toJSONSchema === 'function') return clean(schema.toJSONSchema(params));
      if (options.zodToJSONSchema !== undefined) return clean(options.zodToJSONSchema(schema as never, params));
    } catch (err) {
      return fail('zod could not convert it', err);
    }
    if (standardProps(schema)?.jsonSchema === undefined) {
      return fail("this zod version's schemas carry no JSON Schema converter; pass zodToJSONSchema: z.toJSONSchema");
    }
  }
  const props = standardProps(schema);
  const converter = props?.jsonSchema?.[context.io];
  if (typeof converter === 'function') {
    try {
      return clean(converter({ target: TARGET }));
    } catch (err) {
      return fail(`${props!.vendor} could not convert it`, err);
    }
  }
  if (props?.vendor === 'valibot') return convertValibot(schema, context, where, warn, fail);
  if (isZod3(schema)) return fail('zod 3 has no JSON Schema converter; move the schema to zod 4 or pass a convert option such as zod-to-json-schema');
  if (props !== undefined) return fail(`${props.vendor} offers no JSON Schema (~standard.jsonSchema); pass a convert option`);
  if (isPlainJSONSchema(schema)) return clean(schema);
  return fail('not a zod, Standard Schema or JSON Schema object');
}

function zodParams(context: ConvertContext, where: string, warn: Warn, datesAsStrings: boolean): Record<string, unknown> {
  return {
    target: TARGET,
    io: context.io,
    unrepresentable: 'any',
    override(ctx: ZodOverrideContext): void {
      const def = ctx.zodSchema._zod.def;
      const at = ctx.path.filter((key) => key !== 'properties' && key !== 'items').join('.');
      const location = at === '' ? where : `${where} (at ${at})`;
      if (def.type === 'date' && (context.io === 'output' || def.coerce === true || datesAsStrings)) {
        // On the wire a date is an ISO string: JSON.stringify writes one, z.coerce.date() reads one.
        ctx.jsonSchema.type = 'string';
        ctx.jsonSchema.format = 'date-time';
        return;
      }
      if (def.type === 'transform' && context.io === 'output') {
        warn('unrepresentable-type', `A transform's output in the ${location} is documented as {} (give the response its output schema)`);
        return;
      }
      if (UNREPRESENTABLE.has(def.type) && Object.keys(ctx.jsonSchema).length === 0) {
        warn('unrepresentable-type', `zod type "${def.type}" in the ${location} has no JSON Schema; documented as {}`);
      }
    },
  };
}

let valibotConverter: ValibotToJsonSchema | null | undefined;

/** `@valibot/to-json-schema` when installed (an optional peer), loaded on first use. */
function loadValibotConverter(): ValibotToJsonSchema | null {
  if (valibotConverter === undefined) {
    try {
      const load = process.getBuiltinModule('node:module').createRequire(__filename);
      const name = '@valibot/to-json-schema';
      valibotConverter = (load(name) as { toJsonSchema: ValibotToJsonSchema }).toJsonSchema;
    } catch {
      valibotConverter = null;
    }
  }
  return valibotConverter;
}

function convertValibot(schema: unknown, context: ConvertContext, where: string, warn: Warn, fail: (why: string, cause?: unknown) => JSONSchema): JSONSchema {
  const toJsonSchema = loadValibotConverter();
  if (toJsonSchema === null) return fail('install @valibot/to-json-schema to document valibot schemas');
  const config = { target: TARGET, typeMode: context.io };
  try {
    return clean(toJsonSchema(schema, { ...config, errorMode: 'throw' }));
  } catch (err) {
    // Keep what can be documented: the parts valibot cannot express become {}.
    warn('unrepresentable-type', `Part of the ${where} has no JSON Schema (${err instanceof Error ? err.message : String(err)}); documented as {}`);
    try {
      return clean(toJsonSchema(schema, { ...config, errorMode: 'ignore' }));
    } catch (again) {
      return fail('valibot could not convert it', again);
    }
  }
}

/** A copy without the root `$schema` (OpenAPI 3.1 sets the dialect for the whole document). */
function clean(value: unknown): JSONSchema {
  if (!isObjectLike(value) || Array.isArray(value)) throw new TypeError('a converter returned something other than a JSON Schema object');
  const copy = JSON.parse(JSON.stringify(value)) as JSONSchema;
  delete copy.$schema;
  return copy;
}

function isObjectLike(value: unknown): value is object {
  return (typeof value === 'object' || typeof value === 'function') && value !== null;
}
