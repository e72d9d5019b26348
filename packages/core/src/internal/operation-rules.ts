import type { HTTPMethod } from '../types.js';
import type { Operation, TypeShape } from '../operation.js';

/**
 * The rules that turn an operation into names and types, one copy for every generator (each
 * protocol's schema, the REST route, the OpenAPI document). A generated name depends on these and
 * on the definitions alone, so every rule here is a pure function.
 */

/** `getBook` → `GetBook`: the name with its first letter upper-cased (an operation's method name, its type stem). */
export function upperFirst(name: string): string {
  return name.charAt(0).toUpperCase() + name.slice(1);
}

/** `author` → `Author`, `main_label` → `MainLabel`: the part a derived type name takes from a field (or an operation). */
export function pascalCase(name: string): string {
  return name
    .split('_')
    .filter((part) => part.length > 0)
    .map(upperFirst)
    .join('');
}

/** The stem of an operation's derived type names (`<Stem>Input`, `<Stem>Output`): its name in `pascalCase` (`get_book` and `getBook` → `GetBook`). */
export function typeStem(op: Operation): string {
  return pascalCase(op.name);
}

/** The error a generator throws for a definition it cannot serve, naming the operation and the path in it: `Operation "getBook": input.id: …`. */
export function operationError(op: Operation, path: string, message: string): Error {
  return new Error(`Operation "${op.name}": ${path}: ${message}`);
}

/** A shape under its `nullable` wrappers, and whether there was one. */
export function unwrapNullable(shape: TypeShape): { type: TypeShape; nullable: boolean } {
  let type = shape;
  let nullable = false;
  while (type.kind === 'nullable') {
    nullable = true;
    type = type.of;
  }
  return { type, nullable };
}

/**
 * The order generated names are listed in: by UTF-16 code unit, as `<` compares strings, the same
 * on every machine (never the locale's order), so a generated file is the same wherever it is made.
 */
export function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** `compareNames` on the `name` of two entries (types, fields, services, methods). */
export function byName(a: { readonly name: string }, b: { readonly name: string }): number {
  return compareNames(a.name, b.name);
}

const BODY_METHODS: ReadonlySet<string> = new Set<HTTPMethod>(['POST', 'PUT', 'PATCH']);

/** Whether an operation's REST route takes its input from the body (POST, PUT, PATCH), else from the query. */
export function readsBody(method: HTTPMethod): boolean {
  return BODY_METHODS.has(method);
}

/** A shape that becomes a named type in generated schemas: an object or an enum. */
export type NamedShape = Extract<TypeShape, { kind: 'object' | 'enum' }>;

/** The name of every object and enum schema of a set of operations (`typeNames`). */
export interface TypeNames {
  /** The name of an object or enum shape (one name per schema, whichever side it is on); throws for a schema the operations do not use. */
  nameOf(shape: NamedShape): string;
}

/** A place a schema is used: a root of an operation, or a field of an object schema (whatever holds the object). */
interface Place {
  /** Where the place was first reached, for errors: `operation "getBook" at output.author`. */
  readonly where: string;
  /** The name an unnamed schema used here alone takes. */
  readonly derive: () => string;
}

/**
 * The name of every object and enum schema the operations use, for every generator (schema
 * types, messages): the name the schema carries (`.meta({ id: 'Book' })`), else the name
 * derived from the one place it is used: `<Stem>Input` for an operation's input, `<Stem>Output`
 * for its output, `<Stem>OutputItem` for the items of a list output, `<Stem>OutputValue` for the
 * values of a map output, and `<Parent><Field>` for a field of an object (its lists, maps and
 * nullables add nothing), `<Stem>` being `typeStem`. An unnamed schema used in more than one
 * place (two operations, two fields) has no single place to take a name from: an error naming
 * both, which asks for `.meta({ id })`. So is one name given to two different schemas.
 *
 * The result depends on the definitions alone: not on the order of `operations`, nor on the
 * names of fields other than those on the way to a schema.
 */
