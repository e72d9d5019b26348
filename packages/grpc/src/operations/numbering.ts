import protobuf from 'protobufjs';
import type { ProtoEnum, ProtoField, ProtoMessage, ProtoPackage } from './model.js';
import { jsonName } from './names.js';

/**
 * Field and enum value numbers that never change meaning. A previous generation of the file is
 * read back with protobufjs. A message takes the numbers of the message that was at the same
 * place before — the request or response of the same RPC, or the type of the same field of the
 * message that holds it — whatever either is named, since the wire knows places and numbers, not
 * names; a message at no place known before takes the numbers of the message of its name. Then,
 * within it: every field keeps its number (found by name, or by JSON name, so `priceCents` →
 * `price_cents` keeps it); a new field takes the next number after everything used or reserved; a
 * removed field's number and name become `reserved` (the name with its kind, which a field of
 * that name may not come back with another kind); a field whose wire kind changed (a string that
 * became a message) is treated as removed and added. The same rules number enum values (their zero
 * value stays 0; a renamed enum's values are found by their name after the enum's prefix).
 */

/** An inclusive range of numbers, as `reserved 5 to 7;` writes it. */
export type NumberRange = readonly [number, number];

/** A field (or enum value) of a previous file. */
export interface PreviousEntry {
  readonly id: number;
  /** The wire kind (`string`, `repeated message`…); undefined for enum values. */
  readonly kind: string | undefined;
  /** The message or enum it holds, if any. */
  readonly ref: string | undefined;
}

/** What a previous file says about one message or enum. */
export interface PreviousNumbers {
  /** Field (or enum value) name → its number, kind and type. */
  readonly entries: ReadonlyMap<string, PreviousEntry>;
  readonly reservedNumbers: readonly NumberRange[];
  readonly reservedNames: ReadonlySet<string>;
  /** The kind each reserved field name had, as the file records it (`reserved "note"; // was string`). */
  readonly reservedKinds: ReadonlyMap<string, string>;
  /** An enum's value prefix (`GENRE_`), read from its zero value. */
  readonly prefix?: string | undefined;
}

/** The messages, enums and RPCs of a previous file. */
export interface PreviousFile {
  readonly messages: ReadonlyMap<string, PreviousNumbers>;
  readonly enums: ReadonlyMap<string, PreviousNumbers>;
  /** `<Service>/<Method>` → the names of its request and response messages. */
  readonly rpcs: ReadonlyMap<string, { readonly input: string; readonly output: string }>;
}

/** A field with its number. */
export interface NumberedField extends ProtoField {
  readonly number: number;
}

/** A message ready to print: fields by number, and what is reserved. */
export interface NumberedMessage {
  readonly name: string;
  readonly description: string | undefined;
  readonly fields: readonly NumberedField[];
  readonly reservedNumbers: readonly NumberRange[];
  /** Reserved names, sorted, each with the kind it had when known. */
  readonly reservedNames: ReadonlyArray<{ readonly name: string; readonly kind: string | undefined }>;
}

/** An enum ready to print: values by number (the zero value first), and what is reserved. */
export interface NumberedEnum {
  readonly name: string;
  readonly description: string | undefined;
  readonly values: ReadonlyArray<{ readonly name: string; readonly number: number }>;
  readonly reservedNumbers: readonly NumberRange[];
  readonly reservedNames: readonly string[];
}

/** The largest field number protobuf allows. */
const MAX_FIELD_NUMBER = 536_870_911;
/** Numbers protobuf keeps for its own implementation; never assigned. */
const IMPLEMENTATION_RANGE: NumberRange = [19_000, 19_999];
const MAX_ENUM_NUMBER = 2_147_483_647;

const INTEGER_TYPES = new Set(['int32', 'int64', 'uint32', 'uint64', 'sint32', 'sint64']);

const EMPTY: PreviousNumbers = { entries: new Map(), reservedNumbers: [], reservedNames: new Set(), reservedKinds: new Map() };

function kindOf(field: protobuf.Field): string {
  const resolved = field.resolvedType;
  const base = resolved instanceof protobuf.Type ? 'message' : resolved instanceof protobuf.Enum ? 'enum' : INTEGER_TYPES.has(field.type) ? 'int' : field.type;
  if (field instanceof protobuf.MapField) return `map ${base}`;
  return field.repeated ? `repeated ${base}` : base;
}

function readReserved(reserved: ReadonlyArray<number[] | string> | undefined): { numbers: NumberRange[]; names: Set<string> } {
  const numbers: NumberRange[] = [];
  const names = new Set<string>();
  for (const entry of reserved ?? []) {
    if (typeof entry === 'string') names.add(entry);
    else if (Array.isArray(entry) && entry.length === 2) numbers.push([entry[0]!, entry[1]!]);
  }
  return { numbers, names };
}

