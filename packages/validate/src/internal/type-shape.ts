import type { FieldShape, ObjectShape, TypeShape } from '@fw/core';
import { annotationsOf, fileConstraints, listConstraints, numberConstraints, stringConstraints } from './constraints.js';
import { numberKind } from './number-kind.js';
import { child, descriptionOf, enumValues, idOf, isZod4, kindOf, metaOf, TRANSPARENT, type ZodDef, type ZodNode } from './zod4.js';

/**
 * zod 4 → core's `TypeShape`: the protocol-neutral description GraphQL types, proto messages and
 * JSON Schema are generated from. The rules are the README's table; what cannot be served on
 * GraphQL or gRPC is a `TypeError` naming the path (`output.author.born`).
 */

/** Which side of the schema: what the client sends (`input`) or what the operation answers (`output`). */
export type Direction = 'input' | 'output';

/** Where a type sits: an object field (may be optional), a list element, a map value, the output itself. */
type Position = 'field' | 'element' | 'value' | 'root';

const NOUN: Record<Exclude<Position, 'field'>, string> = { element: 'list element', value: 'map value', root: 'output' };

const SERVED = 'cannot be served on GraphQL or gRPC';

/** Why a type cannot be served, and what to use instead, by zod type. */
const HINTS: Readonly<Record<string, string>> = {
  union: 'use z.enum() for string choices, or one object with optional fields',
  intersection: 'use one z.object(), e.g. with .extend()',
  tuple: 'use an object',
  map: 'use z.record(z.string(), ...)',
  set: 'use z.array()',
  lazy: 'recursive types are not supported',
};

// One shape per schema and direction, so that a schema used by several operations (or twice in one)
// is one object, and generators make one named type of it.
const shapes: Record<Direction, WeakMap<ZodNode, TypeShape>> = { input: new WeakMap(), output: new WeakMap() };

/** A definition mistake: the path in the schema and what is wrong there. */
export class ShapeError extends TypeError {
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(`${path}: ${reason}`);
  }
}

/** The shape of `schema` on one side; `path` names it in errors (`input`, `output`). */
export function typeShape(schema: ZodNode, direction: Direction, path: string): TypeShape {
  return new ShapeBuilder(direction).build(schema, path, 'root');
}

/** The shape of an input object schema. */
export function inputShape(schema: ZodNode): ObjectShape {
  return typeShape(schema, 'input', 'input') as ObjectShape;
}

class ShapeBuilder {
  /** Objects being built: meeting one again is a recursive type (a getter in the shape refers back). */
  readonly #building = new Set<ZodNode>();

  constructor(readonly direction: Direction) {}

