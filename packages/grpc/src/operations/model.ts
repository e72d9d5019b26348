import type { FieldShape, ObjectShape, Operation, ScalarKind, TypeShape } from '@fw/core';
import { byName, compareNames, operationError, pascalCase, typeStem, unwrapNullable } from '@fw/core/plugin';
import { grpcMethodName } from './binding.js';
import { isIdentifier, isTypeName, jsonName, protoFileOf, upperSnakeCase } from './names.js';

/**
 * The proto model of a set of operations: the messages, enums and services their shapes map to,
 * before field numbers are assigned. Every rule that decides what an operation looks like over
 * gRPC is here; an operation that cannot map fails with an error naming it and the path.
 */

/** A field of a generated message. */
export interface ProtoField {
  readonly name: string;
  /** The type as the .proto writes it: `string`, `Book`, `map<string, int64>`. */
  readonly type: string;
  readonly label: 'optional' | 'repeated' | undefined;
  /** What the field is on the wire (`string`, `int`, `message`, `repeated enum`…); a field whose kind changes gets a new number. */
  readonly kind: string;
  readonly description: string | undefined;
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

/** An RPC of a generated service, served by one operation. */
export interface ProtoMethod {
  readonly name: string;
  readonly input: string;
  readonly output: string;
  /** How the operation's result travels: as the message itself, or wrapped in `value`/`items`. */
  readonly wrap: 'none' | 'value' | 'items';
  readonly operation: Operation;
}

/** A generated service. */
export interface ProtoService {
  readonly name: string;
  readonly methods: ProtoMethod[];
}

/** One proto package: one generated file. */
export interface ProtoPackage {
  readonly name: string;
  /** `<package path>.proto`. */
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
};

interface TypeEntry {
  readonly source: object | undefined;
  /** Where the name was first given, for error messages. */
  readonly where: string;
  readonly type: ProtoMessage | ProtoEnum;
  /** The types its fields use. */
  readonly refs: Set<string>;
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

class ModelBuilder {
  readonly types = new Map<string, TypeEntry>();
  readonly bySource = new Map<object, string>();
  readonly enumsBySource = new Map<object, ProtoEnum>();

  private claim(op: Operation, path: string, name: string, source: object | undefined, type: ProtoMessage | ProtoEnum): TypeEntry {
    if (!isTypeName(name)) {
      fail(op, path, `"${name}" is not a valid proto type name (letters, digits and _, not starting with a digit, not a proto keyword or scalar type): name the schema with .meta({ id })`);
    }
    const existing = this.types.get(name);
    if (existing !== undefined) {
      fail(op, path, `the type name "${name}" is already taken by another schema (${existing.where}): give one of them another name with .meta({ id })`);
    }
    const entry: TypeEntry = { source, where: `operation "${op.name}" at ${path}`, type, refs: new Set() };
    this.types.set(name, entry);
    if (source !== undefined) this.bySource.set(source, name);
    return entry;
  }

  /** The message of an object shape: one per schema, named by the schema or `derived`. */
  message(op: Operation, shape: ObjectShape, derived: string, path: string): string {
    const known = this.bySource.get(shape.source);
    if (known !== undefined) return known;
    const name = shape.name ?? derived;
    const fields: ProtoField[] = [];
    const entry = this.claim(op, path, name, shape.source, { name, fields, description: shape.description });
    // Shared schemas nested below take their name from their first use: visit fields by name, so
    // that reordering keys changes no name.
    const built = new Map<string, ProtoField>();
    const json = new Map<string, string>();
    for (const field of [...shape.fields].sort(byName)) {
      const fieldPath = `${path}.${field.name}`;
      if (!isIdentifier(field.name)) fail(op, fieldPath, `"${field.name}" is not a valid proto field name (letters, digits and _, not starting with a digit)`);
      const clash = json.get(jsonName(field.name));
      if (clash !== undefined) fail(op, fieldPath, `the fields "${clash}" and "${field.name}" have the same JSON name "${jsonName(field.name)}", which proto3 forbids`);
      json.set(jsonName(field.name), field.name);
      built.set(field.name, this.field(op, entry, name, field, fieldPath));
    }
    for (const field of shape.fields) fields.push(built.get(field.name)!);
    return name;
  }

  private field(op: Operation, owner: TypeEntry, parent: string, field: FieldShape, path: string): ProtoField {
    const { type, nullable } = unwrapNullable(field.type);
    const derived = parent + pascalCase(field.name);
    const base = { name: field.name, description: field.description ?? type.description };
    // A repeated or map field has no presence in proto3: null, absent and empty are one on the wire.
    if (type.kind === 'list') {
      const item = this.element(op, owner, type.of, derived, `${path}[]`, 'list');
      return { ...base, type: item.type, label: 'repeated', kind: `repeated ${item.kind}` };
    }
    if (type.kind === 'map') {
      const value = this.element(op, owner, type.of, derived, `${path}{}`, 'map');
      return { ...base, type: `map<string, ${value.type}>`, label: undefined, kind: `map ${value.kind}` };
    }
    const single = this.single(op, owner, type, derived, path);
    return { ...base, type: single.type, label: field.optional || nullable ? 'optional' : undefined, kind: single.kind };
  }

  element(op: Operation, owner: TypeEntry | undefined, type: TypeShape, derived: string, path: string, container: 'list' | 'map'): { type: string; kind: string } {
    const what = container === 'list' ? 'a list (repeated field)' : 'a map';
    if (type.kind === 'nullable') fail(op, path, `${what} of nullable values cannot map to proto, which cannot hold null there: drop .nullable() on the values`);
    if (type.kind === 'list' || type.kind === 'map') {
      fail(op, path, `${what} of ${type.kind === 'list' ? 'lists' : 'maps'} cannot map to proto: wrap the inner ${type.kind} in an object`);
    }
    return this.single(op, owner, type, derived, path);
  }