/** `reserved "note"; // was string` lines of the file, by message: what protobufjs does not keep. */
function readReservedKinds(text: string): Map<string, Map<string, string>> {
  const kinds = new Map<string, Map<string, string>>();
  let current: Map<string, string> | undefined;
  for (const line of text.split(/\r?\n/)) {
    const open = /^message (\w+) \{/.exec(line);
    if (open !== null) kinds.set(open[1]!, (current = new Map<string, string>()));
    else if (line.startsWith('}')) current = undefined;
    else {
      const reserved = /^\s*reserved "(\w+)";\s*\/\/ was (.+?)\s*$/.exec(line);
      if (reserved !== null && current !== undefined) current.set(reserved[1]!, reserved[2]!);
    }
  }
  return kinds;
}

/** Reads the numbers of a previously generated file; an error names the file. */
export function readPrevious(file: string, text: string): PreviousFile {
  const messages = new Map<string, PreviousNumbers>();
  const enums = new Map<string, PreviousNumbers>();
  const rpcs = new Map<string, { input: string; output: string }>();
  try {
    const parsed = protobuf.parse(text, new protobuf.Root(), { keepCase: true });
    parsed.root.resolveAll();
    const kinds = readReservedKinds(text);
    const scope = parsed.package === undefined ? parsed.root : parsed.root.lookup(parsed.package);
    for (const nested of scope instanceof protobuf.Namespace ? scope.nestedArray : []) {
      if (nested instanceof protobuf.Type) {
        const { numbers, names } = readReserved(nested.reserved);
        const entries = new Map(nested.fieldsArray.map((field) => [field.name, { id: field.id, kind: kindOf(field), ref: field.resolvedType?.name }] as const));
        messages.set(nested.name, { entries, reservedNumbers: numbers, reservedNames: names, reservedKinds: kinds.get(nested.name) ?? new Map<string, string>() });
      } else if (nested instanceof protobuf.Enum) {
        const { numbers, names } = readReserved(nested.reserved);
        const entries = new Map(Object.entries(nested.values).map(([name, id]) => [name, { id, kind: undefined, ref: undefined }] as const));
        const zero = Object.entries(nested.values).find(([name, id]) => id === 0 && name.endsWith('_UNSPECIFIED'))?.[0];
        const prefix = zero?.slice(0, -'UNSPECIFIED'.length);
        enums.set(nested.name, { entries, reservedNumbers: numbers, reservedNames: names, reservedKinds: new Map(), prefix });
      } else if (nested instanceof protobuf.Service) {
        for (const method of nested.methodsArray) {
          rpcs.set(`${nested.name}/${method.name}`, { input: method.resolvedRequestType?.name ?? method.requestType, output: method.resolvedResponseType?.name ?? method.responseType });
        }
      }
    }
  } catch (err) {
    throw new Error(`Could not read the field numbers of the previous ${file}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
  return { messages, enums, rpcs };
}

/** Sorted, with overlapping and adjacent ranges merged. */
function mergeRanges(ranges: readonly NumberRange[]): NumberRange[] {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  const merged: Array<[number, number]> = [];
  for (const [start, end] of sorted) {
    const last = merged[merged.length - 1];
    if (last !== undefined && start <= last[1] + 1) last[1] = Math.max(last[1], end);
    else merged.push([start, end]);
  }
  return merged;
}

/**
 * One set of numbers for a message that stands where several did (a schema now used in places
 * that had different messages): a name keeps its number only where every one of them agrees on
 * it (number and kind) and none uses that number for another name; every other number is reserved.
 */
export function mergePrevious(sources: readonly PreviousNumbers[]): PreviousNumbers {
  if (sources.length <= 1) return sources[0] ?? EMPTY;
  const reservedBefore = sources.flatMap((s) => s.reservedNumbers);
  const owners = new Map<number, Set<string>>();
  for (const source of sources) for (const [name, entry] of source.entries) owners.set(entry.id, (owners.get(entry.id) ?? new Set()).add(name));
  const entries = new Map<string, PreviousEntry>();
  const conflicting = new Set<string>();
  for (const source of sources) {
    for (const [name, entry] of source.entries) {
      if (conflicting.has(name)) continue;
      const known = entries.get(name);
      const shared = owners.get(entry.id)!.size > 1 || reservedBefore.some(([start, end]) => entry.id >= start && entry.id <= end);
      if (shared || (known !== undefined && (known.id !== entry.id || known.kind !== entry.kind))) {
        conflicting.add(name);
        entries.delete(name);
      } else entries.set(name, entry);
    }
  }
  const reservedNumbers: NumberRange[] = [...reservedBefore];
  for (const source of sources) for (const [name, entry] of source.entries) if (conflicting.has(name)) reservedNumbers.push([entry.id, entry.id]);
  return {
    entries,
    reservedNumbers,
    reservedNames: new Set(sources.flatMap((s) => [...s.reservedNames])),
    reservedKinds: new Map(sources.flatMap((s) => [...s.reservedKinds])),
    prefix: sources[0]!.prefix,
  };
}

/** Hands out numbers after everything used or reserved, skipping reserved ranges. */
class NumberSource {
  private next: number;
  private readonly taken = new Set<number>();
  private readonly blocked: readonly NumberRange[];

  constructor(
    used: Iterable<number>,
    reserved: readonly NumberRange[],
    private readonly max: number,
    private readonly what: string,
    skipped: readonly NumberRange[] = [],
  ) {
    let high = 0;
    for (const n of used) {
      high = Math.max(high, n);
      this.taken.add(n);
    }
    // A range reserved up to `max` would leave nothing after it: it only blocks, it does not raise the start.
    for (const [, end] of reserved) if (end < max) high = Math.max(high, end);
    this.next = high + 1;
    this.blocked = [...reserved, ...skipped];
  }

  take(): number {
    for (;;) {
      const n = this.next++;
      if (n > this.max) throw new Error(`${this.what} has no numbers left to give a new entry`);
      if (this.taken.has(n) || this.blocked.some(([start, end]) => n >= start && n <= end)) continue;
      this.taken.add(n);
      return n;
    }
  }
}

/**
 * The field of `entries` a current field continues: the same name, else the same JSON name
 * (`priceCents` before, `price_cents` now); the field a request or response wraps its named input
 * or output in continues the one field of the message before, if it had one field of that kind.
 */
function previousName(field: ProtoField, entries: ReadonlyMap<string, PreviousEntry>, byJson: ReadonlyMap<string, string>): string | undefined {
  if (entries.has(field.name)) return field.name;
  const json = byJson.get(field.jsonName ?? jsonName(field.name));
  if (json !== undefined || field.wrapper !== true || entries.size !== 1) return json;
  const [name, entry] = [...entries][0]!;
  return entry.kind === field.kind ? name : undefined;
}

/** The reserved name a current field would bring back, by name or JSON name. */
function reservedName(field: ProtoField, names: ReadonlySet<string>): string | undefined {
  if (names.has(field.name)) return field.name;
  const json = field.jsonName ?? jsonName(field.name);
  return [...names].find((name) => jsonName(name) === json);
}

/**
 * Numbers a message's fields: kept, new, or reserved once removed. `where` names the file in
 * errors. Throws when a field comes back under a reserved name with another kind than it had.
 */
export function numberMessage(message: ProtoMessage, previous: PreviousNumbers | undefined, where = 'the previous file'): NumberedMessage {
  const { entries, reservedKinds } = previous ?? EMPTY;
  const reserved: NumberRange[] = [...(previous?.reservedNumbers ?? [])];
  const reservedNames = new Set(previous?.reservedNames ?? []);
  const kinds = new Map(reservedKinds);
  const byJson = new Map([...entries.keys()].map((name) => [jsonName(name), name] as const));
  const kept = new Map<string, number>();
  const continued = new Set<string>();
  for (const field of message.fields) {
    const back = reservedName(field, reservedNames);
    if (back !== undefined) {
      const before = kinds.get(back);
      if (before !== undefined && before !== field.kind) {
        throw new Error(
          `gRPC operations: message ${message.name}, field "${field.name}": the name was removed when it was ${article(before)} field and is reserved in ${where}; ` +
            `it cannot come back as ${article(field.kind)} field, which clients that still send or read the old "${back}" would misread (JSON carries names). ` +
            `Give the field another name, or, once no client uses the old field, delete \`reserved "${back}";\` from ${where}.`,
        );
      }
      reservedNames.delete(back);
      kinds.delete(back);
      continue;
    }
    const name = previousName(field, entries, byJson);
    if (name === undefined) continue;
    continued.add(name);
    const before = entries.get(name)!;
    if (before.kind === field.kind) kept.set(field.name, before.id);
    // Another wire kind under the same name: the old number would be misread, so it is retired.
    else reserved.push([before.id, before.id]);
  }
  for (const [name, before] of entries) {
    if (continued.has(name)) continue;
    reserved.push([before.id, before.id]);
    reservedNames.add(name);
    if (before.kind !== undefined) kinds.set(name, before.kind);
  }
  const source = new NumberSource(
    [...entries.values()].map((e) => e.id),
    reserved,
    MAX_FIELD_NUMBER,
    `Message ${message.name}`,
    [IMPLEMENTATION_RANGE],
  );
  const fields = message.fields.map((field): NumberedField => ({ ...field, number: kept.get(field.name) ?? source.take() }));
  return {
    name: message.name,
    description: message.description,
    fields: fields.sort((a, b) => a.number - b.number),
    reservedNumbers: mergeRanges(reserved),
    reservedNames: [...reservedNames].sort().map((name) => ({ name, kind: kinds.get(name) })),
  };
}