  build(node: ZodNode, path: string, position: Position): TypeShape {
    const def = node._zod.def;
    switch (def.type) {
      case 'optional':
        if (position !== 'field') throw new ShapeError(path, `an optional ${NOUN[position]} ${SERVED} (use .nullable())`);
        return this.build(this.#inner(node, path), path, position);
      case 'nonoptional':
        // Its inner type may be optional: the wrapper says the value is there.
        return this.build(this.#inner(node, path), path, 'field');
      case 'nullable': {
        const of = this.build(this.#inner(node, path), path, position);
        return of.kind === 'nullable' ? of : described({ kind: 'nullable', of }, node);
      }
      case 'pipe':
        return this.build(this.#side(node, path), path, position);
      case 'string':
      case 'template_literal':
        return described({ kind: 'scalar', scalar: 'string', ...(identifierOf(node, path) ? { identifier: true } : {}), ...stringConstraints(node) }, node);
      case 'number':
      case 'int':
        return described({ kind: 'scalar', scalar: numberKind(node), ...numberConstraints(node) }, node);
      case 'boolean':
        return described({ kind: 'scalar', scalar: 'boolean' }, node);
      case 'date':
        return described({ kind: 'scalar', scalar: 'datetime' }, node);
      case 'file':
        // A file is uploaded, never answered: no protocol has a way to send one back in a message.
        if (this.direction === 'output') throw new ShapeError(path, 'z.file() is for inputs only (an upload); answer a URL or the bytes as a base64 z.string()');
        return described({ kind: 'scalar', scalar: 'file', ...fileConstraints(node) }, node);
      case 'enum':
      case 'literal':
        return this.#enum(node, this.#choices(node, path));
      case 'union':
        return this.#union(node, path, position);
      case 'array': {
        const element = child(def, 'element');
        if (element === undefined) throw new ShapeError(path, `${kindOf(node)} has no element schema`);
        return described({ kind: 'list', of: this.build(element, `${path}[]`, 'element'), ...listConstraints(node) }, node);
      }
      case 'record':
        return this.#record(node, path);
      case 'object':
        return this.#object(node, path);
      default:
        if (TRANSPARENT.has(def.type)) return this.build(this.#inner(node, path), path, position);
        throw new ShapeError(path, `${kindOf(node)} ${SERVED}${HINTS[def.type] === undefined ? '' : ` (${HINTS[def.type]})`}`);
    }
  }

  #inner(node: ZodNode, path: string): ZodNode {
    const inner = child(node._zod.def, 'innerType');
    if (inner === undefined) throw new ShapeError(path, `${kindOf(node)} has no inner schema`);
    return inner;
  }

  /**
   * The side of a pipe this direction sees: what it accepts on input (the target of a
   * `z.preprocess()`, whose first step is a bare transform), what it produces on output (a transform
   * at the end produces a value no schema describes).
   */
  #side(node: ZodNode, path: string): ZodNode {
    const def = node._zod.def;
    const from = child(def, 'in');
    const to = child(def, 'out');
    if (from === undefined || to === undefined) throw new ShapeError(path, 'z.pipe() without both sides');
    if (this.direction === 'input') return from._zod.def.type === 'transform' ? to : from;
    if (to._zod.def.type === 'transform') {
      throw new ShapeError(path, 'the output of z.transform() is not known to the schema (pipe it into one: .transform(fn).pipe(z.number()))');
    }
    return to;
  }

  /** The string values of an enum or literal, or an error for any other value. */
  #choices(node: ZodNode, path: string): string[] {
    const def = node._zod.def;
    if (def.type === 'literal') {
      const values = Array.isArray(def.values) ? (def.values as unknown[]) : [];
      if (values.length === 0 || !values.every((v) => typeof v === 'string')) {
        throw new ShapeError(path, `z.literal() of a non-string value ${SERVED} (use z.enum() of strings)`);
      }
      return values;
    }
    const values = enumValues((def.entries ?? {}) as Record<string, unknown>);
    if (!values.every((v) => typeof v === 'string')) throw new ShapeError(path, `an enum with non-string values ${SERVED} (use string values)`);
    return values;
  }

  #enum(node: ZodNode, values: readonly string[]): TypeShape {
    const known = shapes[this.direction].get(node);
    if (known !== undefined) return known;
    const shape = described({ kind: 'enum', name: idOf(node), values: Object.freeze([...new Set(values)]), source: node }, node);
    shapes[this.direction].set(node, shape);
    return shape;
  }

  /** A union of string literals and enums is one enum; `T | null` is a nullable T; any other union is refused. */
  #union(node: ZodNode, path: string, position: Position): TypeShape {
    const options = (Array.isArray(node._zod.def.options) ? (node._zod.def.options as unknown[]) : []).filter(isZod4);
    const present = options.filter((option) => option._zod.def.type !== 'null');
    const nullable = present.length < options.length;
    let shape: TypeShape | undefined;
    if (present.length === 1) shape = this.build(present[0]!, path, position);
    else if (present.length > 1 && present.every((option) => option._zod.def.type === 'enum' || option._zod.def.type === 'literal')) {
      shape = this.#enum(node, present.flatMap((option) => this.#choices(option, path)));
    }
    if (shape === undefined) throw new ShapeError(path, `z.union() ${SERVED} (${HINTS.union})`);
    return nullable && shape.kind !== 'nullable' ? described({ kind: 'nullable', of: shape }, node) : shape;
  }

