import type { FieldShape, ObjectShape, TypeShape } from '@fw/core';
import { unwrapNullable } from '@fw/core/plugin';
import type { ProtoEnum, ProtoMethod } from './model.js';
import { snakeCase } from './names.js';

/**
 * Between proto messages and an operation's input and output. Requests arrive decoded by
 * proto-loader with the proto's field names (`price_cents`); the input is made to read as the
 * schema expects, with the schema's keys (`priceCents`): a field with presence the client did not
 * set (every singular field of a request has it) is absent — so validation says "required" as it
 * does on REST — or null where the schema says nullable and not optional; an enum's zero value
 * (`X_UNSPECIFIED`) is absent; enum names become the schema's values; lists and maps are as sent
 * (empty when not). Responses get the proto's field names, enum values as proto names, and the
 * result wrapped as the response message says.
 */

type Step = (message: Record<string, unknown>, out: Record<string, unknown>) => void;
type Convert = (value: unknown) => unknown;

/**
 * A `bytes` field of a file input as the web `File` the schema (`z.file()`) takes, as REST's
 * multipart body gives it: the bytes sent, with no name and no type (a message carries neither).
 */
const toFile: Convert = (value) => (value instanceof Uint8Array ? new File([value], '', { type: '' }) : value);

/** What an enum's zero value becomes: the field is left out. */
const ABSENT = Symbol('absent');

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Converts messages of one set of operations; object conversions are made once per schema. */
export class Codecs {
  readonly #toValue = new Map<object, ReadonlyMap<string, string>>();
  readonly #toProto = new Map<object, ReadonlyMap<string, string>>();
  readonly #decoders = new Map<object, (message: Record<string, unknown>) => Record<string, unknown>>();
  readonly #encoders = new Map<object, Convert | undefined>();

  constructor(private readonly enums: ReadonlyMap<object, ProtoEnum>) {}

  private enumOf(source: object): ProtoEnum {
    const generated = this.enums.get(source);
    if (generated === undefined) throw new Error('An enum of this operation was not generated');
    return generated;
  }

  /** Proto name → schema value; the zero value and unknown numbers stay as they are (validation refuses them). */
  private enumToValue(source: object): Convert {
    let table = this.#toValue.get(source);
    if (table === undefined) {
      table = new Map(this.enumOf(source).values.map((v) => [v.proto, v.value]));
      this.#toValue.set(source, table);
    }
    const values = table;
    return (value) => (typeof value === 'string' ? (values.get(value) ?? value) : value);
  }

  /** A request value inside a list or map. */
  private decodeElement(type: TypeShape): Convert | undefined {
    if (type.kind === 'scalar' && type.scalar === 'file') return toFile;
    if (type.kind === 'enum') return this.enumToValue(type.source);
    if (type.kind === 'object') {
      const decode = this.decodeObject(type);
      return (value) => (isRecord(value) ? decode(value) : value);
    }
    return undefined;
  }

  /** A request value of a singular field: ABSENT when it is an unset enum. */
  private decodeSingle(type: TypeShape): Convert | undefined {
    if (type.kind === 'enum') {
      const zero = this.enumOf(type.source).zero;
      const toValue = this.enumToValue(type.source);
      return (value) => (value === zero ? ABSENT : toValue(value));
    }
    return this.decodeElement(type);
  }

  private decodeField(field: FieldShape): Step {
    const { type, nullable } = unwrapNullable(field.type);
    const key = field.name;
    const proto = snakeCase(key);
    if (type.kind === 'list') {
      const item = this.decodeElement(type.of);
      return (message, out) => {
        const value = message[proto];
        if (value !== undefined) out[key] = item !== undefined && Array.isArray(value) ? value.map(item) : value;
      };
    }
    if (type.kind === 'map') {
      const entry = this.decodeElement(type.of);
      return (message, out) => {
        const value = message[proto];
        if (entry !== undefined && isRecord(value)) {
          const copy: Record<string, unknown> = {};
          for (const name of Object.keys(value)) copy[name] = entry(value[name]);
          out[key] = copy;
        } else if (value !== undefined) out[key] = value;
      };
    }
    const convert = this.decodeSingle(type);
    // Unset: absent, so validation names a required field; the schema reads a nullable (not optional) field unset as null.
    const unsetNull = nullable && !field.optional;
    return (message, out) => {
      const value = message[proto];
      const converted = value === undefined || value === null ? ABSENT : convert === undefined ? value : convert(value);
      if (converted !== ABSENT) out[key] = converted;
      else if (unsetNull) out[key] = null;
    };
  }

  /** A decoded request message as the object schema expects it: a new object with the schema's keys. */
  decodeObject(shape: ObjectShape): (message: Record<string, unknown>) => Record<string, unknown> {
    const known = this.#decoders.get(shape.source);
    if (known !== undefined) return known;
    const steps: Step[] = [];
    const decode = (message: Record<string, unknown>): Record<string, unknown> => {
      const out: Record<string, unknown> = {};
      for (const step of steps) step(message, out);
      return out;
    };
    // Registered before the fields are visited: a schema may contain itself.
    this.#decoders.set(shape.source, decode);
    for (const field of shape.fields) steps.push(this.decodeField(field));
    return decode;
  }

