import type { FieldShape, ObjectShape, Operation, ScalarKind, TypeShape } from '@fw/core';
import { byName, compareNames, operationError, typeNames, unwrapNullable, upperFirst, type TypeNames } from '@fw/core/plugin';
import { grpcMethodName } from './binding.js';
import { isIdentifier, isTypeName, jsonName, protoFileOf, snakeCase, upperSnakeCase } from './names.js';

/**
 * The proto model of a set of operations: the messages, enums and services their shapes map to,
 * before field numbers are assigned. Every rule that decides what an operation looks like over
 * gRPC is here; an operation that cannot map fails with an error naming it and the path.
 */

/** A field of a generated message. */
export interface ProtoField {
  /** The proto name, lower_snake_case (`price_cents`). */
  readonly name: string;
  /** The schema's key (`priceCents`): what the operation's input and output carry. */
  readonly key: string;
  /** `json_name`, printed when protoc's default (from `name`) is not the key's JSON name (`HTTPStatus`). */
  readonly jsonName: string | undefined;
  /** The type as the .proto writes it: `string`, `Book`, `map<string, int64>`. */
  readonly type: string;
  readonly label: 'optional' | 'repeated' | undefined;
  /** What the field is on the wire (`string`, `int`, `message`, `repeated enum`…); a field whose kind changes gets a new number. */
  readonly kind: string;
  /** The message or enum the field holds (a list's items, a map's values), if any. */
  readonly ref: string | undefined;
  readonly description: string | undefined;
  /** `.meta({ deprecated: true })`: true, or the reason given. */
  readonly deprecated: true | string | undefined;
  /** The one field of a request or response that holds a named input or output: named after its type, it stays the same field when the type is renamed. */
  readonly wrapper?: true;
}

/** A generated message. */
export interface ProtoMessage {
  readonly name: string;
  /** In declaration order. */
  readonly fields: readonly ProtoField[];
  readonly description: string | undefined;
}

/** One value of a generated enum: its proto name and the schema's value. */
export interface ProtoEnumValue {
  readonly proto: string;
  readonly value: string;
}

/** A generated enum; its zero value is `<PREFIX>_UNSPECIFIED`. */
export interface ProtoEnum {
  readonly name: string;
  readonly zero: string;
  readonly values: readonly ProtoEnumValue[];
  readonly description: string | undefined;
}

/**
 * How an operation's result travels in its `<Method>Response`: as the message's own fields
 * (`none`: an object without a name of its own), in one field named after the object's name
 * (`field`), or wrapped in `value` / `items`.
 */
export type ResponseWrap = 'none' | 'field' | 'value' | 'items';

/** An RPC of a generated service, served by one operation. */
export interface ProtoMethod {
  readonly name: string;
  /** The request message: `<Method>Request` (`<Service><Method>Request` when two services of the package have the method). */
  readonly input: string;
  /** The response message: `<Method>Response` (or `<Service><Method>Response`). */
  readonly output: string;
  /** The request field that holds the input when the input schema has a name of its own; undefined when the input's fields are the request's. */
  readonly requestField: string | undefined;
  readonly wrap: ResponseWrap;
  /** The response field that holds the result (`items`, `value`, or the object's field name); undefined for `none`. */
  readonly responseField: string | undefined;
  /** A server-streaming RPC: each event of the operation is one response message. */
  readonly stream: boolean;
  readonly operation: Operation;
  /** An RPC of a former name of the operation (`aliases`): the method it was renamed to, and it is deprecated. */
  readonly renamedTo?: string | undefined;
  /**
   * The enums the messages of a former name's RPC have of their own (those named after the
   * operation: `GetOrderOutputStatus` beside `FetchOrderOutputStatus`), by schema, for its codec;
   * the model's `enums` hold the rest.
   */
  readonly enums?: ReadonlyMap<object, ProtoEnum> | undefined;
}

/** A generated service. */
export interface ProtoService {
  readonly name: string;
  readonly methods: ProtoMethod[];
}

/** One proto package: one generated file. */
export interface ProtoPackage {
  readonly name: string;
  /** `<package directory>/<name>.proto` (`protoFileOf`). */
  readonly file: string;
  readonly services: ProtoService[];
  /** The messages and enums the package's services use, by name. */
  readonly messages: ProtoMessage[];
  readonly enums: ProtoEnum[];
}

