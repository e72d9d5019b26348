import type { PackageDefinition } from '@grpc/proto-loader';

/*
 * protobufjs (behind proto-loader) emits FileDescriptorProtos that strict descriptor pools reject:
 * map entry types are named after the field (`Statuses`) instead of `StatusesEntry`, type names are
 * relative (`HealthCheckResponse`, not `.grpc.health.v1.HealthCheckResponse`), files do not list
 * the files they use, and proto3 `optional` fields lose their `proto3_optional` flag (so clients
 * see a one-field oneof instead of a field with presence). Reflection serves these bytes as they are, so clients such as `buf curl` and
 * Python's descriptor pool fail. This rewrites them at the wire level (no protobuf runtime needed),
 * keeping every field it does not touch byte for byte.
 */

// Field numbers from google/protobuf/descriptor.proto.
const FILE = { name: 1, package: 2, dependency: 3, messageType: 4, enumType: 5, service: 6, extension: 7, syntax: 12 } as const;
const MESSAGE = { name: 1, field: 2, nestedType: 3, enumType: 4, extension: 6, options: 7, oneofDecl: 8 } as const;
const FIELD = { name: 1, extendee: 2, typeName: 6, oneofIndex: 9, proto3Optional: 17 } as const;
const ONEOF_NAME = 1;
const MESSAGE_OPTIONS_MAP_ENTRY = 7;
const SERVICE_METHOD = 2;
const METHOD = { inputType: 2, outputType: 3 } as const;
const ENUM_NAME = 1;

const WIRE_VARINT = 0;
const WIRE_LENGTH_DELIMITED = 2;

interface WireField {
  field: number;
  wire: number;
  /** The payload of a length-delimited field; the raw encoded value of any other. */
  data: Uint8Array;
}

function readVarint(bytes: Uint8Array, start: number): { value: number; end: number } {
  let value = 0;
  let scale = 1;
  let pos = start;
  for (;;) {
    if (pos >= bytes.length) throw new Error('truncated varint');
    const byte = bytes[pos++]!;
    value += (byte & 0x7f) * scale;
    if (byte < 0x80) return { value, end: pos };
    scale *= 128;
    if (pos - start > 10) throw new Error('varint too long');
  }
}

function writeVarint(out: number[], value: number): void {
  let rest = value;
  while (rest >= 0x80) {
    out.push((rest % 128) | 0x80);
    rest = Math.floor(rest / 128);
  }
  out.push(rest);
}

/** One decoded message: its fields in wire order, with submessages decoded on demand and written back on encode. */
class WireMessage {
  private readonly fields: WireField[] = [];
  private readonly decoded = new Map<WireField, WireMessage>();

  constructor(bytes: Uint8Array) {
    let pos = 0;
    while (pos < bytes.length) {
      const tag = readVarint(bytes, pos);
      const field = Math.floor(tag.value / 8);
      const wire = tag.value % 8;
      let start = tag.end;
      let end: number;
      if (wire === WIRE_VARINT) end = readVarint(bytes, start).end;
      else if (wire === 1) end = start + 8;
      else if (wire === 5) end = start + 4;
      else if (wire === WIRE_LENGTH_DELIMITED) {
        const length = readVarint(bytes, start);
        start = length.end;
        end = start + length.value;
      } else throw new Error(`unsupported wire type ${wire}`);
      if (end > bytes.length) throw new Error('truncated field');
      this.fields.push({ field, wire, data: bytes.subarray(start, end) });
      pos = end;
    }
  }

  string(field: number): string | undefined {
    const found = this.fields.find((f) => f.field === field && f.wire === WIRE_LENGTH_DELIMITED);
    return found === undefined ? undefined : Buffer.from(found.data).toString('utf8');
  }

  strings(field: number): string[] {
    return this.fields.filter((f) => f.field === field && f.wire === WIRE_LENGTH_DELIMITED).map((f) => Buffer.from(f.data).toString('utf8'));
  }

  setString(field: number, value: string): void {
    const data = Buffer.from(value, 'utf8');
    const found = this.fields.find((f) => f.field === field && f.wire === WIRE_LENGTH_DELIMITED);
    if (found !== undefined) found.data = data;
    else this.fields.push({ field, wire: WIRE_LENGTH_DELIMITED, data });
  }

  addString(field: number, value: string): void {
    // Keep repeated fields together, after their last element.
    let index = this.fields.length;
    for (let i = this.fields.length - 1; i >= 0; i--) {
      if (this.fields[i]!.field === field) {
        index = i + 1;
        break;
      }
    }
    this.fields.splice(index, 0, { field, wire: WIRE_LENGTH_DELIMITED, data: Buffer.from(value, 'utf8') });
  }

  bool(field: number): boolean {
    const found = this.fields.find((f) => f.field === field && f.wire === WIRE_VARINT);
    return found !== undefined && readVarint(found.data, 0).value !== 0;
  }

