import protobuf from 'protobufjs';

/**
 * How a change to a set of .proto files breaks existing clients, from worst to mildest:
 * - `wire`: an old client's bytes decode into the wrong field or type, or a number is free to be
 *   given to another field, or a reserved name is released (what buf's WIRE rules refuse);
 * - `json`: the JSON mapping changes — a field or enum value's name now means another thing or
 *   nothing (what WIRE_JSON adds);
 * - `api`: the bytes are read the same, but a call, field, message or enum value is gone or was
 *   renamed, or a type or presence changed: generated code and callers break (what FILE adds).
 */
export type ProtoBreak = 'wire' | 'json' | 'api';

/** One difference between two sets of .proto files. */
export interface ProtoChange {
  /** How it breaks existing clients; undefined when it does not (an addition). */
  readonly breaks: ProtoBreak | undefined;
  /**
   * True for an addition an old client may receive without knowing it (buf, having no such
   * category, calls it compatible): an enum value added to an enum that responses carry (or that
   * no rpc reaches), a field added to a oneof they carry.
   */
  readonly dangerous: boolean;
  /** What changed, fully qualified: `shop.Orders.Place`, `shop.PlaceInput.quantity`. */
  readonly path: string;
  /** One sentence saying what changed. */
  readonly message: string;
}

const SEVERITY: Record<ProtoBreak | 'dangerous' | 'none', number> = { wire: 0, json: 1, api: 2, dangerous: 3, none: 4 };

// Scalar types whose encodings read each other on the wire (buf's FIELD_WIRE_COMPATIBLE_TYPE groups).
const WIRE_GROUP: Record<string, string> = {
  int32: 'varint', uint32: 'varint', int64: 'varint', uint64: 'varint', bool: 'varint',
  sint32: 'zigzag', sint64: 'zigzag',
  fixed32: 'fixed32', sfixed32: 'fixed32',
  fixed64: 'fixed64', sfixed64: 'fixed64',
  string: 'bytes', bytes: 'bytes',
  float: 'float', double: 'double',
};
// Scalar types printed the same in JSON (64-bit integers are strings, 32-bit numbers).
const JSON_GROUP: Record<string, string> = {
  int32: 'int32', sint32: 'int32', sfixed32: 'int32',
  uint32: 'uint32', fixed32: 'uint32',
  int64: 'int64', sint64: 'int64', sfixed64: 'int64',
  uint64: 'uint64', fixed64: 'uint64',
};

/** The files of one side, read with protobufjs. */
interface Side {
  readonly root: protobuf.Root;
  readonly types: ReadonlyMap<string, protobuf.Type>;
  readonly enums: ReadonlyMap<string, protobuf.Enum>;
  readonly services: ReadonlyMap<string, protobuf.Service>;
}

const bare = (name: string): string => name.replace(/^\./, '');
const severity = (change: ProtoChange): number => SEVERITY[change.breaks ?? (change.dangerous ? 'dangerous' : 'none')];

function load(files: ReadonlyMap<string, string>, side: string): Side {
  const root = new protobuf.Root();
  const common = new Set<string>();
  for (const [file, text] of files) {
    let parsed: protobuf.IParserResult;
    try {
      parsed = protobuf.parse(text, root, { keepCase: true });
    } catch (err) {
      throw new Error(`Could not read the ${side} ${file}: ${(err as Error).message}`, { cause: err });
    }
    for (const name of [...(parsed.imports ?? []), ...(parsed.weakImports ?? [])]) {
      const json = name.startsWith('google/protobuf/') ? protobuf.common.get(name) : null;
      if (json !== null && !common.has(name)) {
        common.add(name);
        root.addJSON(json.nested ?? {});
      }
    }
  }
  try {
    root.resolveAll();
  } catch (err) {
    throw new Error(`Could not resolve the ${side} .proto files: ${(err as Error).message}`, { cause: err });
  }
  const types = new Map<string, protobuf.Type>();
  const enums = new Map<string, protobuf.Enum>();
  const services = new Map<string, protobuf.Service>();
  const walk = (namespace: protobuf.NamespaceBase): void => {
    for (const nested of namespace.nestedArray) {
      const name = bare(nested.fullName);
      if (name.startsWith('google.protobuf.')) continue;
      if (nested instanceof protobuf.Type) types.set(name, nested);
      else if (nested instanceof protobuf.Enum) enums.set(name, nested);
      else if (nested instanceof protobuf.Service) services.set(name, nested);
      if (nested instanceof protobuf.Namespace || nested instanceof protobuf.Type) walk(nested);
    }
  };
  walk(root);
  return { root, types, enums, services };
}