/** What the operations map to. */
export interface ProtoModel {
  /** Sorted by package name. */
  readonly packages: readonly ProtoPackage[];
  /** Each enum schema's generated enum, for the codecs. */
  readonly enums: ReadonlyMap<object, ProtoEnum>;
}

const SCALARS: Record<ScalarKind, { type: string; kind: string }> = {
  string: { type: 'string', kind: 'string' },
  boolean: { type: 'bool', kind: 'bool' },
  float: { type: 'double', kind: 'double' },
  // int32 and int64 share the varint encoding: protobuf counts a change between them as compatible.
  int: { type: 'int64', kind: 'int' },
  int32: { type: 'int32', kind: 'int' },
  datetime: { type: 'string', kind: 'string' },
  // An uploaded file is its bytes; the handler gets them as a web File (see the codecs).
  file: { type: 'bytes', kind: 'bytes' },
};

interface TypeEntry {
  readonly source: object | undefined;
  /** Where the name was first given, for error messages. */
  readonly where: string;
  readonly type: ProtoMessage | ProtoEnum;
  /** The types its fields use. */
  readonly refs: Set<string>;
}

/** A field as built, before requests are known: `singular` when it could take `optional` (a scalar or enum, not a list, map or message). */
interface BuiltField extends ProtoField {
  readonly singular: boolean;
}

/** `[deprecated = true]` for a field: true, or the reason given (printed as a comment). */
function deprecationOf(field: FieldShape): true | string | undefined {
  if (typeof field.deprecationReason === 'string' && field.deprecationReason.trim() !== '') return field.deprecationReason;
  return field.deprecated === true ? true : undefined;
}

/**
 * The methods of an operation's former names (`aliases`), each the name with its first letter
 * upper-cased, as the method was named before the rename, with the former name. None when
 * `grpc.method` is given: the method never followed the operation's name, so a rename left it as
 * it was.
 */
function formerMethods(op: Operation): Array<{ method: string; alias: string }> {
  if (op.grpc?.method !== undefined) return [];
  const own = grpcMethodName(op);
  const methods = new Map<string, string>();
  for (const alias of op.aliases ?? []) if (!methods.has(upperFirst(alias)) && upperFirst(alias) !== own) methods.set(upperFirst(alias), alias);
  return [...methods].map(([method, alias]) => ({ method, alias }));
}

/**
 * The paths (`/<package>.<Service>/<Method>`) an operation with a `grpc` binding is served at: its
 * method, then those of its former names; none without a binding.
 */
export function operationMethodPaths(op: Operation): string[] {
  const service = op.grpc?.service;
  if (typeof service !== 'string') return [];
  return [grpcMethodName(op), ...formerMethods(op).map((former) => former.method)].map((method) => `/${service}/${method}`);
}

/**
 * Whether an operation has no side effects: bound as a GraphQL query or a REST GET. Its unary RPC
 * is marked `idempotency_level = NO_SIDE_EFFECTS`, which lets Connect clients call it with GET.
 */
export function hasNoSideEffects(op: Operation): boolean {
  const graphql = (op as { graphql?: { type?: unknown } }).graphql;
  return op.stream !== true && (graphql?.type === 'query' || op.rest?.method === 'GET');
}

/** Whether an operation streams its results (`stream: true`). */
export function isStreaming(op: Operation): boolean {
  return op.stream === true;
}

function fail(op: Operation, path: string, message: string): never {
  throw operationError(op, path, message);
}

/** Splits `grpc.service` into its package and service name, checking both. */
export function splitService(op: Operation): { pkg: string; service: string } {
  const full = op.grpc?.service;
  if (typeof full !== 'string') fail(op, 'grpc.service', 'must be "<package>.<Service>"');
  const dot = full.lastIndexOf('.');
  if (dot <= 0) fail(op, 'grpc.service', `"${full}" must be "<package>.<Service>" (a proto package, then the service name)`);
  const pkg = full.slice(0, dot);
  const service = full.slice(dot + 1);
  if (!pkg.split('.').every(isIdentifier)) fail(op, 'grpc.service', `"${pkg}" is not a valid proto package name (identifiers joined by dots)`);
  if (!isIdentifier(service)) fail(op, 'grpc.service', `"${service}" is not a valid proto service name`);
  return { pkg, service };
}

/**
 * How schemas are named while one RPC's messages are built, and the messages and enums named so:
 * the app's names, or, for the RPC of a former name, the names the operation gave its schemas
 * under that name (`GetOrderOutputAddress`), where they differ.
 */