  /** A varint field's value; undefined when absent. */
  varint(field: number): number | undefined {
    const found = this.fields.find((f) => f.field === field && f.wire === WIRE_VARINT);
    return found === undefined ? undefined : readVarint(found.data, 0).value;
  }

  setVarint(field: number, value: number): void {
    const data: number[] = [];
    writeVarint(data, value);
    const found = this.fields.find((f) => f.field === field && f.wire === WIRE_VARINT);
    if (found !== undefined) found.data = Uint8Array.from(data);
    else this.fields.push({ field, wire: WIRE_VARINT, data: Uint8Array.from(data) });
  }

  messages(field: number): WireMessage[] {
    const result: WireMessage[] = [];
    for (const f of this.fields) {
      if (f.field !== field || f.wire !== WIRE_LENGTH_DELIMITED) continue;
      let message = this.decoded.get(f);
      if (message === undefined) {
        message = new WireMessage(f.data);
        this.decoded.set(f, message);
      }
      result.push(message);
    }
    return result;
  }

  encode(): Uint8Array {
    const chunks: Uint8Array[] = [];
    for (const f of this.fields) {
      const child = this.decoded.get(f);
      if (child !== undefined) f.data = child.encode();
      const head: number[] = [];
      writeVarint(head, f.field * 8 + f.wire);
      if (f.wire === WIRE_LENGTH_DELIMITED) writeVarint(head, f.data.length);
      chunks.push(Uint8Array.from(head), f.data);
    }
    return Buffer.concat(chunks);
  }
}

/** protoc's name for the entry type of a map field: `main_label` → `MainLabelEntry`. */
export function mapEntryName(fieldName: string): string {
  let name = '';
  let upper = true;
  for (const char of fieldName) {
    if (char === '_') {
      upper = true;
      continue;
    }
    name += upper ? char.toUpperCase() : char;
    upper = false;
  }
  return `${name}Entry`;
}

function join(scope: string, name: string): string {
  return scope === '' ? name : `${scope}.${name}`;
}

/** Resolves a type reference as protoc does: from the innermost scope outwards. Returns the name without leading dot. */
function resolve(reference: string, scope: string, symbols: ReadonlyMap<string, string>): string | undefined {
  if (reference.startsWith('.')) return symbols.has(reference.slice(1)) ? reference.slice(1) : undefined;
  let current = scope;
  for (;;) {
    const candidate = join(current, reference);
    if (symbols.has(candidate)) return candidate;
    if (current === '') return undefined;
    const dot = current.lastIndexOf('.');
    current = dot === -1 ? '' : current.slice(0, dot);
  }
}

interface ParsedFile {
  name: string;
  pkg: string;
  message: WireMessage;
}

/** Fully-qualified name → the file that defines it; map entries found on the way get their protoc names. */
function index(files: readonly ParsedFile[]): { symbols: Map<string, string>; renames: Map<string, string> } {
  const symbols = new Map<string, string>();
  const renames = new Map<string, string>();
  const visitMessage = (message: WireMessage, scope: string, file: string): void => {
    const fqn = join(scope, message.string(MESSAGE.name) ?? '');
    symbols.set(fqn, file);
    for (const nested of message.messages(MESSAGE.nestedType)) visitMessage(nested, fqn, file);
    for (const e of message.messages(MESSAGE.enumType)) symbols.set(join(fqn, e.string(ENUM_NAME) ?? ''), file);
  };
  for (const file of files) {
    for (const message of file.message.messages(FILE.messageType)) visitMessage(message, file.pkg, file.name);
    for (const e of file.message.messages(FILE.enumType)) symbols.set(join(file.pkg, e.string(ENUM_NAME) ?? ''), file.name);
  }
  // A map entry is a nested type marked map_entry; the repeated field that uses it names it.
  const findEntries = (message: WireMessage, scope: string): void => {
    const fqn = join(scope, message.string(MESSAGE.name) ?? '');
    const entries = new Set<string>();
    for (const nested of message.messages(MESSAGE.nestedType)) {
      const options = nested.messages(MESSAGE.options)[0];
      if (options?.bool(MESSAGE_OPTIONS_MAP_ENTRY) === true) entries.add(join(fqn, nested.string(MESSAGE.name) ?? ''));
      findEntries(nested, fqn);
    }
    for (const field of message.messages(MESSAGE.field)) {
      const typeName = field.string(FIELD.typeName);
      const target = typeName === undefined ? undefined : resolve(typeName, fqn, symbols);
      if (target !== undefined && entries.has(target)) renames.set(target, join(fqn, mapEntryName(field.string(FIELD.name) ?? '')));
    }
  };
  for (const file of files) for (const message of file.message.messages(FILE.messageType)) findEntries(message, file.pkg);
  return { symbols, renames };
}