export function typeNames(operations: readonly Operation[]): TypeNames {
  /** Each schema (a shape's `source`), one of its shapes, and the places it is used, by place key. */
  const schemas = new Map<object, { shape: NamedShape; places: Map<string, Place> }>();
  const seen = new Set<TypeShape>();
  const keys = new Map<object, number>();
  const keyOf = (source: object): number => {
    let key = keys.get(source);
    if (key === undefined) keys.set(source, (key = keys.size));
    return key;
  };

  const use = (shape: NamedShape, key: string, place: Place): void => {
    let schema = schemas.get(shape.source);
    if (schema === undefined) schemas.set(shape.source, (schema = { shape, places: new Map() }));
    if (!schema.places.has(key)) schema.places.set(key, place);
  };
  // `key` and `derive` say the place; lists and maps below a root output move to its item or value place.
  const visit = (op: Operation, shape: TypeShape, path: string, key: string, derive: () => string, root: boolean): void => {
    switch (shape.kind) {
      case 'nullable':
        return visit(op, shape.of, path, key, derive, root);
      case 'list':
        if (root) return visit(op, shape.of, `${path}[]`, `${op.name}\0output[]`, () => `${typeStem(op)}OutputItem`, false);
        return visit(op, shape.of, `${path}[]`, key, derive, false);
      case 'map':
        if (root) return visit(op, shape.of, `${path}{}`, `${op.name}\0output{}`, () => `${typeStem(op)}OutputValue`, false);
        return visit(op, shape.of, `${path}{}`, key, derive, false);
      case 'scalar':
        return;
      case 'enum':
        return use(shape, key, { where: `operation "${op.name}" at ${path}`, derive });
      case 'object': {
        use(shape, key, { where: `operation "${op.name}" at ${path}`, derive });
        if (seen.has(shape)) return;
        seen.add(shape);
        const parent = keyOf(shape.source);
        for (const field of [...shape.fields].sort(byName)) {
          visit(op, field.type, `${path}.${field.name}`, `${parent}.${field.name}`, () => nameOf(shape) + pascalCase(field.name), false);
        }
        return;
      }
    }
  };

  const names = new Map<object, string>();
  const naming = new Set<object>();
  const nameOf = (shape: NamedShape): string => {
    const known = names.get(shape.source);
    if (known !== undefined) return known;
    const schema = schemas.get(shape.source);
    if (schema === undefined) throw new Error('typeNames: the schema is not used by the operations it was given');
    let name = schema.shape.name;
    if (name === undefined) {
      const [first, second] = [...schema.places.values()];
      if (second !== undefined) {
        throw new Error(
          `The same ${shape.kind === 'enum' ? 'enum' : 'object'} schema, with no name, is used at ${first!.where} and at ${second.where}: a schema used in more than one place takes no name from either, so give it one with .meta({ id })`,
        );
      }
      if (naming.has(shape.source)) throw new Error(`The schema at ${first!.where} contains itself: give it a name with .meta({ id })`);
      naming.add(shape.source);
      name = first!.derive();
    }
    names.set(shape.source, name);
    return name;
  };

  for (const op of [...operations].sort(byName)) {
    visit(op, op.input, 'input', `${op.name}\0input`, () => `${typeStem(op)}Input`, false);
    visit(op, op.output, 'output', `${op.name}\0output`, () => `${typeStem(op)}Output`, true);
  }
  const owners = new Map<string, object>();
  for (const [source, schema] of schemas) {
    const name = nameOf(schema.shape);
    const owner = owners.get(name);
    if (owner !== undefined) {
      throw new Error(
        `The type name "${name}" is given to two different schemas, at ${placeOf(schemas.get(owner)!.places)} and at ${placeOf(schema.places)}: give one of them another name with .meta({ id })`,
      );
    }
    owners.set(name, source);
  }
  return {
    nameOf(shape) {
      const name = names.get(shape.source);
      if (name === undefined) throw new Error('typeNames: the schema is not used by the operations it was given');
      return name;
    },
  };
}

function placeOf(places: ReadonlyMap<string, Place>): string {
  return places.values().next().value!.where;
}