/** Whether `number` (or the name) is reserved in `reserved` (protobufjs' `Array<[from, to] | name>`). */
function isReserved(reserved: ReadonlyArray<number[] | string> | undefined, key: number | string): boolean {
  for (const entry of reserved ?? []) {
    if (typeof key === 'string' ? entry === key : Array.isArray(entry) && entry[0]! <= key && key <= entry[1]!) return true;
  }
  return false;
}

/** The reserved numbers (expanded up to a bound) and names of `reserved`. */
function reservedKeys(reserved: ReadonlyArray<number[] | string> | undefined): Array<number | string> {
  const keys: Array<number | string> = [];
  for (const entry of reserved ?? []) {
    if (typeof entry === 'string') keys.push(entry);
    else if (entry[1]! - entry[0]! <= 1000) for (let n = entry[0]!; n <= entry[1]!; n++) keys.push(n);
  }
  return keys;
}

const cardinality = (field: protobuf.Field): string => (field.map ? 'map' : field.repeated ? 'repeated' : 'singular');
const hasPresence = (field: protobuf.Field): boolean => field.options?.proto3_optional === true || field.partOf !== null || field.resolvedType instanceof protobuf.Type;
const typeName = (field: protobuf.Field): string =>
  field.resolvedType === null ? field.type : `${field.resolvedType instanceof protobuf.Type ? 'message' : 'enum'} ${bare(field.resolvedType.fullName)}`;

/** The messages and enums of `side` that responses carry (`outputs`) and that any rpc reaches (`reached`), at any depth. */
function reachable(side: Side): { outputs: Set<protobuf.ReflectionObject>; reached: Set<protobuf.ReflectionObject> } {
  const walk = (type: protobuf.Type, into: Set<protobuf.ReflectionObject>): void => {
    if (into.has(type)) return;
    into.add(type);
    for (const field of type.fieldsArray) {
      if (field.resolvedType instanceof protobuf.Type) walk(field.resolvedType, into);
      else if (field.resolvedType instanceof protobuf.Enum) into.add(field.resolvedType);
    }
  };
  const outputs = new Set<protobuf.ReflectionObject>();
  const reached = new Set<protobuf.ReflectionObject>();
  for (const service of side.services.values()) {
    for (const method of service.methodsArray) {
      walk(method.resolvedResponseType!, outputs);
      walk(method.resolvedResponseType!, reached);
      walk(method.resolvedRequestType!, reached);
    }
  }
  return { outputs, reached };
}

