import type { FieldShape, ObjectShape, Operation, ScalarKind, TypeShape } from '@fw/core';
import { byName, operationError, unwrapNullable, type TypeNames } from '@fw/core/plugin';
import {
  DEFAULT_DEPRECATION_REASON,
  GraphQLBoolean,
  GraphQLEnumType,
  GraphQLFloat,
  GraphQLID,
  GraphQLInputObjectType,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLString,
  type GraphQLEnumValueConfigMap,
  type GraphQLFieldConfig,
  type GraphQLFieldConfigMap,
  type GraphQLInputFieldConfig,
  type GraphQLInputFieldConfigMap,
  type GraphQLInputType,
  type GraphQLNamedType,
  type GraphQLOutputType,
  type GraphQLScalarType,
} from 'graphql';
import { GraphQLDateTime } from './datetime.js';
import { inputTypeName, isGraphQLName } from './names.js';

/**
 * The GraphQL types of a set of operations: every rule that decides what an operation looks like
 * over GraphQL is here. A schema object (a shape's `source`) is one named type per direction
 * (output, input); anything GraphQL cannot express fails with an error naming the operation and
 * the path.
 */

// A file (an upload) has no GraphQL type: an operation with a file field is refused on GraphQL.
const SCALARS: Record<Exclude<ScalarKind, 'file'>, GraphQLScalarType> = {
  string: GraphQLString,
  boolean: GraphQLBoolean,
  float: GraphQLFloat,
  // GraphQL's Int is 32 bits: graphql-js refuses a larger result with an error, never truncates it.
  int: GraphQLInt,
  int32: GraphQLInt,
  datetime: GraphQLDateTime,
};

/** The generated root types' names. */
const ROOT_TYPE_NAMES = { query: 'Query', mutation: 'Mutation', subscription: 'Subscription' } as const;

/** Names a schema may not give its types: they are GraphQL's own, or the root types. */
const RESERVED = new Set(['String', 'Int', 'Float', 'Boolean', 'ID', 'Query', 'Mutation', 'Subscription']);

type EnumShape = Extract<TypeShape, { kind: 'enum' }>;
type ScalarShape = Extract<TypeShape, { kind: 'scalar' }>;

/** A named type and where it was first wanted, for error messages. */
interface Claim {
  readonly type: GraphQLNamedType;
  readonly source: object;
  readonly where: string;
}

/** A root field generated for an operation: its own, or one of a former name (`aliases`). */
export interface OperationField {
  /** The field name: the operation's name, or a former one. */
  readonly name: string;
  readonly operation: Operation;
  readonly config: GraphQLFieldConfig<unknown, unknown>;
}

/** What a set of operations maps to. */
export interface OperationTypes {
  /** The root fields, by operation type, in field name order. */
  readonly query: readonly OperationField[];
  readonly mutation: readonly OperationField[];
  readonly subscription: readonly OperationField[];
  /** Every named type generated (objects, input objects, enums, DateTime), by name. */
  readonly types: ReadonlyMap<string, GraphQLNamedType>;
  /** Where each generated name was first wanted (`operation "getBook" at output`). */
  readonly origins: ReadonlyMap<string, string>;
}

class TypeBuilder {
  readonly claims = new Map<string, Claim>();
  readonly bySource = { output: new Map<object, GraphQLNamedType>(), input: new Map<object, GraphQLNamedType>() };

  /**
   * @param names Every schema's name (`typeNames` of all the app's operations).
   * @param outputs The object schemas the operations answer with: used as input too, one is two types.
   */
  constructor(
    readonly names: TypeNames,
    readonly outputs: ReadonlySet<object>,
  ) {}

  private claim(op: Operation, path: string, name: string, source: object, make: () => GraphQLNamedType): GraphQLNamedType {
    if (!isGraphQLName(name)) {
      throw operationError(op, path, `"${name}" is not a valid GraphQL type name (letters, digits and _, not starting with a digit or __): name the schema with .meta({ id })`);
    }
    const where = `operation "${op.name}" at ${path}`;
    if (RESERVED.has(name)) throw operationError(op, path, `the type name "${name}" is GraphQL's own: give the schema another name with .meta({ id })`);
    const existing = this.claims.get(name);
    if (existing !== undefined) {
      if (existing.source === source) {
        throw operationError(op, path, `the schema named "${name}" is used both as input and as output (also at ${existing.where}): GraphQL needs two types, so name it without the "Input" ending`);
      }
      throw new Error(
        `GraphQL operations: the type name "${name}" is wanted by two different schemas, ${existing.where} and ${where}: give one of them another name with .meta({ id })`,
      );
    }
    const type = make();
    this.claims.set(name, { type, source, where });
    return type;
  }