interface Naming {
  readonly names: TypeNames;
  readonly bySource: Map<object, string>;
  readonly enumsBySource: Map<object, ProtoEnum>;
}

class ModelBuilder {
  readonly types = new Map<string, TypeEntry>();
  readonly app: Naming;
  private naming: Naming;

  /** `names`: every object and enum schema's name, the same in every protocol (core's `typeNames`). */
  constructor(names: TypeNames) {
    this.app = { names, bySource: new Map(), enumsBySource: new Map() };
    this.naming = this.app;
  }

  /** Builds with `naming` (a former name's), and returns what `build` returned. */
  within<T>(naming: Naming, build: () => T): T {
    const previous = this.naming;
    this.naming = naming;
    try {
      return build();
    } finally {
      this.naming = previous;
    }
  }

  /**
   * The name of a schema and the naming it belongs to: a former name's own for a schema it names
   * otherwise than the app (one named after the operation), the app's for every other (a schema
   * with a name of its own, or named after a field of one: one message, whichever RPC reaches it).
   */
  private named(shape: ObjectShape | Extract<TypeShape, { kind: 'enum' }>): { name: string; naming: Naming } {
    const name = this.naming.names.nameOf(shape);
    return { name, naming: this.naming === this.app || name === this.app.names.nameOf(shape) ? this.app : this.naming };
  }

  private claim(op: Operation, path: string, name: string, source: object | undefined, type: ProtoMessage | ProtoEnum, naming: Naming = this.naming): TypeEntry {
    if (!isTypeName(name)) {
      fail(op, path, `"${name}" is not a valid proto type name (letters, digits and _, not starting with a digit, not a proto keyword or scalar type): name the schema with .meta({ id })`);
    }
    const existing = this.types.get(name);
    if (existing !== undefined) {
      fail(op, path, `the type name "${name}" is already taken by another ${existing.source === undefined ? 'generated message' : 'schema'} (${existing.where}): give one of them another name with .meta({ id })`);
    }
    const entry: TypeEntry = { source, where: `operation "${op.name}" at ${path}`, type, refs: new Set() };
    this.types.set(name, entry);
    if (source !== undefined) naming.bySource.set(source, name);
    return entry;
  }

  /** The message of an object shape: one per schema (and per former name naming it otherwise), named as every protocol names it. */
  message(op: Operation, shape: ObjectShape, path: string): string {
    const { name, naming } = this.named(shape);
    const known = naming.bySource.get(shape.source);
    if (known !== undefined) return known;
    return this.build(op, shape, name, path, shape.source, shape.description, naming);
  }

  /**
   * A message with the fields of `shape`, named `name`. `source` is the schema it stands for
   * (undefined for a request or response that takes the fields of an operation's input or output).
   */
  build(op: Operation, shape: ObjectShape, name: string, path: string, source: object | undefined, description: string | undefined, naming: Naming = this.naming): string {
    const fields: ProtoField[] = [];
    const entry = this.claim(op, path, name, source, { name, fields, description }, naming);
    const built = new Map<string, ProtoField>();
    const protoNames = new Map<string, string>();
    const json = new Map<string, string>();
    for (const field of [...shape.fields].sort(byName)) {
      const fieldPath = `${path}.${field.name}`;
      if (!isIdentifier(field.name)) fail(op, fieldPath, `"${field.name}" is not a valid proto field name (letters, digits and _, not starting with a digit)`);
      const proto = snakeCase(field.name);
      const same = protoNames.get(proto);
      if (same !== undefined) fail(op, fieldPath, `the fields "${same}" and "${field.name}" would both be named "${proto}" in proto (lower_snake_case)`);
      protoNames.set(proto, field.name);
      const clash = json.get(jsonName(field.name));
      if (clash !== undefined) fail(op, fieldPath, `the fields "${clash}" and "${field.name}" have the same JSON name "${jsonName(field.name)}", which proto3 forbids`);
      json.set(jsonName(field.name), field.name);
      built.set(field.name, this.field(op, entry, field, fieldPath));
    }
    for (const field of shape.fields) fields.push(built.get(field.name)!);
    return name;
  }

