import type { FieldShape, Operation, TypeShape } from '@fw/core';
import { typeNames, type NamedShape, type TypeNames } from '@fw/core/plugin';

/**
 * Core's `TypeShape`s → TypeScript type declarations, for the generated client. The names are
 * core's `typeNames` (the GraphQL type and proto message names): a schema used on both sides whose
 * input differs from its output (a default makes a field optional to send) takes `<Name>Input` on
 * the input side.
 */

/** Which side of an operation a type is on. */
export type Side = 'input' | 'output';

/** A `/** ... *\/` comment of `lines`, indented, or nothing when there are none. */
export function docComment(lines: ReadonlyArray<string | undefined>, indent = ''): string {
  const text = lines.filter((line): line is string => line !== undefined && line.trim() !== '').flatMap((line) => line.split(/\r\n|\r|\n/));
  if (text.length === 0) return '';
  const safe = text.map((line) => line.replace(/\*\//g, '*\\/').trimEnd());
  if (safe.length === 1) return `${indent}/** ${safe[0]} */\n`;
  return `${indent}/**\n${safe.map((line) => `${indent} *${line === '' ? '' : ` ${line}`}`).join('\n')}\n${indent} */\n`;
}

/** The `@deprecated` line of a field or an operation, when it is deprecated. */
export function deprecatedLine(item: { readonly deprecated?: boolean | undefined; readonly deprecationReason?: string | undefined }): string | undefined {
  if (item.deprecated !== true) return undefined;
  return item.deprecationReason === undefined ? '@deprecated' : `@deprecated ${item.deprecationReason}`;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** A single-quoted string literal of `text` (the repository's style). */
export function quote(text: string): string {
  const json = JSON.stringify(text).slice(1, -1).replace(/\\"/g, '"');
  return `'${json.replace(/'/g, "\\'")}'`;
}

/** A property key as TypeScript writes it: bare when it is an identifier, else quoted. */
export function propertyKey(name: string): string {
  return IDENTIFIER.test(name) ? name : quote(name);
}

/** A type name TypeScript accepts: characters other than letters, digits, `_` and `$` become `_`. */
function identifier(name: string): string {
  const cleaned = name.replace(/[^A-Za-z0-9_$]/g, '_');
  return /^[0-9]/.test(cleaned) ? `_${cleaned}` : cleaned;
}

/** The declarations of every type the operations use, and the name of each. */
export class ClientTypes {
  readonly #names: TypeNames;
  /** The declared name of each (schema, side) pair. */
  readonly #declared = new Map<string, string>();
  readonly #taken: Set<string>;
  readonly #keys = new Map<object, number>();
  /** The declarations, in the order they were first used. */
  readonly #declarations: string[] = [];
  /** The output shape of each schema used on the output side, to compare its input shape with. */
  readonly #outputs = new Map<object, NamedShape>();

  constructor(operations: readonly Operation[], reserved: Iterable<string>) {
    this.#names = typeNames(operations);
    this.#taken = new Set(reserved);
    // Output shapes first: an input shape equal to its output shape is the same declaration.
    for (const op of operations) collect(op.output, this.#outputs);
  }

  /** Every declaration made so far, in order. */
  declarations(): readonly string[] {
    return this.#declarations;
  }

  /** Takes `name` (made unique with a number when it is taken already). */
  reserve(name: string): string {
    const base = identifier(name);
    let unique = base;
    for (let n = 2; this.#taken.has(unique); n++) unique = `${base}${n}`;
    this.#taken.add(unique);
    return unique;
  }

  /** The TypeScript of `shape` on `side`, declaring the named types it uses. */
  typeOf(shape: TypeShape, side: Side): string {
    switch (shape.kind) {
      case 'scalar':
        return shape.scalar === 'string' ? 'string' : shape.scalar === 'boolean' ? 'boolean' : shape.scalar === 'datetime' ? 'Date' : shape.scalar === 'file' ? 'Blob' : 'number';
      case 'nullable': {
        const of = this.typeOf(shape.of, side);
        return `${of} | null`;
      }
      case 'list': {
        const of = this.typeOf(shape.of, side);
        // What is sent may be a read-only array; what comes back is the caller's to change.
        const element = /[ |&]/.test(of) ? `(${of})` : of;
        return side === 'input' ? `readonly ${element}[]` : `${element}[]`;
      }
      case 'map':
        return `Record<string, ${this.typeOf(shape.of, side)}>`;
      case 'enum':
      case 'object':
        return this.#named(shape, side);
    }
  }

  /** The declared name of a named shape on `side`, declaring it the first time. */
  #named(shape: NamedShape, side: Side): string {
    const output = this.#outputs.get(shape.source);
    const shared = side === 'output' || output === undefined || sameShape(shape, output);
    const key = `${shared ? 'output' : 'input'}:${this.#keyOf(shape.source)}`;
    const known = this.#declared.get(key);
    if (known !== undefined) return known;
    const base = this.#names.nameOf(shape);
    const name = this.reserve(shared ? base : `${base}Input`);
    this.#declared.set(key, name);
    // The declared side: the output's shape when both sides are the same type.
    const declared = shared && output !== undefined ? output : shape;
    const declaredSide = shared && output !== undefined ? 'output' : side;
    const slot = this.#declarations.length;
    this.#declarations.push('');
    this.#declarations[slot] = this.#declaration(name, declared, declaredSide);
    return name;
  }

  #declaration(name: string, shape: NamedShape, side: Side): string {
    const doc = docComment([shape.description]);
    if (shape.kind === 'enum') return `${doc}export type ${name} = ${shape.values.map(quote).join(' | ') || 'never'};\n`;
    return `${doc}export interface ${name} ${this.objectBody(shape.fields, side)}\n`;
  }

  /** `{ ... }`: one member per field, each with its doc comment; `?` for a field that may be absent. */
  objectBody(fields: readonly FieldShape[], side: Side): string {
    if (fields.length === 0) return 'Record<string, never>';
    const members = fields.map((field) => {
      const type = this.typeOf(field.type, side);
      const def = field.default === undefined ? undefined : `@default ${JSON.stringify(field.default.value)}`;
      const doc = docComment([field.description, def, deprecatedLine(field)], '  ');
      return `${doc}  ${propertyKey(field.name)}${field.optional ? '?' : ''}: ${type}${field.optional ? ' | undefined' : ''};`;
    });
    return `{\n${members.join('\n')}\n}`;
  }

  #keyOf(source: object): number {
    let key = this.#keys.get(source);
    if (key === undefined) this.#keys.set(source, (key = this.#keys.size));
    return key;
  }
}

/** Every named shape under `shape`, by schema. */
function collect(shape: TypeShape, into: Map<object, NamedShape>): void {
  switch (shape.kind) {
    case 'scalar':
      return;
    case 'enum':
      if (!into.has(shape.source)) into.set(shape.source, shape);
      return;
    case 'object':
      if (into.has(shape.source)) return;
      into.set(shape.source, shape);
      for (const field of shape.fields) collect(field.type, into);
      return;
    default:
      collect(shape.of, into);
  }
}

/** Whether two shapes are the same TypeScript type (an input shape and an output shape of one schema). */
function sameShape(a: TypeShape, b: TypeShape): boolean {
  if (a === b) return true;
  if (a.kind !== b.kind || a.description !== b.description) return false;
  switch (a.kind) {
    case 'scalar':
      return b.kind === 'scalar' && a.scalar === b.scalar;
    case 'enum':
      return b.kind === 'enum' && a.source === b.source && a.values.length === b.values.length && a.values.every((value, i) => value === b.values[i]);
    case 'object':
      return (
        b.kind === 'object' &&
        a.source === b.source &&
        a.fields.length === b.fields.length &&
        a.fields.every((field, i) => {
          const other = b.fields[i]!;
          return (
            field.name === other.name &&
            field.optional === other.optional &&
            field.description === other.description &&
            field.deprecated === other.deprecated &&
            field.deprecationReason === other.deprecationReason &&
            // A default is documented on the input side only.
            field.default === undefined &&
            sameShape(field.type, other.type)
          );
        })
      );
    default:
      return b.kind === a.kind && sameShape(a.of, (b as { of: TypeShape }).of);
  }
}

/** Whether an input can be left out: every field of it may be absent. */
export function allOptional(fields: readonly FieldShape[]): boolean {
  return fields.every((field) => field.optional);
}