  single(op: Operation, owner: TypeEntry | undefined, type: TypeShape, derived: string, path: string): { type: string; kind: string } {
    switch (type.kind) {
      case 'scalar': {
        const scalar = SCALARS[type.scalar] as { type: string; kind: string } | undefined;
        if (scalar === undefined) fail(op, path, `the scalar kind "${String(type.scalar)}" has no proto type`);
        return scalar;
      }
      case 'enum': {
        const name = this.enumeration(op, type, derived, path);
        owner?.refs.add(name);
        return { type: name, kind: 'enum' };
      }
      case 'object': {
        const name = this.message(op, type, derived, path);
        owner?.refs.add(name);
        return { type: name, kind: 'message' };
      }
      default:
        return fail(op, path, `a ${type.kind} cannot map to proto here`);
    }
  }

  private enumeration(op: Operation, shape: Extract<TypeShape, { kind: 'enum' }>, derived: string, path: string): string {
    const known = this.bySource.get(shape.source);
    if (known !== undefined) return known;
    const name = shape.name ?? derived;
    const prefix = upperSnakeCase(name);
    const zero = `${prefix}_UNSPECIFIED`;
    const values: ProtoEnumValue[] = [];
    const generated: ProtoEnum = { name, zero, values, description: shape.description };
    this.claim(op, path, name, shape.source, generated);
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
    this.enumsBySource.set(shape.source, generated);
    return name;
  }

  /** The response message of an operation: its object output, or a wrapper around anything else. */
  output(op: Operation): { name: string; wrap: ProtoMethod['wrap'] } {
    const stem = typeStem(op);
    if (op.output.kind === 'object') return { name: this.message(op, op.output, `${stem}Output`, 'output'), wrap: 'none' };
    const name = `${stem}Output`;
    const fields: ProtoField[] = [];
    const entry = this.claim(op, 'output', name, undefined, { name, fields, description: op.output.description });
    const { type, nullable } = unwrapNullable(op.output);
    if (type.kind === 'list') {
      const item = this.element(op, entry, type.of, `${stem}OutputItem`, 'output[]', 'list');
      fields.push({ name: 'items', type: item.type, label: 'repeated', kind: `repeated ${item.kind}`, description: undefined });
      return { name, wrap: 'items' };
    }
    if (type.kind === 'map') {
      const value = this.element(op, entry, type.of, `${stem}OutputValue`, 'output{}', 'map');
      fields.push({ name: 'value', type: `map<string, ${value.type}>`, label: undefined, kind: `map ${value.kind}`, description: undefined });
      return { name, wrap: 'value' };
    }
    const single = this.single(op, entry, type, `${stem}OutputValue`, 'output');
    fields.push({ name: 'value', type: single.type, label: nullable ? 'optional' : undefined, kind: single.kind, description: undefined });
    return { name, wrap: 'value' };
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
}

/**
 * Maps the operations that name a gRPC service to proto packages. Throws an error naming the
 * operation and the path for anything proto cannot express, a name clash, or a generated name
 * already defined by `taken` (the fully-qualified names of the user's own .proto).
 */
export function buildModel(operations: readonly Operation[], taken: ReadonlySet<string> = new Set()): ProtoModel {
  const builder = new ModelBuilder();
  const packages = new Map<string, Map<string, ProtoService>>();
  const methodOwners = new Map<string, Operation>();
  for (const op of operations) {
    if (op.grpc === undefined) continue;
    const { pkg, service } = splitService(op);
    const method = grpcMethodName(op);
    if (!isIdentifier(method)) fail(op, 'grpc.method', `"${method}" is not a valid proto method name`);
    const key = `${pkg}.${service}/${method}`;
    const owner = methodOwners.get(key);
    if (owner !== undefined) fail(op, 'grpc', `the method ${key} is already served by operation "${owner.name}": give one of them another grpc.method`);
    methodOwners.set(key, op);
    if (op.input.kind !== 'object') fail(op, 'input', 'the input must be an object');
    const input = builder.message(op, op.input, `${typeStem(op)}Input`, 'input');
    const output = builder.output(op);
    const services = packages.get(pkg) ?? new Map<string, ProtoService>();
    packages.set(pkg, services);
    const entry = services.get(service) ?? { name: service, methods: [] };
    services.set(service, entry);
    entry.methods.push({ name: method, input, output: output.name, wrap: output.wrap, operation: op });
  }
  const result: ProtoPackage[] = [];
  for (const [name, services] of [...packages].sort(([a], [b]) => compareNames(a, b))) {
    const serviceList = [...services.values()].sort(byName);
    for (const service of serviceList) service.methods.sort(byName);
    const roots = serviceList.flatMap((s) => s.methods.flatMap((m) => [m.input, m.output]));
    const types = builder.closure(roots).map((typeName) => builder.types.get(typeName)!);
    const messages = types.filter((t) => 'fields' in t.type).map((t) => t.type as ProtoMessage);
    const enums = types.filter((t) => 'zero' in t.type).map((t) => t.type as ProtoEnum);
    checkPackageScope(name, serviceList, types, taken);
    result.push({ name, file: protoFileOf(name), services: serviceList, messages: messages.sort(byName), enums: enums.sort(byName) });
  }
  return { packages: result, enums: builder.enumsBySource };
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