  private field(op: Operation, owner: TypeEntry, field: FieldShape, path: string): BuiltField {
    const { type, nullable } = unwrapNullable(field.type);
    const name = snakeCase(field.name);
    const json = jsonName(field.name);
    const base = {
      name,
      key: field.name,
      jsonName: jsonName(name) === json ? undefined : json,
      // A named message or enum carries its own description; a field repeats only what is said of it.
      description: field.description ?? (type.kind === 'object' || type.kind === 'enum' ? undefined : type.description),
      deprecated: deprecationOf(field),
    };
    // A repeated or map field has no presence in proto3: null, absent and empty are one on the wire.
    if (type.kind === 'list') {
      const item = this.element(op, owner, type.of, `${path}[]`, 'list');
      return { ...base, type: item.type, label: 'repeated', kind: `repeated ${item.kind}`, ref: item.ref, singular: false };
    }
    if (type.kind === 'map') {
      const value = this.element(op, owner, type.of, `${path}{}`, 'map');
      return { ...base, type: `map<string, ${value.type}>`, label: undefined, kind: `map ${value.kind}`, ref: value.ref, singular: false };
    }
    const single = this.single(op, owner, type, path);
    return { ...base, type: single.type, label: field.optional || nullable ? 'optional' : undefined, kind: single.kind, ref: single.ref, singular: single.kind !== 'message' };
  }

  element(op: Operation, owner: TypeEntry | undefined, type: TypeShape, path: string, container: 'list' | 'map'): Single {
    const what = container === 'list' ? 'a list (repeated field)' : 'a map';
    if (type.kind === 'nullable') fail(op, path, `${what} of nullable values cannot map to proto, which cannot hold null there: drop .nullable() on the values`);
    if (type.kind === 'list' || type.kind === 'map') {
      fail(op, path, `${what} of ${type.kind === 'list' ? 'lists' : 'maps'} cannot map to proto: wrap the inner ${type.kind} in an object`);
    }
    return this.single(op, owner, type, path);
  }

  single(op: Operation, owner: TypeEntry | undefined, type: TypeShape, path: string): Single {
    switch (type.kind) {
      case 'scalar': {
        const scalar = SCALARS[type.scalar] as { type: string; kind: string } | undefined;
        if (scalar === undefined) fail(op, path, `the scalar kind "${String(type.scalar)}" has no proto type`);
        return { ...scalar, ref: undefined };
      }
      case 'enum': {
        const name = this.enumeration(op, type, path);
        owner?.refs.add(name);
        return { type: name, kind: 'enum', ref: name };
      }
      case 'object': {
        const name = this.message(op, type, path);
        owner?.refs.add(name);
        return { type: name, kind: 'message', ref: name };
      }
      default:
        return fail(op, path, `a ${type.kind} cannot map to proto here`);
    }
  }

  private enumeration(op: Operation, shape: Extract<TypeShape, { kind: 'enum' }>, path: string): string {
    const { name, naming } = this.named(shape);
    const known = naming.bySource.get(shape.source);
    if (known !== undefined) return known;
    const prefix = upperSnakeCase(name);
    const zero = `${prefix}_UNSPECIFIED`;
    const values: ProtoEnumValue[] = [];
    const generated: ProtoEnum = { name, zero, values, description: shape.description };
    this.claim(op, path, name, shape.source, generated, naming);
    const seen = new Map<string, string>();
    for (const value of shape.values) {
      const stem = typeof value === 'string' ? upperSnakeCase(value) : '';
      if (stem === '') fail(op, path, `the enum value ${JSON.stringify(value)} has no ASCII letters or digits to make a proto enum value name of`);
      const proto = `${prefix}_${stem}`;
      if (proto === zero) fail(op, path, `the enum value "${value}" would be named ${zero}, which is the zero value proto3 requires: rename the value`);
      const other = seen.get(proto);
      if (other !== undefined) fail(op, path, `the enum values "${other}" and "${value}" would both be named ${proto}`);
      seen.set(proto, value);
      values.push({ proto, value });
    }
    naming.enumsBySource.set(shape.source, generated);
    return name;
  }

  /**
   * The request message of an RPC, `name`: the input's fields, or, when the input schema has a name
   * of its own (it may be used elsewhere too), one field of that message named after it.
   */
  request(op: Operation, name: string): string | undefined {
    const input = op.input;
    if (input.name === undefined) {
      this.build(op, input, name, 'input', undefined, input.description);
      return undefined;
    }
    const fields: ProtoField[] = [];
    const entry = this.claim(op, 'input', name, undefined, { name, fields, description: undefined });
    const single = this.single(op, entry, input, 'input');
    const field = snakeCase(single.type);
    fields.push(wrapper(field, single, undefined));
    return field;
  }