  #record(node: ZodNode, path: string): TypeShape {
    const def = node._zod.def;
    const key = child(def, 'keyType');
    const value = child(def, 'valueType');
    if (key === undefined || key._zod.def.type !== 'string' || value === undefined) {
      throw new ShapeError(path, `z.record() with keys other than z.string() ${SERVED} (use z.object() with those keys)`);
    }
    const of = this.build(value, `${path}{}`, 'value');
    // The key's own checks and annotations (z.string().min(1)) are documented as the map's property names.
    const keyShape = this.build(key, `${path}{key}`, 'value');
    const plain = Object.keys(keyShape).every((name) => name === 'kind' || name === 'scalar');
    return described(plain ? { kind: 'map', of } : { kind: 'map', of, key: keyShape }, node);
  }

  #object(node: ZodNode, path: string): TypeShape {
    const known = shapes[this.direction].get(node);
    if (known !== undefined) return known;
    const def = node._zod.def;
    const catchall = child(def, 'catchall')?._zod.def.type;
    if (catchall !== undefined && catchall !== 'never') {
      throw new ShapeError(path, `${kindOf(node)} keeps unknown keys, which GraphQL and gRPC cannot carry: use z.object() (strips them) or z.strictObject()`);
    }
    if (this.#building.has(node)) throw new ShapeError(path, `a recursive object ${SERVED} (${HINTS.lazy})`);
    this.#building.add(node);
    const fields: FieldShape[] = [];
    const entries = typeof def.shape === 'object' && def.shape !== null ? Object.entries(def.shape) : [];
    for (const [name, schema] of entries) {
      const fieldPath = `${path}.${name}`;
      if (!isZod4(schema)) throw new ShapeError(fieldPath, 'is not a zod 4 schema');
      const optional = this.direction === 'input' ? schema._zod.optin !== undefined : schema._zod.optout === 'optional';
      const field: { -readonly [K in keyof FieldShape]: FieldShape[K] } = { name, type: this.build(schema, fieldPath, 'field'), optional };
      const description = this.#fieldDescription(schema);
      if (description !== undefined) field.description = description;
      Object.assign(field, deprecationOf(schema, this.direction));
      if (this.direction === 'input') {
        const value = defaultOf(schema);
        if (value !== undefined) field.default = value;
      }
      const annotations = fieldAnnotations(schema, this.direction);
      if (annotations !== undefined) field.annotations = annotations;
      fields.push(Object.freeze(field));
    }
    this.#building.delete(node);
    const strict = catchall === 'never' ? { strict: true } : {};
    const shape = described({ kind: 'object', name: idOf(node), fields: Object.freeze(fields), source: node, ...strict }, node);
    shapes[this.direction].set(node, shape);
    return shape;
  }

  /**
   * The first description on the way from a field's schema through its wrappers to its type; not
   * that of an object or enum, which is its type's own and is not copied onto every field using it.
   */
  #fieldDescription(schema: ZodNode): string | undefined {
    let node: ZodNode | undefined = schema;
    while (node !== undefined) {
      if (isNamedType(node)) return undefined;
      const description = descriptionOf(node);
      if (description !== undefined) return description;
      const def: ZodDef = node._zod.def;
      if (def.type === 'optional' || def.type === 'nullable' || TRANSPARENT.has(def.type)) node = child(def, 'innerType');
      else if (def.type === 'pipe') node = child(def, this.direction === 'input' ? 'in' : 'out');
      else node = undefined;
    }
    return undefined;
  }
}

/** Whether a schema is one that becomes a named type (an object, an enum), whose description is the type's. */
function isNamedType(node: ZodNode): boolean {
  const def = node._zod.def;
  if (def.type === 'object' || def.type === 'enum' || def.type === 'literal') return true;
  if (def.type !== 'union' || !Array.isArray(def.options)) return false;
  const present = (def.options as unknown[]).filter(isZod4).filter((option) => option._zod.def.type !== 'null');
  return present.length > 1 && present.every((option) => option._zod.def.type === 'enum' || option._zod.def.type === 'literal');
}

/** The nodes from a field's schema through its wrappers to its type (the side a pipe shows in `direction`). */
function* wrappers(schema: ZodNode, direction: Direction): Generator<ZodNode> {
  let node: ZodNode | undefined = schema;
  while (node !== undefined) {
    yield node;
    const def: ZodDef = node._zod.def;
    if (def.type === 'optional' || def.type === 'nullable' || TRANSPARENT.has(def.type)) node = child(def, 'innerType');
    else if (def.type === 'pipe') node = child(def, direction === 'input' ? 'in' : 'out');
    else node = undefined;
  }
}

/**
 * A field's deprecation: `.meta({ deprecated: true })` or `.meta({ deprecationReason: '...' })`
 * (which implies it) on the field's schema, one of its wrappers, or its type.
 */
function deprecationOf(schema: ZodNode, direction: Direction): Pick<FieldShape, 'deprecated' | 'deprecationReason'> {
  let deprecated = false;
  let reason: string | undefined;
  for (const node of wrappers(schema, direction)) {
    const meta = metaOf(node) as Readonly<Record<string, unknown>> | undefined;
    if (meta === undefined) continue;
    if (meta.deprecated === true) deprecated = true;
    if (reason === undefined && typeof meta.deprecationReason === 'string') {
      deprecated = true;
      reason = meta.deprecationReason;
    }
  }
  if (!deprecated) return {};
  return reason === undefined ? { deprecated } : { deprecated, deprecationReason: reason };
}