  /** A response value with the proto's field names and enum values as proto names; undefined when nothing in it changes. */
  encode(type: TypeShape): Convert | undefined {
    switch (type.kind) {
      case 'nullable': {
        const inner = this.encode(type.of);
        return inner === undefined ? undefined : (value) => (value === null || value === undefined ? value : inner(value));
      }
      case 'list': {
        const item = this.encode(type.of);
        return item === undefined ? undefined : (value) => (Array.isArray(value) ? value.map(item) : value);
      }
      case 'map': {
        const entry = this.encode(type.of);
        if (entry === undefined) return undefined;
        return (value) => (isRecord(value) ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, entry(v)])) : value);
      }
      case 'enum': {
        let table = this.#toProto.get(type.source);
        if (table === undefined) {
          table = new Map(this.enumOf(type.source).values.map((v) => [v.value, v.proto]));
          this.#toProto.set(type.source, table);
        }
        const names = table;
        return (value) => (typeof value === 'string' ? (names.get(value) ?? value) : value);
      }
      case 'object':
        return this.encodeObject(type);
      default:
        return undefined;
    }
  }

  private encodeObject(shape: ObjectShape): Convert | undefined {
    // Registered before the fields are visited, so a schema that contains itself finds its encoder.
    if (this.#encoders.has(shape.source)) return this.#encoders.get(shape.source);
    if (!changes(shape, new Set())) {
      this.#encoders.set(shape.source, undefined);
      return undefined;
    }
    const steps: Array<[string, string, Convert | undefined]> = [];
    const encode: Convert = (value) => {
      if (!isRecord(value)) return value;
      const out: Record<string, unknown> = {};
      for (const [key, proto, convert] of steps) {
        const field = value[key];
        if (field !== undefined) out[proto] = convert === undefined ? field : convert(field);
      }
      return out;
    };
    this.#encoders.set(shape.source, encode);
    for (const field of shape.fields) steps.push([field.name, snakeCase(field.name), this.encode(field.type)]);
    return encode;
  }
}

const isFile = (type: TypeShape): boolean => type.kind === 'scalar' && type.scalar === 'file';

/** Whether a decoded request message of this object differs from the input it stands for (see `Codecs`). */
function requestChanges(shape: ObjectShape, visiting: Set<object>): boolean {
  if (visiting.has(shape.source)) return false;
  visiting.add(shape.source);
  return shape.fields.some((field) => {
    if (snakeCase(field.name) !== field.name) return true;
    const { type, nullable } = unwrapNullable(field.type);
    // proto-loader reads an unset message as null and an unset enum as its zero value; an unset nullable field must read as null.
    if (type.kind === 'enum' || type.kind === 'object' || isFile(type) || (nullable && !field.optional)) return true;
    if (type.kind === 'list' || type.kind === 'map') return type.of.kind === 'enum' || isFile(type.of) || (type.of.kind === 'object' && requestChanges(type.of, visiting));
    return false;
  });
}

/** Whether a response value of this type differs from its message: an enum, or a key whose proto name is another, anywhere in it. */
function changes(type: TypeShape, visiting: Set<object>): boolean {
  switch (type.kind) {
    case 'enum':
      return true;
    case 'nullable':
    case 'list':
    case 'map':
      return changes(type.of, visiting);
    case 'object':
      if (visiting.has(type.source)) return false;
      visiting.add(type.source);
      return type.fields.some((field) => snakeCase(field.name) !== field.name || changes(field.type, visiting));
    default:
      return false;
  }
}

/** How one operation's requests and results cross the wire. */
export interface OperationCodec {
  /** The decoded request message, as the operation's input. */
  readonly request: (message: unknown) => unknown;
  /** The operation's result, as the response message. */
  readonly response: (result: unknown) => unknown;
  /**
   * Neither direction changes anything (no enums, no optional or message fields to make absent,
   * no wrapping): the call can pass the request and the result through as they are.
   */
  readonly passThrough: boolean;
}

/** The codec of one generated method. */
export function operationCodec(codecs: Codecs, method: ProtoMethod): OperationCodec {
  const op = method.operation;
  const decode = codecs.decodeObject(op.input);
  const encode = codecs.encode(op.output) ?? ((value: unknown) => value);
  const field = method.requestField;
  // A request without its input message reads as an empty input: validation names each required field.
  const request =
    field === undefined
      ? (message: unknown): unknown => (isRecord(message) ? decode(message) : message)
      : (message: unknown): unknown => decode(isRecord(message) && isRecord(message[field]) ? message[field] : {});
  const wrapped = method.responseField;
  if (field === undefined && method.wrap === 'none' && !requestChanges(op.input, new Set()) && codecs.encode(op.output) === undefined) {
    return { request, response: (result) => result ?? {}, passThrough: true };
  }
  switch (method.wrap) {
    case 'items':
      return { request, response: (result) => ({ items: encode(result) ?? [] }), passThrough: false };
    case 'value':
      return { request, response: (result) => (result === null || result === undefined ? {} : { value: encode(result) }), passThrough: false };
    case 'field':
      return { request, response: (result) => (result === null || result === undefined ? {} : { [wrapped!]: encode(result) }), passThrough: false };
    default:
      return { request, response: (result) => encode(result) ?? {}, passThrough: false };
  }
}
