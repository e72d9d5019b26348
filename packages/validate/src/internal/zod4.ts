/**
 * The parts of a zod 4 schema that operations read, declared by shape (zod is not a runtime
 * dependency): `_zod.def` (the definition: `type` and the fields of that type), `_zod.bag` (what
 * checks attached), `_zod.optin` / `_zod.optout` (whether an object key may be absent on input /
 * output). That is zod's documented surface for library authors, the same on zod 4.x (classic and
 * mini) and on `zod/v4` of zod 3.25.
 */

/** A zod 4 definition: its `type`, and the fields of that type. */
export interface ZodDef {
  readonly type: string;
  readonly [key: string]: unknown;
}

/** A zod 4 schema (or check), as far as operations read it. */
export interface ZodNode {
  readonly _zod: {
    readonly def: ZodDef;
    readonly bag?: Readonly<Record<string, unknown>>;
    readonly optin?: string | undefined;
    readonly optout?: string | undefined;
  };
}

/** Whether `value` is a zod 4 schema. */
export function isZod4(value: unknown): value is ZodNode {
  if (typeof value !== 'object' || value === null) return false;
  const internals = (value as { _zod?: unknown })._zod;
  if (typeof internals !== 'object' || internals === null) return false;
  const { def, version } = internals as { def?: unknown; version?: { major?: unknown } };
  if (typeof def !== 'object' || def === null || typeof (def as { type?: unknown }).type !== 'string') return false;
  return version === undefined || version.major === 4;
}

/** Whether `value` is a zod 3 schema (`_def.typeName`, no `_zod`). */
export function isZod3(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || '_zod' in value) return false;
  const def = (value as { _def?: unknown })._def;
  return typeof def === 'object' && def !== null && typeof (def as { typeName?: unknown }).typeName === 'string';
}

/** `def[key]` when it is a zod 4 schema. */
export function child(def: ZodDef, key: string): ZodNode | undefined {
  const value = def[key];
  return isZod4(value) ? value : undefined;
}

/** The zod function a schema was made with, for messages: `z.string()`, `z.looseObject()`, `z.templateLiteral()`. */
export function kindOf(node: ZodNode): string {
  const def = node._zod.def;
  if (def.type === 'object') {
    const catchall = child(def, 'catchall')?._zod.def.type;
    if (catchall === 'unknown' || catchall === 'any') return 'z.looseObject()';
    if (catchall !== undefined && catchall !== 'never') return 'z.object().catchall()';
  }
  return `z.${def.type.replace(/_([a-z])/g, (_match, letter: string) => letter.toUpperCase())}()`;
}

interface Meta {
  readonly id?: unknown;
  readonly description?: unknown;
}

interface Registry {
  get(schema: object): unknown;
}

/**
 * The metadata zod's global registry holds for a schema (`.describe()`, `.meta()`), read the way
 * zod reads it: through the classic API's `.meta()`, which asks the registry of the zod that made
 * the schema; for zod mini (no `.meta()`), from the registry zod 4 keeps on `globalThis`.
 */
export function metaOf(node: ZodNode): Meta | undefined {
  const read = (node as { meta?: unknown }).meta;
  let meta: unknown;
  if (typeof read === 'function') meta = (read as () => unknown).call(node);
  else {
    const registry = (globalThis as { __zod_globalRegistry?: Registry }).__zod_globalRegistry;
    if (registry !== undefined && typeof registry.get === 'function') meta = registry.get(node);
  }
  return typeof meta === 'object' && meta !== null ? meta : undefined;
}

/** The description given with `.describe()` or `.meta({ description })`. */
export function descriptionOf(node: ZodNode): string | undefined {
  const description = metaOf(node)?.description;
  return typeof description === 'string' ? description : undefined;
}

/** The type name given with `.meta({ id })`. */
export function idOf(node: ZodNode): string | undefined {
  const id = metaOf(node)?.id;
  return typeof id === 'string' ? id : undefined;
}

/** The values of a `z.enum()` / `z.nativeEnum()`, without the reverse entries TypeScript adds for numeric members (as zod does). */
export function enumValues(entries: Readonly<Record<string, unknown>>): unknown[] {
  const numeric = Object.values(entries).filter((value) => typeof value === 'number');
  return Object.entries(entries)
    .filter(([key]) => !numeric.includes(Number(key)))
    .map(([, value]) => value);
}

/** The wrappers that leave the value's type as it is (`optional` and `nullable` aside). */
export const TRANSPARENT = new Set(['default', 'prefault', 'catch', 'readonly', 'nonoptional']);