  /** The response message of an RPC, `name`: how the operation's output travels in it. */
  response(op: Operation, name: string): { wrap: ResponseWrap; field: string | undefined } {
    const output = op.output;
    if (output.kind === 'object' && output.name === undefined) {
      this.build(op, output, name, 'output', undefined, output.description);
      return { wrap: 'none', field: undefined };
    }
    const fields: ProtoField[] = [];
    const entry = this.claim(op, 'output', name, undefined, { name, fields, description: undefined });
    if (output.kind === 'object') {
      const single = this.single(op, entry, output, 'output');
      const field = snakeCase(single.type);
      fields.push(wrapper(field, single, undefined));
      return { wrap: 'field', field };
    }
    const { type, nullable } = unwrapNullable(output);
    if (type.kind === 'list') {
      const item = this.element(op, entry, type.of, 'output[]', 'list');
      fields.push({ ...wrapper('items', item, 'repeated'), kind: `repeated ${item.kind}` });
      return { wrap: 'items', field: 'items' };
    }
    if (type.kind === 'map') {
      const value = this.element(op, entry, type.of, 'output{}', 'map');
      fields.push({ ...wrapper('value', value, undefined), type: `map<string, ${value.type}>`, kind: `map ${value.kind}` });
      return { wrap: 'value', field: 'value' };
    }
    const single = this.single(op, entry, type, 'output');
    fields.push(wrapper('value', single, nullable ? 'optional' : undefined));
    return { wrap: 'value', field: 'value' };
  }

  /** The names `roots` use, directly or through their fields, in the order found. */
  closure(roots: readonly string[]): string[] {
    const found = new Set<string>();
    const visit = (name: string): void => {
      if (found.has(name)) return;
      found.add(name);
      for (const ref of this.types.get(name)?.refs ?? []) visit(ref);
    };
    roots.forEach(visit);
    return [...found];
  }

  /**
   * Gives every singular scalar and enum field of a message that requests carry explicit presence
   * (`optional`): proto3 cannot tell a field the client left out from its zero value otherwise, and
   * validation could not say "required" as it does on REST.
   */
  presence(inputs: ReadonlySet<string>): void {
    for (const name of inputs) {
      const type = this.types.get(name)?.type;
      if (type === undefined || !('fields' in type)) continue;
      const fields = type.fields as ProtoField[];
      fields.forEach((field, i) => {
        if ((field as BuiltField).singular && field.label === undefined) fields[i] = { ...field, label: 'optional' };
      });
    }
  }
}

interface Single {
  readonly type: string;
  readonly kind: string;
  readonly ref: string | undefined;
}

/** A field a request or response wraps its value in. */
function wrapper(name: string, single: Single, label: ProtoField['label']): BuiltField {
  return { name, key: name, jsonName: undefined, type: single.type, label, kind: single.kind, ref: single.ref, description: undefined, deprecated: undefined, singular: false, wrapper: true };
}

/**
 * Maps the operations that name a gRPC service to proto packages. Throws an error naming the
 * operation and the path for anything proto cannot express, a name clash, or a generated name
 * already defined by `taken` (the fully-qualified names of the user's own .proto).
 */
