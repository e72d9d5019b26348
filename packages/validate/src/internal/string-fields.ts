import { child, isZod4, TRANSPARENT, type ZodNode } from './zod4.js';

/** A field that can never accept a string: the zod function it was made with, and the one to use instead. */
export interface StringRefusal {
  readonly kind: string;
  readonly use: string;
}

/**
 * Whether a zod 4 field refuses every string (a number or a boolean without coercion, behind
 * `optional`, `nullable`, `default` and the like, or as the element of an array), and what accepts
 * one. Path params are strings, and so are query values: such a field is never valid there.
 */
export function refusesStrings(node: ZodNode): StringRefusal | undefined {
  const def = node._zod.def;
  if (def.type === 'optional' || def.type === 'nullable' || TRANSPARENT.has(def.type)) {
    const inner = child(def, 'innerType');
    return inner === undefined ? undefined : refusesStrings(inner);
  }
  if (def.type === 'array') {
    const element = child(def, 'element');
    return element === undefined ? undefined : refusesStrings(element);
  }
  if (def.coerce === true) return undefined;
  if (def.type === 'number' || def.type === 'int') return { kind: 'z.number()', use: 'z.coerce.number()' };
  if (def.type === 'boolean') return { kind: 'z.boolean()', use: 'z.stringbool()' };
  return undefined;
}

/** Whether a zod 4 field is a file (`z.file()`), behind its wrappers or as the element of a list. */
export function holdsFile(node: ZodNode): boolean {
  const def = node._zod.def;
  if (def.type === 'file') return true;
  if (def.type === 'optional' || def.type === 'nullable' || TRANSPARENT.has(def.type)) {
    const inner = child(def, 'innerType');
    return inner !== undefined && holdsFile(inner);
  }
  if (def.type === 'pipe') {
    const from = child(def, 'in');
    return from !== undefined && holdsFile(from);
  }
  if (def.type === 'array') {
    const element = child(def, 'element');
    return element !== undefined && holdsFile(element);
  }
  return false;
}

/** The parts of a zod 3 schema read here (`_def`, by shape: zod is not a runtime dependency). */
interface Zod3Def {
  readonly typeName?: unknown;
  readonly coerce?: unknown;
  readonly innerType?: unknown;
  readonly type?: unknown;
  readonly schema?: unknown;
  readonly effect?: { readonly type?: unknown };
  readonly shape?: unknown;
}

const zod3Def = (value: unknown): Zod3Def | undefined => {
  const def = typeof value === 'object' && value !== null && !('_zod' in value) ? (value as { _def?: unknown })._def : undefined;
  return typeof def === 'object' && def !== null && typeof (def as Zod3Def).typeName === 'string' ? def : undefined;
};

const ZOD3_WRAPPERS = new Set(['ZodOptional', 'ZodNullable', 'ZodDefault', 'ZodCatch', 'ZodReadonly', 'ZodBranded']);

/** `refusesStrings` for a zod 3 field (`z.number()` of zod 3's classic API). */
function refusesStrings3(def: Zod3Def): StringRefusal | undefined {
  const { typeName } = def;
  if (typeof typeName === 'string' && ZOD3_WRAPPERS.has(typeName)) {
    const inner = zod3Def(def.innerType ?? def.type);
    return inner === undefined ? undefined : refusesStrings3(inner);
  }
  if (typeName === 'ZodArray') {
    const element = zod3Def(def.type);
    return element === undefined ? undefined : refusesStrings3(element);
  }
  // A refinement or a transform checks the string as it came; a preprocess changes it first.
  if (typeName === 'ZodEffects' && def.effect?.type !== 'preprocess') {
    const inner = zod3Def(def.schema);
    return inner === undefined ? undefined : refusesStrings3(inner);
  }
  if (def.coerce === true) return undefined;
  if (typeName === 'ZodNumber') return { kind: 'z.number()', use: 'z.coerce.number()' };
  if (typeName === 'ZodBoolean') return { kind: 'z.boolean()', use: "z.enum(['true', 'false']).transform((value) => value === 'true')" };
  return undefined;
}

/**
 * The fields of an object schema (zod 4, or zod 3's classic API) that refuse every string, by
 * name; empty for any other schema (a Standard Schema validator, a record, a union), which is not
 * looked into.
 */
export function stringRefusingFields(schema: unknown): Array<[string, StringRefusal]> {
  const found: Array<[string, StringRefusal]> = [];
  if (isZod4(schema)) {
    const def = schema._zod.def;
    if (def.type !== 'object') return found;
    for (const [key, field] of Object.entries((def.shape ?? {}) as Record<string, unknown>)) {
      const refusal = isZod4(field) ? refusesStrings(field) : undefined;
      if (refusal !== undefined) found.push([key, refusal]);
    }
    return found;
  }
  const def = zod3Def(schema);
  if (def?.typeName !== 'ZodObject' || typeof def.shape !== 'function') return found;
  for (const [key, field] of Object.entries((def.shape as () => Record<string, unknown>)())) {
    const fieldDef = zod3Def(field);
    const refusal = fieldDef === undefined ? undefined : refusesStrings3(fieldDef);
    if (refusal !== undefined) found.push([key, refusal]);
  }
  return found;
}
