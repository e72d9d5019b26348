import type { FieldShape, ObjectShape, TypeShape } from '@fw/core';
import { unwrapNullable } from '@fw/core/plugin';
import type { ProtoEnum, ProtoMethod } from './model.js';

/**
 * Between proto messages and an operation's input and output. Requests arrive decoded by
 * proto-loader with defaults (proto3 scalars without presence read as their zero value, messages
 * as null, enums as names, lists and maps empty); the input is made to read as the schema expects:
 * an unset message or optional field is absent (null where the schema says nullable and not
 * optional), an enum's zero value (`X_UNSPECIFIED`) is absent, enum names become the schema's
 * values. Responses get enum values as proto names and non-object outputs wrapped.
 */

type Step = (message: Record<string, unknown>) => void;
type Convert = (value: unknown) => unknown;

/** What an enum's zero value becomes: the field is left out. */
const ABSENT = Symbol('absent');

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Converts messages of one set of operations; object conversions are made once per schema. */
export class Codecs {
  readonly #toValue = new Map<object, ReadonlyMap<string, string>>();
  readonly #toProto = new Map<object, ReadonlyMap<string, string>>();
  readonly #decoders = new Map<object, (message: Record<string, unknown>) => void>();
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
    if (type.kind === 'enum') return this.enumToValue(type.source);
    if (type.kind === 'object') {
      const decode = this.decodeObject(type);
      return (value) => {
        if (isRecord(value)) decode(value);
        return value;
      };
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

  private decodeField(field: FieldShape): Step | undefined {
    const { type, nullable } = unwrapNullable(field.type);
    const name = field.name;
    if (type.kind === 'list') {
      const item = this.decodeElement(type.of);
      if (item === undefined) return undefined;
      return (message) => {
        const value = message[name];
        if (Array.isArray(value)) message[name] = value.map(item);
      };
    }
    if (type.kind === 'map') {
      const entry = this.decodeElement(type.of);
      if (entry === undefined) return undefined;
      return (message) => {
        const value = message[name];
        if (isRecord(value)) for (const key of Object.keys(value)) value[key] = entry(value[key]);
      };
    }
    const convert = this.decodeSingle(type);
    if (field.optional || nullable) {
      // A proto3 `optional` field: absent when unset. The schema reads a nullable (not optional) field unset as null.
      const unset = nullable && !field.optional ? (message: Record<string, unknown>) => void (message[name] = null) : (message: Record<string, unknown>) => void delete message[name];
      return (message) => {
        const value = message[name];
        const converted = value === undefined || value === null ? ABSENT : convert === undefined ? value : convert(value);
        if (converted === ABSENT) unset(message);
        else message[name] = converted;
      };
    }
    if (convert === undefined) return undefined;
    // A required message field the client did not set reads as null; absent, validation names it.
    return (message) => {
      const value = message[name];
      const converted = value === undefined || value === null ? ABSENT : convert(value);
      if (converted === ABSENT) delete message[name];
      else message[name] = converted;
    };
  }

  /** Makes a decoded request message read as the object schema expects (in place). */
  decodeObject(shape: ObjectShape): (message: Record<string, unknown>) => void {
    const known = this.#decoders.get(shape.source);
    if (known !== undefined) return known;
    const steps: Step[] = [];
    const decode = (message: Record<string, unknown>): void => {
      for (const step of steps) step(message);
    };
    // Registered before the fields are visited: a schema may contain itself.
    this.#decoders.set(shape.source, decode);
    for (const field of shape.fields) {
      const step = this.decodeField(field);
      if (step !== undefined) steps.push(step);
    }
    return decode;
  }

  /** A response value with its enum values as proto names; undefined when nothing in it changes. */
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
    if (!hasEnum(shape, new Set())) {
      this.#encoders.set(shape.source, undefined);
      return undefined;
    }
    const steps: Array<[string, Convert]> = [];
    const encode: Convert = (value) => {
      if (!isRecord(value)) return value;
      const copy = { ...value };
      for (const [name, convert] of steps) if (copy[name] !== undefined) copy[name] = convert(copy[name]);
      return copy;
    };
    this.#encoders.set(shape.source, encode);
    for (const field of shape.fields) {
      const convert = this.encode(field.type);
      if (convert !== undefined) steps.push([field.name, convert]);
    }
    return encode;
  }
}

function hasEnum(type: TypeShape, visiting: Set<object>): boolean {
  switch (type.kind) {
    case 'enum':
      return true;
    case 'nullable':
    case 'list':
    case 'map':
      return hasEnum(type.of, visiting);
    case 'object':
      if (visiting.has(type.source)) return false;
      visiting.add(type.source);
      return type.fields.some((field) => hasEnum(field.type, visiting));
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
}

/** The codec of one generated method. */
export function operationCodec(codecs: Codecs, method: ProtoMethod): OperationCodec {
  const op = method.operation;
  const decode = codecs.decodeObject(op.input);
  const encode = codecs.encode(op.output) ?? ((value: unknown) => value);
  const request = (message: unknown): unknown => {
    if (isRecord(message)) decode(message);
    return message;
  };
  switch (method.wrap) {
    case 'items':
      return { request, response: (result) => ({ items: encode(result) ?? [] }) };
    case 'value':
      return { request, response: (result) => (result === null || result === undefined ? {} : { value: encode(result) }) };
    default:
      return { request, response: (result) => encode(result) ?? {} };
  }
}