export function buildModel(operations: readonly Operation[], taken: ReadonlySet<string> = new Set()): ProtoModel {
  // Names come from every operation given, gRPC or not: a schema has one name in every protocol.
  const builder = new ModelBuilder(typeNames(operations));
  // A former name's RPC keeps the messages and enums the operation had under that name: the
  // schemas named after the operation (`<Stem>Input…`, `<Stem>Output…`) are named after the former
  // name for it, as they were before the rename, so that no message or enum value of the old RPC
  // goes (buf's MESSAGE_NO_DELETE, ENUM_VALUE_SAME_NAME).
  const formerNaming = (op: Operation, former: string): Naming => ({
    names: typeNames(operations.map((other) => (other === op ? { ...op, name: former } : other))),
    bySource: new Map(),
    enumsBySource: new Map(),
  });
  const packages = new Map<string, Map<string, ProtoService>>();
  const methodOwners = new Map<string, Operation>();
  // Names are given in the order of operation names, never of registration.
  const served = operations.filter((op) => op.grpc !== undefined).sort(byName);
  const bindings = served.flatMap((op) => {
    const own = { op, ...splitService(op), method: grpcMethodName(op), renamedTo: undefined as string | undefined, former: undefined as string | undefined };
    return [own, ...formerMethods(op).map(({ method, alias }) => ({ ...own, method, renamedTo: own.method, former: alias }))];
  });
  // A method name two services of one package share would give both the same `<Method>Request`: those take the service's name first.
  const services = new Map<string, Set<string>>();
  for (const { pkg, service, method } of bindings) {
    const key = `${pkg}.${method}`;
    services.set(key, (services.get(key) ?? new Set()).add(service));
  }
  const requests = new Set<string>();
  // An operation's own methods first, so that a clash with a former name names the operation that serves the method now.
  const ordered = [...bindings.filter((b) => b.renamedTo === undefined), ...bindings.filter((b) => b.renamedTo !== undefined)];
  for (const { op, pkg, service, method, renamedTo, former } of ordered) {
    if (!isIdentifier(method)) fail(op, renamedTo === undefined ? 'grpc.method' : 'aliases', `"${method}" is not a valid proto method name`);
    const key = `${pkg}.${service}/${method}`;
    const owner = methodOwners.get(key);
    if (owner !== undefined) {
      const alias = renamedTo === undefined ? undefined : op.aliases?.find((name) => upperFirst(name) === method);
      fail(
        op,
        'grpc',
        alias === undefined
          ? `the method ${key} is already served by operation "${owner.name}": give one of them another grpc.method`
          : `the method ${key} is already served by operation "${owner.name}": drop "${alias}" from the aliases of operation "${op.name}" or give one of them another grpc.method`,
      );
    }
    methodOwners.set(key, op);
    if (op.input.kind !== 'object') fail(op, 'input', 'the input must be an object');
    const stem = services.get(`${pkg}.${method}`)!.size > 1 ? `${service}${method}` : method;
    const input = `${stem}Request`;
    const output = `${stem}Response`;
    const naming = former === undefined ? builder.app : formerNaming(op, former);
    const { requestField, response } = builder.within(naming, () => ({ requestField: builder.request(op, input), response: builder.response(op, output) }));
    requests.add(input);
    const byService = packages.get(pkg) ?? new Map<string, ProtoService>();
    packages.set(pkg, byService);
    const entry = byService.get(service) ?? { name: service, methods: [] };
    byService.set(service, entry);
    const enums = naming.enumsBySource.size > 0 && naming !== builder.app ? { enums: naming.enumsBySource } : {};
    entry.methods.push({ name: method, input, output, requestField, wrap: response.wrap, responseField: response.field, stream: isStreaming(op), operation: op, renamedTo, ...enums });
  }
  builder.presence(new Set(builder.closure([...requests])));
  const result: ProtoPackage[] = [];
  for (const [name, byService] of [...packages].sort(([a], [b]) => compareNames(a, b))) {
    const serviceList = [...byService.values()].sort(byName);
    for (const service of serviceList) service.methods.sort(byName);
    const roots = serviceList.flatMap((s) => s.methods.flatMap((m) => [m.input, m.output]));
    const types = builder.closure(roots).map((typeName) => builder.types.get(typeName)!);
    const messages = types.filter((t) => 'fields' in t.type).map((t) => t.type as ProtoMessage);
    const enums = types.filter((t) => 'zero' in t.type).map((t) => t.type as ProtoEnum);
    checkPackageScope(name, serviceList, types, taken);
    result.push({ name, file: protoFileOf(name), services: serviceList, messages: messages.sort(byName), enums: enums.sort(byName) });
  }
  return { packages: result, enums: builder.app.enumsBySource };
}

/** Services, types and enum values share one scope per package (protoc's rule); none may be defined twice or by the user's proto. */
function checkPackageScope(pkg: string, services: readonly ProtoService[], types: readonly TypeEntry[], taken: ReadonlySet<string>): void {
  const symbols = new Map<string, string>();
  const add = (name: string, what: string): void => {
    const fqn = `${pkg}.${name}`;
    const other = symbols.get(name);
    if (other !== undefined) throw new Error(`gRPC operations: in package ${pkg}, ${what} and ${other} are both named "${name}"`);
    if (taken.has(fqn)) throw new Error(`gRPC operations: "${fqn}" (${what}) is generated for operations, but your own .proto already defines it`);
    symbols.set(name, what);
  };
  for (const service of services) add(service.name, `the service of operation "${service.methods[0]!.operation.name}"`);
  for (const entry of types) {
    add(entry.type.name, `the type of ${entry.where}`);
    if ('zero' in entry.type) {
      add(entry.type.zero, `a value of enum ${entry.type.name}`);
      for (const value of entry.type.values) add(value.proto, `a value of enum ${entry.type.name}`);
    }
  }
}