  /** The scalar type of a shape (`ID` for an identifier string); `DateTime` is a generated type like the others (its name may clash). */
  private scalar(op: Operation, shape: ScalarShape, path: string): GraphQLScalarType {
    const kind = shape.scalar;
    if (shape.identifier === true) {
      if (kind !== 'string') throw operationError(op, path, `only a string can be an ID, not a ${kind}`);
      return GraphQLID;
    }
    if (kind === 'file') {
      throw operationError(op, path, 'a file (an upload) cannot be served on GraphQL, which has no upload type: serve the operation on REST (multipart/form-data) and gRPC (bytes), without graphql');
    }
    const scalar = SCALARS[kind] as GraphQLScalarType | undefined;
    if (scalar === undefined) throw operationError(op, path, `the scalar kind "${String(kind)}" has no GraphQL type`);
    if (scalar === GraphQLDateTime && this.claims.get(scalar.name)?.source !== scalar) this.claim(op, path, scalar.name, scalar, () => scalar);
    return scalar;
  }

  /** The output type of a shape, non-null unless the shape is nullable. */
  output(op: Operation, shape: TypeShape, path: string): GraphQLOutputType {
    if (shape.kind === 'nullable') return this.nullableOutput(op, unwrapNullable(shape).type, path);
    return new GraphQLNonNull(this.nullableOutput(op, shape, path));
  }

  private nullableOutput(op: Operation, shape: TypeShape, path: string): Exclude<GraphQLOutputType, GraphQLNonNull<never>> {
    switch (shape.kind) {
      case 'scalar':
        return this.scalar(op, shape, path);
      case 'enum':
        return this.enumeration(op, shape, path);
      case 'object':
        return this.object(op, shape, path);
      case 'list':
        return new GraphQLList(this.output(op, shape.of, `${path}[]`));
      case 'nullable':
        return this.nullableOutput(op, unwrapNullable(shape).type, path);
      case 'map':
        throw mapError(op, path);
    }
  }

  /** The input type of a shape, non-null unless the shape is nullable. */
  input(op: Operation, shape: TypeShape, path: string): GraphQLInputType {
    if (shape.kind === 'nullable') return this.nullableInput(op, unwrapNullable(shape).type, path);
    return new GraphQLNonNull(this.nullableInput(op, shape, path));
  }

  private nullableInput(op: Operation, shape: TypeShape, path: string): Exclude<GraphQLInputType, GraphQLNonNull<never>> {
    switch (shape.kind) {
      case 'scalar':
        return this.scalar(op, shape, path);
      case 'enum':
        return this.enumeration(op, shape, path);
      case 'object':
        return this.inputObject(op, shape, path);
      case 'list':
        return new GraphQLList(this.input(op, shape.of, `${path}[]`));
      case 'nullable':
        return this.nullableInput(op, unwrapNullable(shape).type, path);
      case 'map':
        throw mapError(op, path);
    }
  }

  /** The object type of a shape: one per schema, named by `typeNames`. */
  object(op: Operation, shape: ObjectShape, path: string): GraphQLObjectType {
    const known = this.bySource.output.get(shape.source);
    if (known !== undefined) return known as GraphQLObjectType;
    const name = this.names.nameOf(shape);
    const fields: GraphQLFieldConfigMap<unknown, unknown> = {};
    const type = this.claim(op, path, name, shape.source, () => new GraphQLObjectType({ name, description: shape.description, fields: () => inSchemaOrder(shape, fields) }));
    this.bySource.output.set(shape.source, type);
    for (const [field, fieldPath] of checkedFields(op, shape, path)) {
      const fieldType = this.output(op, field.type, fieldPath);
      fields[field.name] = { type: field.optional ? nullableOf(fieldType) : fieldType, description: describeField(field), deprecationReason: deprecationOf(field) };
    }
    return type as GraphQLObjectType;
  }

  /**
   * The input object type of a shape: one per schema, named by `typeNames`, with `Input` added
   * when the schema is an output type too.
   */
  inputObject(op: Operation, shape: ObjectShape, path: string): GraphQLInputObjectType {
    const known = this.bySource.input.get(shape.source);
    if (known !== undefined) return known as GraphQLInputObjectType;
    const name = this.outputs.has(shape.source) ? inputTypeName(this.names.nameOf(shape)) : this.names.nameOf(shape);
    const fields: GraphQLInputFieldConfigMap = {};
    const type = this.claim(op, path, name, shape.source, () => new GraphQLInputObjectType({ name, description: shape.description, fields: () => inSchemaOrder(shape, fields) }));
    this.bySource.input.set(shape.source, type);
    for (const [field, fieldPath] of checkedFields(op, shape, path)) fields[field.name] = this.inputField(op, field, fieldPath);
    return type as GraphQLInputObjectType;
  }

