import type { FieldShape, TypeShape } from '@fw/core';
import type { JSONSchema, SchemaIO } from '../types.js';

/**
 * An operation's type shape → JSON Schema 2020-12, with the named types (objects and enums with a
 * name) in `$defs` and referenced, as `convertSchema` returns a zod schema (the registry hoists them
 * into the components). The keywords are the ones zod's `toJSONSchema` writes for the schema the
 * shape came from, so that GraphQL, gRPC and OpenAPI describe one type from one source.
 */

/** A type shape to document in place of a schema (a request or response part of an operation). */
export class ShapeSchema {
  constructor(readonly shape: TypeShape) {}
}

const DEFS = '#/$defs/';

/** The JSON Schema of `shape` on one side: `output` objects are closed (unknown keys are dropped from answers). */
export function shapeSchema(shape: TypeShape, io: SchemaIO): JSONSchema {
  const emitter = new Emitter(io);
  const root = emitter.type(shape);
  const result: JSONSchema = { ...root };
  if (emitter.defs.size > 0) result.$defs = Object.fromEntries(emitter.defs);
  // A copy that JSON can carry (annotations are the user's values), as zod's converter returns one.
  return JSON.parse(JSON.stringify(result)) as JSONSchema;
}

class Emitter {
  readonly defs = new Map<string, JSONSchema>();
  /** The name each named type got, by source (a taken name with another source gets a suffix). */
  readonly #names = new Map<object, string>();

  constructor(readonly io: SchemaIO) {}

