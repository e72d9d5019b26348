import type { JSONSchema } from '../types.js';

const COMPONENT_PREFIX = '#/components/schemas/';
const DEF_PREFIXES = ['#/$defs/', '#/definitions/'];

/**
 * The document's `components.schemas`. A converted schema keeps its definitions in `$defs`, whose
 * `#/$defs/X` references would resolve against the document root in OpenAPI: they are moved here
 * and the references rewritten. The same definition met twice (a zod schema with `.meta({ id })`
 * used by several routes) is stored once; a different one with a taken name gets a suffix.
 */
export class SchemaRegistry {
  readonly schemas: Record<string, JSONSchema> = Object.create(null) as Record<string, JSONSchema>;

  /** Registers a fixed component (the error bodies) and returns a reference to it. */
  define(name: string, schema: JSONSchema): JSONSchema {
    this.schemas[name] ??= structuredClone(schema);
    return { $ref: COMPONENT_PREFIX + name };
  }

  /**
   * Moves the definitions of `schema` into the components and returns it with references
   * rewritten. `hint` names anonymous definitions (zod's `__schema0` for recursive schemas); `io`
   * names the variant when one named definition differs between requests and responses.
   */
  hoist(schema: JSONSchema, hint: string, io: 'input' | 'output' = 'output'): JSONSchema {
    const defs: Record<string, JSONSchema> = { ...(asRecord(schema.$defs) ?? {}), ...(asRecord(schema.definitions) ?? {}) };
    const root: JSONSchema = { ...schema };
    delete root.$defs;
    delete root.definitions;
    const names = Object.keys(defs);
    // Always a fresh copy: one converted schema may be placed in several operations.
    if (names.length === 0) return rewriteRefs(root, new Map());
    const rename = new Map<string, string>();
    for (const name of names) rename.set(name, validName(/^__schema\d+$/.test(name) ? `${hint}${name.slice(1)}` : name));
    // Settle the names: a definition may keep a taken name only if it is the same definition
    // (compared after its own references were rewritten, so renaming can cascade: loop until stable).
    for (let round = 0; round <= names.length; round++) {
      let changed = false;
      const taken = new Set<string>();
      for (const name of names) {
        let target = rename.get(name)!;
        const content = rewriteRefs(defs[name]!, rename);
        const original = target;
        while (taken.has(target) || (this.schemas[target] !== undefined && !deepEqual(this.schemas[target], content))) {
          // One zod schema documented as a request part and as a response differs (defaults make
          // fields optional on input, objects are closed on output): `AuthorInput` beside `Author`.
          const side = `${original}${io === 'input' ? 'Input' : 'Output'}`;
          target = target === original && !original.endsWith(io === 'input' ? 'Input' : 'Output') ? side : nextName(target);
          changed = true;
        }
        taken.add(target);
        rename.set(name, target);
      }
      if (!changed) break;
    }
    for (const name of names) this.schemas[rename.get(name)!] ??= rewriteRefs(defs[name]!, rename);
    return rewriteRefs(root, rename);
  }

  /** Follows `#/components/schemas/X` references to the schema they name. */
  resolve(schema: JSONSchema): JSONSchema {
    let current = schema;
    for (let depth = 0; depth < 32; depth++) {
      const ref = current.$ref;
      if (typeof ref !== 'string' || !ref.startsWith(COMPONENT_PREFIX)) return current;
      const target = this.schemas[decodePointer(ref.slice(COMPONENT_PREFIX.length))];
      if (target === undefined) return current;
      // Keywords beside $ref (a description) still apply.
      const { $ref: _ignored, ...siblings } = current;
      current = { ...target, ...siblings };
    }
    return current;
  }
}

function asRecord(value: unknown): Record<string, JSONSchema> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, JSONSchema>) : undefined;
}

/** Component names must match `^[a-zA-Z0-9.\-_]+$`. */
function validName(name: string): string {
  const cleaned = name.replace(/[^a-zA-Z0-9.\-_]/g, '_');
  return cleaned === '' ? 'Schema' : cleaned;
}

function nextName(name: string): string {
  const m = /^(.*)_(\d+)$/.exec(name);
  return m === null ? `${name}_2` : `${m[1]}_${Number(m[2]) + 1}`;
}

function decodePointer(segment: string): string {
  let decoded = segment;
  try {
    decoded = decodeURIComponent(segment);
  } catch {
    // Not percent-encoded: use it as it is.
  }
  return decoded.replace(/~1/g, '/').replace(/~0/g, '~');
}

function encodePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** A deep copy with `#/$defs/X...` and `#/definitions/X...` references pointed at the components. */
function rewriteRefs<T>(value: T, rename: ReadonlyMap<string, string>): T {
  if (Array.isArray(value)) return value.map((item: unknown) => rewriteRefs(item, rename)) as T;
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
    if (key === '$ref' && typeof child === 'string') {
      out[key] = rewriteRef(child, rename);
      continue;
    }
    // `properties` maps names to schemas: a property called "$ref" is a schema, not a reference.
    out[key] = rewriteRefs(child, rename);
  }
  return out as T;
}

function rewriteRef(ref: string, rename: ReadonlyMap<string, string>): string {
  for (const prefix of DEF_PREFIXES) {
    if (!ref.startsWith(prefix)) continue;
    const rest = ref.slice(prefix.length);
    const slash = rest.indexOf('/');
    const name = decodePointer(slash === -1 ? rest : rest.slice(0, slash));
    const target = rename.get(name);
    if (target === undefined) return ref;
    return COMPONENT_PREFIX + encodePointer(target) + (slash === -1 ? '' : rest.slice(slash));
  }
  return ref;
}

/** Structural equality of JSON values. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const other = b as unknown[];
    return a.length === other.length && a.every((item, i) => deepEqual(item, other[i]));
  }
  const ak = Object.keys(a);
  const bk = Object.keys(b);
  if (ak.length !== bk.length) return false;
  return ak.every((key) => Object.prototype.hasOwnProperty.call(b, key) && deepEqual((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]));
}