function article(kind: string): string {
  return `${/^[aeiou]/.test(kind) ? 'an' : 'a'} ${kind}`;
}

/** Numbers an enum's values: the zero value is 0, the others kept, new, or reserved once removed. */
export function numberEnum(generated: ProtoEnum, previous: PreviousNumbers | undefined): NumberedEnum {
  const entries = previous?.entries ?? new Map<string, PreviousEntry>();
  const reserved: NumberRange[] = [...(previous?.reservedNumbers ?? [])];
  const reservedNames = new Set(previous?.reservedNames ?? []);
  const prefix = generated.zero.slice(0, -'UNSPECIFIED'.length);
  // A value is found by its name, or by its name after the enum's prefix when the enum was renamed (`GENRE_FICTION` → `BOOK_GENRE_FICTION`).
  const before = new Map<string, { name: string; id: number }>();
  for (const [name, entry] of entries) {
    const stem = previous?.prefix !== undefined && name.startsWith(previous.prefix) ? name.slice(previous.prefix.length) : undefined;
    if (stem !== undefined && !before.has(prefix + stem)) before.set(prefix + stem, { name, id: entry.id });
  }
  for (const [name, entry] of entries) before.set(name, { name, id: entry.id });
  const current = new Set([generated.zero, ...generated.values.map((v) => v.proto)]);
  const continued = new Set([...current].map((name) => before.get(name)?.name).filter((name) => name !== undefined));
  for (const [name, entry] of entries) {
    if (continued.has(name) || entry.id === 0) continue;
    reserved.push([entry.id, entry.id]);
    reservedNames.add(name);
  }
  for (const name of current) reservedNames.delete(name);
  const source = new NumberSource([0, ...[...entries.values()].map((e) => e.id)], reserved, MAX_ENUM_NUMBER, `Enum ${generated.name}`);
  const values = generated.values.map(({ proto }) => {
    const id = before.get(proto)?.id;
    return { name: proto, number: id !== undefined && id > 0 ? id : source.take() };
  });
  return {
    name: generated.name,
    description: generated.description,
    values: [{ name: generated.zero, number: 0 }, ...values.sort((a, b) => a.number - b.number)],
    reservedNumbers: mergeRanges(reserved),
    reservedNames: [...reservedNames].sort(),
  };
}

