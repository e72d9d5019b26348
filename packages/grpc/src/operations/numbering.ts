import protobuf from 'protobufjs';
import type { ProtoEnum, ProtoField, ProtoMessage } from './model.js';

/**
 * Field and enum value numbers that never change meaning. A previous generation of the file is
 * read back with protobufjs: every field keeps its number, a new field takes the next number after
 * everything used or reserved, a removed field's number and name become `reserved`, and a field
 * whose wire kind changed (a string that became a message) is treated as removed and added. The
 * same rules number enum values (their zero value stays 0).
 */

/** An inclusive range of numbers, as `reserved 5 to 7;` writes it. */
export type NumberRange = readonly [number, number];

/** What a previous file says about one message or enum. */
export interface PreviousNumbers {
  /** Field (or enum value) name → its number and wire kind (enum values have no kind). */
  readonly entries: ReadonlyMap<string, { readonly id: number; readonly kind: string | undefined }>;
  readonly reservedNumbers: readonly NumberRange[];
  readonly reservedNames: ReadonlySet<string>;
}

/** The messages and enums of a previous file, by name. */
export interface PreviousFile {
  readonly messages: ReadonlyMap<string, PreviousNumbers>;
  readonly enums: ReadonlyMap<string, PreviousNumbers>;
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
  readonly reservedNames: readonly string[];
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

/** Reads the numbers of a previously generated file; an error names the file. */
export function readPrevious(file: string, text: string): PreviousFile {
  const messages = new Map<string, PreviousNumbers>();
  const enums = new Map<string, PreviousNumbers>();
  try {
    const parsed = protobuf.parse(text, new protobuf.Root(), { keepCase: true });
    parsed.root.resolveAll();
    const scope = parsed.package === undefined ? parsed.root : parsed.root.lookup(parsed.package);
    for (const nested of scope instanceof protobuf.Namespace ? scope.nestedArray : []) {
      if (nested instanceof protobuf.Type) {
        const { numbers, names } = readReserved(nested.reserved);
        const entries = new Map(nested.fieldsArray.map((field) => [field.name, { id: field.id, kind: kindOf(field) }] as const));
        messages.set(nested.name, { entries, reservedNumbers: numbers, reservedNames: names });
      } else if (nested instanceof protobuf.Enum) {
        const { numbers, names } = readReserved(nested.reserved);
        const entries = new Map(Object.entries(nested.values).map(([name, id]) => [name, { id, kind: undefined }] as const));
        enums.set(nested.name, { entries, reservedNumbers: numbers, reservedNames: names });
      }
    }
  } catch (err) {
    throw new Error(`Could not read the field numbers of the previous ${file}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
  return { messages, enums };
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

/** Numbers a message's fields: kept, new, or reserved once removed. */
export function numberMessage(message: ProtoMessage, previous: PreviousNumbers | undefined): NumberedMessage {
  const entries = previous?.entries ?? new Map<string, { id: number; kind: string | undefined }>();
  const reserved: NumberRange[] = [...(previous?.reservedNumbers ?? [])];
  const reservedNames = new Set(previous?.reservedNames ?? []);
  const kept = new Map<string, number>();
  for (const field of message.fields) {
    const before = entries.get(field.name);
    if (before === undefined) continue;
    if (before.kind === field.kind) kept.set(field.name, before.id);
    // Another wire kind under the same name: the old number would be misread, so it is retired.
    else reserved.push([before.id, before.id]);
  }
  const current = new Set(message.fields.map((f) => f.name));
  for (const [name, before] of entries) {
    if (current.has(name)) continue;
    reserved.push([before.id, before.id]);
    reservedNames.add(name);
  }
  for (const name of current) reservedNames.delete(name);
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
    reservedNames: [...reservedNames].sort(),
  };
}

/** Numbers an enum's values: the zero value is 0, the others kept, new, or reserved once removed. */
export function numberEnum(generated: ProtoEnum, previous: PreviousNumbers | undefined): NumberedEnum {
  const entries = previous?.entries ?? new Map<string, { id: number; kind: string | undefined }>();
  const reserved: NumberRange[] = [...(previous?.reservedNumbers ?? [])];
  const reservedNames = new Set(previous?.reservedNames ?? []);
  const current = new Set([generated.zero, ...generated.values.map((v) => v.proto)]);
  for (const [name, before] of entries) {
    if (current.has(name) || before.id === 0) continue;
    reserved.push([before.id, before.id]);
    reservedNames.add(name);
  }
  for (const name of current) reservedNames.delete(name);
  const source = new NumberSource([0, ...[...entries.values()].map((e) => e.id)], reserved, MAX_ENUM_NUMBER, `Enum ${generated.name}`);
  const values = generated.values.map(({ proto }) => {
    const before = entries.get(proto)?.id;
    return { name: proto, number: before !== undefined && before > 0 ? before : source.take() };
  });
  return {
    name: generated.name,
    description: generated.description,
    values: [{ name: generated.zero, number: 0 }, ...values.sort((a, b) => a.number - b.number)],
    reservedNumbers: mergeRanges(reserved),
    reservedNames: [...reservedNames].sort(),
  };
}