  private enumeration(op: Operation, shape: EnumShape, path: string): GraphQLEnumType {
    const known = this.bySource.output.get(shape.source);
    if (known !== undefined) return known as GraphQLEnumType;
    const name = this.names.nameOf(shape);
    if (shape.values.length === 0) throw operationError(op, path, 'an enum with no values cannot map to GraphQL');
    const values: GraphQLEnumValueConfigMap = {};
    for (const value of shape.values) {
      if (typeof value !== 'string' || !isGraphQLName(value) || value === 'true' || value === 'false' || value === 'null') {
        throw operationError(
          op,
          path,
          `the enum value ${JSON.stringify(value)} is not a valid GraphQL enum value (letters, digits and _, not starting with a digit; not true, false or null)`,
        );
      }
      values[value] = { value };
    }
    const type = this.claim(op, path, name, shape.source, () => new GraphQLEnumType({ name, description: shape.description, values }));
    // An enum is one type in both directions.
    this.bySource.output.set(shape.source, type);
    this.bySource.input.set(shape.source, type);
    return type as GraphQLEnumType;
  }

  /** An input field or a flat argument: its type (nullable when it may be left out), default, description and deprecation. */
  private inputField(op: Operation, field: FieldShape, path: string): GraphQLInputFieldConfig {
    const type = this.input(op, field.type, path);
    if (field.deprecated === true && !field.optional) {
      throw operationError(op, path, 'a required input field cannot be deprecated (GraphQL forbids it, as clients must send it): make it .optional() or give it a .default() first');
    }
    const config: GraphQLInputFieldConfig = { type: field.optional ? nullableOf(type) : type, description: describeField(field), deprecationReason: deprecationOf(field) };
    if (field.default !== undefined) config.defaultValue = field.default.value;
    return config;
  }

  /**
   * The root field of an operation: flat arguments, one per input field (`book(id: ID!)`), or one
   * `input` argument of the input type (`addBook(input: AddBookInput!)`), as `argumentsOf` says.
   */
  field(op: Operation): GraphQLFieldConfig<unknown, unknown> {
    if (!isGraphQLName(op.name)) throw operationError(op, 'name', `"${op.name}" is not a valid GraphQL field name (letters, digits and _, not starting with a digit or __)`);
    const kind = op.graphql?.type;
    if (kind !== 'query' && kind !== 'mutation' && kind !== 'subscription') {
      throw operationError(op, 'graphql.type', `must be "query", "mutation" or "subscription", got ${JSON.stringify(kind)}`);
    }
    if (op.stream === true && kind !== 'subscription') throw operationError(op, 'graphql.type', `a streaming operation is a field of Subscription: graphql: { type: 'subscription' }, not "${kind}"`);
    if (op.stream !== true && kind === 'subscription') throw operationError(op, 'graphql.type', 'only a streaming operation (stream: true) can be a subscription');
    if (op.input.kind !== 'object') throw operationError(op, 'input', 'the input must be an object');
    const args: GraphQLFieldConfig<unknown, unknown>['args'] = {};
    const deprecationReason = operationDeprecation(op);
    if (argumentsOf(op) === 'flat') {
      for (const [field, path] of checkedFields(op, op.input, 'input', true)) args[field.name] = this.inputField(op, field, path);
      return { type: this.output(op, op.output, 'output'), args: inSchemaOrder(op.input, args), description: op.description, deprecationReason };
    }
    if (op.input.fields.length > 0) {
      const input = this.inputObject(op, op.input, 'input');
      // Optional as a whole when every field is.
      args.input = { type: op.input.fields.every((field) => field.optional) ? input : new GraphQLNonNull(input) };
    }
    return { type: this.output(op, op.output, 'output'), args, description: op.description, deprecationReason };
  }
}

/**
 * An object's fields with their paths, checked, in name order, so that an error names the same
 * path whatever the order of keys. The type lists its fields in the schema's order (`inSchemaOrder`).
 */
function checkedFields(op: Operation, shape: ObjectShape, path: string, mayBeEmpty = false): Array<[FieldShape, string]> {
  if (shape.fields.length === 0 && !mayBeEmpty) {
    throw operationError(op, path, 'an object with no fields cannot map to GraphQL, whose object types need at least one field');
  }
  const list: Array<[FieldShape, string]> = [];
  for (const field of shape.fields) {
    const fieldPath = `${path}.${field.name}`;
    if (!isGraphQLName(field.name)) {
      throw operationError(op, fieldPath, `"${field.name}" is not a valid GraphQL field name (letters, digits and _, not starting with a digit or __)`);
    }
    list.push([field, fieldPath]);
  }
  return list.sort(([a], [b]) => byName(a, b));
}