function rewriteFile(file: ParsedFile, symbols: ReadonlyMap<string, string>, renames: ReadonlyMap<string, string>): Uint8Array {
  const dependencies = new Set(file.message.strings(FILE.dependency));
  const qualify = (holder: WireMessage, field: number, scope: string): void => {
    const reference = holder.string(field);
    if (reference === undefined || reference === '') return;
    const target = resolve(reference, scope, symbols);
    if (target === undefined) return;
    const definedIn = symbols.get(target)!;
    if (definedIn !== file.name && !dependencies.has(definedIn)) {
      dependencies.add(definedIn);
      file.message.addString(FILE.dependency, definedIn);
    }
    holder.setString(field, `.${renames.get(target) ?? target}`);
  };
  const rewriteField = (field: WireMessage, scope: string): void => {
    qualify(field, FIELD.typeName, scope);
    qualify(field, FIELD.extendee, scope);
  };
  const proto3 = file.message.string(FILE.syntax) === 'proto3';
  const rewriteMessage = (message: WireMessage, scope: string): void => {
    const fqn = join(scope, message.string(MESSAGE.name) ?? '');
    if (proto3) markProto3Optional(message);
    for (const field of message.messages(MESSAGE.field)) rewriteField(field, fqn);
    for (const field of message.messages(MESSAGE.extension)) rewriteField(field, fqn);
    for (const nested of message.messages(MESSAGE.nestedType)) {
      rewriteMessage(nested, fqn);
      const renamed = renames.get(join(fqn, nested.string(MESSAGE.name) ?? ''));
      if (renamed !== undefined) nested.setString(MESSAGE.name, renamed.slice(renamed.lastIndexOf('.') + 1));
    }
  };
  for (const message of file.message.messages(FILE.messageType)) rewriteMessage(message, file.pkg);
  for (const field of file.message.messages(FILE.extension)) rewriteField(field, file.pkg);
  for (const service of file.message.messages(FILE.service)) {
    for (const method of service.messages(SERVICE_METHOD)) {
      qualify(method, METHOD.inputType, file.pkg);
      qualify(method, METHOD.outputType, file.pkg);
    }
  }
  return file.message.encode();
}

/**
 * A proto3 `optional` field is the only member of a synthetic oneof named `_<field>`; protobufjs
 * declares the oneof but drops the field's `proto3_optional` flag, which this sets again.
 */
function markProto3Optional(message: WireMessage): void {
  const oneofs = message.messages(MESSAGE.oneofDecl).map((oneof) => oneof.string(ONEOF_NAME));
  const fields = message.messages(MESSAGE.field);
  const members = new Map<number, number>();
  for (const field of fields) {
    const index = field.varint(FIELD.oneofIndex);
    if (index !== undefined) members.set(index, (members.get(index) ?? 0) + 1);
  }
  for (const field of fields) {
    const index = field.varint(FIELD.oneofIndex);
    if (index === undefined || members.get(index) !== 1 || oneofs[index] !== `_${field.string(FIELD.name) ?? ''}`) continue;
    if (field.varint(FIELD.proto3Optional) === undefined) field.setVarint(FIELD.proto3Optional, 1);
  }
}

/**
 * Rewrites serialized FileDescriptorProtos (as protobufjs emits them) into valid ones: map entry
 * types named `<Field>Entry` (and marked map_entry), type names fully qualified with a leading dot,
 * each file's `dependency` listing the files whose types it uses, and proto3 `optional` fields flagged. All files are fixed together,
 * since a type may live in another file of the set.
 */
export function fixFileDescriptors(files: readonly Uint8Array[]): Uint8Array[] {
  const parsed = files.map((bytes): ParsedFile => {
    const message = new WireMessage(bytes);
    return { name: message.string(FILE.name) ?? '', pkg: message.string(FILE.package) ?? '', message };
  });
  const { symbols, renames } = index(parsed);
  return parsed.map((file) => rewriteFile(file, symbols, renames));
}

/**
 * A copy of `definition` whose entries carry fixed FileDescriptorProtos (what reflection serves).
 * The definition itself is left as it is: grpc-js serves calls from it.
 */
export function withValidDescriptors(definition: PackageDefinition): PackageDefinition {
  const originals = new Map<string, Uint8Array>();
  for (const entry of Object.values(definition)) {
    const protos = (entry as { fileDescriptorProtos?: unknown }).fileDescriptorProtos;
    if (!Array.isArray(protos)) continue;
    for (const bytes of protos as Uint8Array[]) originals.set(Buffer.from(bytes).toString('base64'), bytes);
  }
  const keys = [...originals.keys()];
  const fixed = fixFileDescriptors([...originals.values()]);
  const byKey = new Map(keys.map((key, i) => [key, Buffer.from(fixed[i]!)]));
  const result: PackageDefinition = {};
  for (const [name, entry] of Object.entries(definition)) {
    const protos = (entry as { fileDescriptorProtos?: unknown }).fileDescriptorProtos;
    result[name] = Array.isArray(protos)
      ? ({ ...entry, fileDescriptorProtos: (protos as Uint8Array[]).map((bytes) => byKey.get(Buffer.from(bytes).toString('base64'))!) } as typeof entry)
      : entry;
  }
  return result;
}