  type(shape: TypeShape): JSONSchema {
    if ((shape.kind === 'object' || shape.kind === 'enum') && shape.name !== undefined) return { $ref: DEFS + encodePointer(this.#define(shape, shape.name)) };
    return this.#body(shape);
  }

  #define(shape: Extract<TypeShape, { kind: 'object' | 'enum' }>, name: string): string {
    const known = this.#names.get(shape.source);
    if (known !== undefined) return known;
    let id = name;
    for (let n = 2; this.defs.has(id); n++) id = `${name}_${n}`;
    this.#names.set(shape.source, id);
    this.defs.set(id, {});
    this.defs.set(id, this.#body(shape));
    return id;
  }

  #body(shape: TypeShape): JSONSchema {
    const json = this.#keywords(shape);
    annotate(json, shape);
    // zod writes `anyOf: [{ type: T }, { type: 'null' }]` as `type: [T, 'null']` when the branch is a bare type.
    if (shape.kind === 'nullable') compactTypeUnion(json);
    return json;
  }

  #keywords(shape: TypeShape): JSONSchema {
    switch (shape.kind) {
      case 'scalar':
        return scalarKeywords(shape);
      case 'enum':
        return shape.values.length === 0 ? { not: {} } : { type: 'string', enum: [...shape.values] };
      case 'list': {
        const json: JSONSchema = {};
        if (shape.minItems !== undefined) json.minItems = shape.minItems;
        if (shape.maxItems !== undefined) json.maxItems = shape.maxItems;
        return Object.assign(json, { type: 'array', items: this.type(shape.of) });
      }
      case 'nullable':
        return { anyOf: [this.type(shape.of), { type: 'null' }] };
      case 'map':
        return { type: 'object', propertyNames: shape.key === undefined ? { type: 'string' } : this.type(shape.key), additionalProperties: this.type(shape.of) };
      case 'object': {
        const properties: Record<string, JSONSchema> = {};
        for (const field of shape.fields) Object.defineProperty(properties, field.name, { value: this.#field(field), enumerable: true, writable: true, configurable: true });
        const json: JSONSchema = { type: 'object', properties };
        const required = shape.fields.filter((field) => !field.optional).map((field) => field.name);
        if (required.length > 0) json.required = required;
        if (this.io === 'output' || shape.strict === true) json.additionalProperties = false;
        return json;
      }
    }
  }

  /** A property: its type with the field's own wrappers' annotations over it (the default first, as zod orders it). */
  #field(field: FieldShape): JSONSchema {
    const type = this.type(field.type);
    const annotations = field.annotations;
    if (annotations === undefined) return type;
    const json: JSONSchema = { ...annotations, ...type, ...annotations };
    // Beside a reference, what the named type already says is left out (zod does the same).
    const ref = typeof type.$ref === 'string' ? this.defs.get(decodePointer(type.$ref.slice(DEFS.length))) : undefined;
    if (ref !== undefined) {
      for (const key of Object.keys(annotations)) if (key in ref && JSON.stringify(ref[key]) === JSON.stringify(json[key])) delete json[key];
    }
    return json;
  }
}

function scalarKeywords(shape: Extract<TypeShape, { kind: 'scalar' }>): JSONSchema {
  const json: JSONSchema = {};
  switch (shape.scalar) {
    case 'boolean':
      return { type: 'boolean' };
    case 'datetime':
      // On the wire a date is an ISO string, both ways (JSON.stringify writes one, operations read one).
      return { type: 'string', format: 'date-time' };
    case 'file':
      Object.assign(json, { type: 'string', format: 'binary', contentEncoding: 'binary' });
      if (shape.minLength !== undefined) json.minLength = shape.minLength;
      if (shape.maxLength !== undefined) json.maxLength = shape.maxLength;
      if (shape.mime !== undefined) {
        if (shape.mime.length === 0) json.not = {};
        else if (shape.mime.length === 1) json.contentMediaType = shape.mime[0];
        else json.anyOf = shape.mime.map((mime) => ({ contentMediaType: mime }));
      }
      return json;
    case 'string':
      json.type = 'string';
      if (shape.minLength !== undefined) json.minLength = shape.minLength;
      if (shape.maxLength !== undefined) json.maxLength = shape.maxLength;
      if (shape.format !== undefined) json.format = shape.format;
      if (shape.contentEncoding !== undefined) json.contentEncoding = shape.contentEncoding;
      if (shape.patterns !== undefined && shape.patterns.length === 1) json.pattern = shape.patterns[0];
      // Several patterns must all match: one `pattern` keyword cannot say it.
      else if (shape.patterns !== undefined && shape.patterns.length > 1) json.allOf = shape.patterns.map((pattern) => ({ pattern }));
      return json;
    default: {
      json.type = shape.scalar === 'float' ? 'number' : 'integer';
      for (const key of ['exclusiveMinimum', 'minimum', 'exclusiveMaximum', 'maximum'] as const) if (shape[key] !== undefined) json[key] = shape[key];
      const [first, ...rest] = shape.multipleOf ?? [];
      if (first !== undefined) json.multipleOf = first;
      if (rest.length > 0) json.allOf = rest.map((multipleOf) => ({ multipleOf }));
      return json;
    }
  }
}

/** The type's own annotations over its keywords, in the order zod writes `.meta()`: other keys, title, examples, deprecated, description. */
function annotate(json: JSONSchema, shape: TypeShape): void {
  if (shape.annotations !== undefined) Object.assign(json, shape.annotations);
  if (shape.title !== undefined) json.title = shape.title;
  if (shape.examples !== undefined) json.examples = [...shape.examples];
  if (shape.deprecated !== undefined) json.deprecated = shape.deprecated;
  if (shape.description !== undefined) json.description = shape.description;
}

function compactTypeUnion(json: JSONSchema): void {
  const options = json.anyOf;
  if (!Array.isArray(options) || json.type !== undefined) return;
  const types: string[] = [];
  for (const option of options as unknown[]) {
    if (option === null || typeof option !== 'object') return;
    const keys = Object.keys(option);
    const type = (option as { type?: unknown }).type;
    if (keys.length !== 1 || keys[0] !== 'type') return;
    for (const member of Array.isArray(type) ? (type as unknown[]) : [type]) {
      if (typeof member !== 'string') return;
      if (!types.includes(member)) types.push(member);
    }
  }
  delete json.anyOf;
  json.type = types.length === 1 ? types[0] : types;
}

function encodePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

function decodePointer(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}