/** The fields built (in name order) listed in the schema's order. */
function inSchemaOrder<T>(shape: ObjectShape, fields: Record<string, T>): Record<string, T> {
  return Object.fromEntries(shape.fields.map((field) => [field.name, fields[field.name]!]));
}

/**
 * How an operation takes its input: `flat` (an argument per input field) for queries, one `input`
 * argument for mutations, unless the operation says otherwise (`graphql: { args }`).
 */
export function argumentsOf(op: Operation): 'flat' | 'input' {
  const args = op.graphql?.args;
  if (args === undefined) return op.graphql?.type === 'mutation' ? 'input' : 'flat';
  if (args !== 'flat' && args !== 'input') throw operationError(op, 'graphql.args', `must be "flat" or "input", got ${JSON.stringify(args)}`);
  return args;
}

/** The reason a deprecated operation's field gives (graphql's default when the operation gives none), or undefined. */
function operationDeprecation(op: Operation): string | undefined {
  if (typeof op.deprecationReason === 'string' && op.deprecationReason.trim() !== '') return op.deprecationReason;
  return op.deprecated === true ? DEFAULT_DEPRECATION_REASON : undefined;
}

/** The reason a deprecated field gives (graphql's default when the schema gives none), or undefined. */
function deprecationOf(field: FieldShape): string | undefined {
  return field.deprecated === true ? (field.deprecationReason ?? DEFAULT_DEPRECATION_REASON) : undefined;
}

function nullableOf<T extends GraphQLOutputType | GraphQLInputType>(type: T): T {
  return (type instanceof GraphQLNonNull ? type.ofType : type) as T;
}


function mapError(op: Operation, path: string): Error {
  return operationError(op, path, 'a map (z.record) cannot map to GraphQL, which has no map type: use a list of { key, value } objects');
}

/** A field's description, else that of its type when the type has no name to carry one (a scalar, a list). */
function describeField(field: FieldShape): string | undefined {
  if (field.description !== undefined) return field.description;
  let type: TypeShape = field.type;
  for (;;) {
    if (type.kind === 'object' || type.kind === 'enum') return undefined;
    if (type.description !== undefined) return type.description;
    if (type.kind === 'scalar') return undefined;
    type = type.of;
  }
}

/**
 * Maps the operations that name GraphQL to root fields and types, each object and enum named by
 * `names` (`typeNames` of all the app's operations, so that a schema has one name in every
 * protocol). Operations are visited in name order, so an error names the same operation and path
 * whatever order they were registered in.
 */
export function buildOperationTypes(operations: readonly Operation[], names: TypeNames): OperationTypes {
  const graphql = [...operations].filter((op) => op.graphql !== undefined).sort(byName);
  const builder = new TypeBuilder(names, outputObjects(graphql));
  const roots: Record<'query' | 'mutation' | 'subscription', OperationField[]> = { query: [], mutation: [], subscription: [] };
  for (const op of graphql) {
    const config = builder.field(op);
    const root = roots[op.graphql!.type];
    root.push({ name: op.name, operation: op, config });
    // A former name is the same field under that name, deprecated: its clients keep working and are told the new name.
    for (const alias of op.aliases ?? []) root.push({ name: alias, operation: op, config: { ...config, deprecationReason: `renamed to ${op.name}` } });
  }
  for (const [kind, fields] of Object.entries(roots)) {
    fields.sort(byName);
    fields.forEach((field, i) => {
      const previous = fields[i - 1];
      if (previous?.name !== field.name) return;
      const [served, former] = previous.name === previous.operation.name ? [previous, field] : [field, previous];
      const what = served.name === served.operation.name ? `served by operation "${served.operation.name}"` : `a former name of operation "${served.operation.name}"`;
      throw new Error(
        `GraphQL operations: the field ${ROOT_TYPE_NAMES[kind as keyof typeof roots]}.${field.name} is ${what} and is also a former name of operation "${former.operation.name}": drop the alias or rename one of them`,
      );
    });
  }
  const types = new Map<string, GraphQLNamedType>();
  const origins = new Map<string, string>();
  for (const [name, claim] of builder.claims) {
    types.set(name, claim.type);
    origins.set(name, claim.where);
  }
  return { ...roots, types, origins };
}

/** The object schemas the operations' outputs hold, at any depth. */
function outputObjects(operations: readonly Operation[]): Set<object> {
  const found = new Set<object>();
  const visit = (shape: TypeShape): void => {
    if (shape.kind === 'object') {
      if (found.has(shape.source)) return;
      found.add(shape.source);
      for (const field of shape.fields) visit(field.type);
    } else if (shape.kind === 'list' || shape.kind === 'nullable' || shape.kind === 'map') visit(shape.of);
  };
  for (const op of operations) visit(op.output);
  return found;
}