/**
 * The value an input field left out takes (`.default(20)`), when it is a constant JSON value:
 * zod computes a default each time it is read, so a default made by a function that gives another
 * value each time (a date, an id) is no constant and is left out, as is anything JSON cannot say.
 */
function defaultOf(schema: ZodNode): { readonly value: unknown } | undefined {
  for (const node of wrappers(schema, 'input')) {
    const def = node._zod.def;
    if (def.type === 'default') return constantOf(() => def.defaultValue);
  }
  return undefined;
}

/** What `read` gives, when it is the same JSON value on two reads (a frozen copy). */
function constantOf(read: () => unknown): { readonly value: unknown } | undefined {
  const json = (): string | undefined => {
    try {
      const value = read();
      return isJsonValue(value) ? JSON.stringify(value) : undefined;
    } catch {
      return undefined;
    }
  };
  const first = json();
  if (first === undefined || json() !== first) return undefined;
  return Object.freeze({ value: JSON.parse(first) as unknown });
}

function isJsonValue(value: unknown): boolean {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (Array.isArray(value)) return value.every(isJsonValue);
  if (typeof value !== 'object' || Object.getPrototypeOf(value) !== Object.prototype) return false;
  return Object.values(value).every(isJsonValue);
}

/** Whether a string schema is an identifier: `.meta({ graphql: { type: 'ID' } })`; any other `graphql.type` is a mistake. */
function identifierOf(node: ZodNode, path: string): boolean {
  const graphql = (metaOf(node) as Readonly<Record<string, unknown>> | undefined)?.graphql;
  if (graphql === undefined) return false;
  const type = typeof graphql === 'object' && graphql !== null ? (graphql as Record<string, unknown>).type : undefined;
  if (type !== 'ID') throw new ShapeError(path, `.meta({ graphql }) on a string must be { type: 'ID' }, got ${JSON.stringify(graphql)}`);
  return true;
}

/** The wrappers of a field outside its type: they leave the type as it is and may carry annotations of their own. */
const OUTER = new Set(['optional', 'pipe', ...TRANSPARENT]);

/**
 * The JSON Schema annotations of a field's own wrappers (`.optional().describe()`), merged as zod's
 * `toJSONSchema` merges a wrapper over its inner schema (the outer one wins): their `.meta()`, the
 * value of `.default()` (on both sides, as zod documents it), `.prefault()` (input) and `.catch()`
 * when it is a constant JSON value, and `readOnly` of `.readonly()`. The default comes first.
 */
function fieldAnnotations(schema: ZodNode, direction: Direction): Readonly<Record<string, unknown>> | undefined {
  const outer: ZodNode[] = [];
  for (const node of wrappers(schema, direction)) {
    if (!OUTER.has(node._zod.def.type)) break;
    outer.push(node);
  }
  const merged: Record<string, unknown> = {};
  for (const node of outer.reverse()) {
    const def = node._zod.def;
    let value: { readonly value: unknown } | undefined;
    if (def.type === 'default' || (def.type === 'prefault' && direction === 'input')) value = constantOf(() => def.defaultValue);
    else if (def.type === 'catch' && typeof def.catchValue === 'function') value = constantOf(() => (def.catchValue as (ctx: unknown) => unknown)(undefined));
    if (value !== undefined) merged.default = value.value;
    if (def.type === 'readonly') merged.readOnly = true;
    const meta = metaOf(node) as Readonly<Record<string, unknown>> | undefined;
    for (const [key, v] of Object.entries(meta ?? {})) if (key !== 'id' && v !== undefined) merged[key] = v;
  }
  if (Object.keys(merged).length === 0) return undefined;
  return Object.freeze('default' in merged ? { default: merged.default, ...merged } : merged);
}

/** `shape` with the schema's description and annotations, if it has them; frozen (shapes are shared). */
function described<T extends TypeShape>(shape: T, node: ZodNode): T {
  const description = descriptionOf(node);
  const annotations = annotationsOf(node);
  return Object.freeze({ ...shape, ...annotations, ...(description === undefined ? {} : { description }) }) as unknown as T;
}