/** The numbered messages and enums of a package. */
export interface NumberedPackage {
  readonly messages: readonly NumberedMessage[];
  readonly enums: readonly NumberedEnum[];
}

/**
 * Numbers a package from its previous file: finds, for every message and enum, the ones that
 * stood at its places before (see above), then numbers each from them.
 */
export function numberPackage(pkg: ProtoPackage, previous: PreviousFile | undefined, where: string): NumberedPackage {
  if (previous === undefined) {
    return { messages: pkg.messages.map((m) => numberMessage(m, undefined, where)), enums: pkg.enums.map((e) => numberEnum(e, undefined)) };
  }
  const messages = new Map(pkg.messages.map((m) => [m.name, m]));
  const sources = new Map<string, Set<string>>();
  const queue: Array<[string, string]> = [];
  const link = (current: string, before: string): void => {
    const known = sources.get(current) ?? new Set<string>();
    sources.set(current, known);
    if (known.has(before)) return;
    known.add(before);
    queue.push([current, before]);
  };
  for (const service of pkg.services) {
    for (const method of service.methods) {
      const rpc = previous.rpcs.get(`${service.name}/${method.name}`);
      if (rpc === undefined) continue;
      link(method.input, rpc.input);
      link(method.output, rpc.output);
    }
  }
  // A field that continues a field of the message before holds what that field held.
  while (queue.length > 0) {
    const [current, before] = queue.shift()!;
    const message = messages.get(current);
    const old = previous.messages.get(before);
    if (message === undefined || old === undefined) continue;
    const byJson = new Map([...old.entries.keys()].map((name) => [jsonName(name), name] as const));
    for (const field of message.fields) {
      if (field.ref === undefined) continue;
      const name = previousName(field, old.entries, byJson);
      const entry = name === undefined ? undefined : old.entries.get(name);
      if (entry?.ref !== undefined && entry.kind === field.kind) link(field.ref, entry.ref);
    }
  }
  const from = (name: string, table: ReadonlyMap<string, PreviousNumbers>): PreviousNumbers | undefined => {
    const found = [...(sources.get(name) ?? [])].map((before) => table.get(before)).filter((p) => p !== undefined);
    if (found.length > 0) return mergePrevious(found);
    return table.get(name);
  };
  return {
    messages: pkg.messages.map((m) => numberMessage(m, from(m.name, previous.messages), where)),
    enums: pkg.enums.map((e) => numberEnum(e, from(e.name, previous.enums))),
  };
}