/** The implementation of `findProtoChanges`: the package exports ../lazy.ts's, which loads this on its first call. */
export function findProtoChanges(before: ReadonlyMap<string, string>, after: ReadonlyMap<string, string>): ProtoChange[] {
  const old = load(before, 'previous');
  const now = load(after, 'new');
  const changes: ProtoChange[] = [];
  const add = (breaks: ProtoBreak | undefined, path: string, message: string, dangerous = false): void => void changes.push({ breaks, dangerous, path, message });
  const { outputs, reached } = reachable(now);
  const pairedTypes = new Set<string>();
  const pairedEnums = new Set<string>();
  const renamed = new Set<string>();

  for (const file of before.keys()) if (!after.has(file)) add('api', file, `file ${file} was removed`);
  for (const file of after.keys()) if (!before.has(file)) add(undefined, file, `file ${file} was added`);

  const compareEnums = (a: protobuf.Enum, b: protobuf.Enum, via: string): void => {
    const key = `${a.fullName}>${b.fullName}`;
    if (pairedEnums.has(key)) return;
    pairedEnums.add(key);
    const [aName, bName] = [bare(a.fullName), bare(b.fullName)];
    if (aName !== bName && !renamed.has(key)) {
      renamed.add(key);
      add('api', aName, now.enums.has(aName) ? `${via} now has enum ${bName} instead of ${aName}` : `enum ${aName} was renamed ${bName} (${via}): the values are read the same, generated code changes`);
    }
    const names = (e: protobuf.Enum, n: number): string[] => Object.keys(e.values).filter((name) => e.values[name] === n).sort();
    for (const n of new Set(Object.values(a.values))) {
      const was = names(a, n);
      const is = names(b, n);
      const path = `${bName}.${was.join('/')}`;
      if (is.length === 0) {
        if (!isReserved(b.reserved, n)) add('wire', path, `enum value ${was.join('/')} (${n}) of ${bName} was removed without reserving its number`);
        else if (!was.every((name) => isReserved(b.reserved, name))) add('json', path, `enum value ${was.join('/')} (${n}) of ${bName} was removed without reserving its name`);
        else add('api', path, `enum value ${was.join('/')} (${n}) of ${bName} was removed`);
      } else if (!is.every((name) => was.includes(name))) add('json', path, `enum value ${n} of ${bName} was renamed ${is.join('/')}`);
    }
    for (const [name, n] of Object.entries(b.values)) {
      if (Object.values(a.values).includes(n)) continue;
      if (isReserved(a.reserved, n)) add('wire', `${bName}.${name}`, `enum value ${name} of ${bName} takes the reserved number ${n}`);
      else if (outputs.has(b)) add(undefined, `${bName}.${name}`, `enum value ${name} (${n}) was added to ${bName}, which responses carry`, true);
      // An enum no rpc reaches may be read anywhere; one only requests carry is read by the server alone.
      else add(undefined, `${bName}.${name}`, `enum value ${name} (${n}) was added to ${bName}`, !reached.has(b));
    }
    compareReserved(a.reserved, b.reserved, b, bName);
  };

  // buf's RESERVED_MESSAGE_NO_DELETE and RESERVED_ENUM_NO_DELETE are WIRE rules for names as for
  // numbers, a name that a field or value takes again under a new number included (its old number
  // stays reserved): the reservation is what keeps the name from coming back, so releasing it is a
  // `wire` change by buf's categories, which these levels are.
  const compareReserved = (was: protobuf.Type['reserved'], is: protobuf.Type['reserved'], owner: protobuf.Type | protobuf.Enum, path: string): void => {
    for (const key of reservedKeys(was)) {
      if (isReserved(is, key)) continue;
      if (typeof key === 'number') {
        add('wire', path, `reserved number ${key} of ${path} is no longer reserved`);
        continue;
      }
      const field = owner instanceof protobuf.Type ? owner.fields[key] : undefined;
      const value = owner instanceof protobuf.Enum ? owner.values[key] : undefined;
      const back = field !== undefined ? ` (field ${key} (${field.id}) takes it again)` : value !== undefined ? ` (value ${key} (${value}) takes it again)` : '';
      add('wire', path, `reserved name "${key}" of ${path} is no longer reserved${back}`);
    }
  };

  const compareMessages = (a: protobuf.Type, b: protobuf.Type, via: string): void => {
    const key = `${a.fullName}>${b.fullName}`;
    if (pairedTypes.has(key)) return;
    pairedTypes.add(key);
    const [aName, bName] = [bare(a.fullName), bare(b.fullName)];
    if (aName !== bName && !renamed.has(key)) {
      renamed.add(key);
      add('api', aName, now.types.has(aName) ? `${via} now has message ${bName} instead of ${aName}` : `message ${aName} was renamed ${bName} (${via}): the bytes are read the same, generated code changes`);
    }
    for (const field of a.fieldsArray) {
      const path = `${bName}.${field.name}`;
      const next = b.fieldsById[field.id];
      if (next === undefined) {
        if (!isReserved(b.reserved, field.id)) add('wire', path, `field ${field.name} (${field.id}) of ${bName} was removed without reserving its number: another field can take it`);
        else if (!isReserved(b.reserved, field.name)) {
          const successor = b.fields[field.name];
          add(
            'json',
            path,
            successor === undefined
              ? `field ${field.name} (${field.id}) of ${bName} was removed without reserving its name`
              : `field ${field.name} of ${bName} changed from ${typeName(field)} (${field.id}) to ${typeName(successor)} (${successor.id}): in JSON the name now means the new field`,
          );
        }
        else add('api', path, `field ${field.name} (${field.id}) of ${bName} was removed`);
        continue;
      }
      compareFields(field, next, path);
    }
    for (const field of b.fieldsArray) {
      if (a.fieldsById[field.id] !== undefined) continue;
      const oneof = field.partOf !== null && field.options?.proto3_optional !== true ? field.partOf.name : undefined;
      if (isReserved(a.reserved, field.id)) add('wire', `${bName}.${field.name}`, `field ${field.name} of ${bName} takes the reserved number ${field.id}: old clients' bytes for the removed field decode into it`);
      // A new case of a oneof that was there: an old client reading it finds none of the cases it knows set (a union member added).
      else if (oneof !== undefined && a.oneofs?.[oneof] !== undefined && (outputs.has(b) || !reached.has(b))) {
        add(undefined, `${bName}.${field.name}`, `field ${field.name} (${field.id}) was added to oneof ${oneof} of ${bName}${outputs.has(b) ? ', which responses carry' : ''}`, true);
      } else add(undefined, `${bName}.${field.name}`, `field ${field.name} (${field.id}) was added to ${bName}`);
    }
    compareReserved(a.reserved, b.reserved, b, bName);
  };

  const compareFields = (was: protobuf.Field, is: protobuf.Field, path: string): void => {
    const number = `field ${was.id} of ${path.slice(0, path.lastIndexOf('.'))}`;
    if (cardinality(was) !== cardinality(is)) {
      add('wire', path, `${number} (${was.name}) changed from ${cardinality(was)} to ${cardinality(is)}`);
    } else if (was instanceof protobuf.MapField && is instanceof protobuf.MapField && was.keyType !== is.keyType) {
      add('wire', path, `${number} (${was.name}) changed its map key from ${was.keyType} to ${is.keyType}`);
    }
    const [wasType, isType] = [was.resolvedType, is.resolvedType];
    if (wasType instanceof protobuf.Type && isType instanceof protobuf.Type) compareMessages(wasType, isType, path);
    else if (wasType instanceof protobuf.Enum && isType instanceof protobuf.Enum) compareEnums(wasType, isType, path);
    else if (typeName(was) !== typeName(is)) {
      const group = (field: protobuf.Field, table: Record<string, string>): string | undefined =>
        field.resolvedType instanceof protobuf.Enum ? (table === WIRE_GROUP ? 'varint' : undefined) : field.resolvedType === null ? table[field.type] : undefined;
      const wire = group(was, WIRE_GROUP) !== undefined && group(was, WIRE_GROUP) === group(is, WIRE_GROUP);
      const json = wire && group(was, JSON_GROUP) !== undefined && group(was, JSON_GROUP) === group(is, JSON_GROUP);
      add(wire ? (json ? 'api' : 'json') : 'wire', path, `${number} (${was.name}) changed type from ${typeName(was)} to ${typeName(is)}`);
    }
    if (cardinality(was) === 'singular' && cardinality(is) === 'singular' && hasPresence(was) !== hasPresence(is)) {
      add('api', path, `${number} (${was.name}) ${hasPresence(is) ? 'gained' : 'lost'} explicit presence (optional)`);
    }
    const oneof = (field: protobuf.Field): string => (field.partOf !== null && field.options?.proto3_optional !== true ? `oneof ${field.partOf.name}` : 'no oneof');
    // A real oneof clears its other members when one is read: moving a field in or out changes what a message decodes to.
    if (oneof(was) !== oneof(is)) add('wire', path, `${number} (${was.name}) moved from ${oneof(was)} to ${oneof(is)}`);
    if (was.name !== is.name) add('json', path, `${number} was renamed from ${was.name} to ${is.name}`);
  };

  for (const [name, service] of old.services) {
    const next = now.services.get(name);
    for (const method of service.methodsArray) {
      const path = `${name}.${method.name}`;
      const other = next?.methods[method.name];
      if (other === undefined) {
        add('api', path, `rpc ${path} was removed`);
        continue;
      }
      if (Boolean(method.requestStream) !== Boolean(other.requestStream) || Boolean(method.responseStream) !== Boolean(other.responseStream)) {
        add('api', path, `rpc ${path} changed its streaming`);
      }
      compareMessages(method.resolvedRequestType!, other.resolvedRequestType!, `the request of ${path}`);
      compareMessages(method.resolvedResponseType!, other.resolvedResponseType!, `the response of ${path}`);
    }
  }
  for (const [name, service] of now.services) {
    for (const method of service.methodsArray) if (old.services.get(name)?.methods[method.name] === undefined) add(undefined, `${name}.${method.name}`, `rpc ${name}.${method.name} was added`);
  }
  // What no RPC reaches is compared by name.
  const reachedFrom = (paired: Set<string>, name: string): boolean => [...paired].some((key) => bare(key.slice(0, key.indexOf('>'))) === name);
  const reachedTo = (paired: Set<string>, name: string): boolean => [...paired].some((key) => bare(key.slice(key.indexOf('>') + 1)) === name);
  for (const [name, type] of old.types) {
    if (reachedFrom(pairedTypes, name)) continue;
    const next = now.types.get(name);
    if (next !== undefined) compareMessages(type, next, `message ${name}`);
    else add('api', name, `message ${name} was removed`);
  }
  for (const [name, type] of old.enums) {
    if (reachedFrom(pairedEnums, name)) continue;
    const next = now.enums.get(name);
    if (next !== undefined) compareEnums(type, next, `enum ${name}`);
    else add('api', name, `enum ${name} was removed`);
  }
  for (const name of now.types.keys()) if (!old.types.has(name) && !reachedTo(pairedTypes, name)) add(undefined, name, `message ${name} was added`);
  for (const name of now.enums.keys()) if (!old.enums.has(name) && !reachedTo(pairedEnums, name)) add(undefined, name, `enum ${name} was added`);

  return changes
    .map((change, index) => ({ change, index }))
    .sort((x, y) => severity(x.change) - severity(y.change) || x.index - y.index)
    .map(({ change }) => change);
}
