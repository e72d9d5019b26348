import { fromBinary, fromJson, toBinary, toJsonString, type DescEnum, type DescField, type DescMessage, type JsonValue, type Message } from '@bufbuild/protobuf';
import { HTTPError } from '@fw/core';
import { parseJSON } from '@fw/core/plugin';

/**
 * Between the wire (canonical proto3 JSON and binary, read and written by @bufbuild/protobuf) and
 * the form `@fw/grpc`'s codecs convert from and to the operation's input and output: the proto's
 * field names, 64-bit integers as numbers, enums by name, fields without presence at their zero
 * value, unset messages and `optional` fields absent.
 */

type Plain = Record<string, unknown>;
type Convert = (value: unknown) => unknown;

const enumNames = new WeakMap<DescEnum, ReadonlyMap<number, string>>();

function enumConvert(desc: DescEnum): Convert {
  let names = enumNames.get(desc);
  if (names === undefined) {
    names = new Map(desc.values.map((value) => [value.number, value.name]));
    enumNames.set(desc, names);
  }
  const table = names;
  // An unknown number stays a number: validation refuses it.
  return (value) => (typeof value === 'number' ? (table.get(value) ?? value) : value);
}

/** A scalar as the codecs read it: 64-bit integers (bigint here) as numbers, the schema's `int` being a safe integer. */
const scalar: Convert = (value) => (typeof value === 'bigint' ? Number(value) : value);

function elementConvert(kind: 'scalar' | 'enum' | 'message', field: DescField): Convert {
  if (kind === 'enum' && field.enum !== undefined) return enumConvert(field.enum);
  if (kind === 'message' && field.message !== undefined) {
    const message = field.message;
    return (value) => plainMessage(message, value as Plain);
  }
  return scalar;
}

const converters = new WeakMap<DescMessage, Array<(message: Plain, out: Plain) => void>>();

function stepsOf(desc: DescMessage): Array<(message: Plain, out: Plain) => void> {
  const known = converters.get(desc);
  if (known !== undefined) return known;
  const steps: Array<(message: Plain, out: Plain) => void> = [];
  // Registered before the fields are visited: a message may contain itself.
  converters.set(desc, steps);
  for (const field of desc.fields) {
    const name = field.name;
    const local = field.localName;
    const oneof = field.oneof?.localName;
    let convert: Convert;
    switch (field.fieldKind) {
      case 'list': {
        const item = elementConvert(field.listKind, field);
        convert = (value) => (Array.isArray(value) ? value.map(item) : value);
        break;
      }
      case 'map': {
        const entry = elementConvert(field.mapKind, field);
        convert = (value) => {
          const out: Plain = {};
          for (const [key, item] of Object.entries(value as Plain)) out[key] = entry(item);
          return out;
        };
        break;
      }
      default:
        convert = elementConvert(field.fieldKind, field);
    }
    if (oneof !== undefined) {
      steps.push((message, out) => {
        const selected = message[oneof] as { case?: string; value?: unknown } | undefined;
        if (selected?.case === local) out[name] = convert(selected.value);
      });
    } else {
      steps.push((message, out) => {
        const value = message[local];
        if (value !== undefined) out[name] = convert(value);
      });
    }
  }
  return steps;
}

/** A decoded message in the codecs' form. */
export function plainMessage(desc: DescMessage, message: Plain): Plain {
  const out: Plain = {};
  for (const step of stepsOf(desc)) step(message, out);
  return out;
}

/** The wire formats of a message. */
export type Codec = 'json' | 'proto';

/** A request message read by @bufbuild/protobuf; malformed bytes or JSON (unknown fields, too deep) are `invalid_argument`. */
function parseRequest(desc: DescMessage, codec: Codec, bytes: Uint8Array, maxJsonDepth: number): Message {
  try {
    if (codec === 'proto') return fromBinary(desc, bytes);
    const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
    // An empty body is the empty message, as Connect's GET without `message` sends it.
    const json = text.trim() === '' ? {} : parseJSON(text, { maxDepth: maxJsonDepth });
    return fromJson(desc, json as JsonValue);
  } catch (err) {
    if (err instanceof HTTPError) throw err;
    throw new HTTPError(400, `The request is not a valid ${desc.typeName} (${codec === 'proto' ? 'binary' : 'JSON'}): ${(err as Error).message}`, undefined, { code: 'invalid_argument', cause: err });
  }
}

/** A request message from its bytes, in the codecs' form; malformed bytes or JSON are `invalid_argument`. */
export function decodeRequest(desc: DescMessage, codec: Codec, bytes: Uint8Array, maxJsonDepth: number): Plain {
  return plainMessage(desc, parseRequest(desc, codec, bytes, maxJsonDepth));
}

/** A response message (in the codecs' form) as bytes: canonical proto3 JSON or binary. Keys the message does not have are dropped. */
export function encodeResponse(desc: DescMessage, codec: Codec, value: unknown): Uint8Array {
  const message = fromJson(desc, JSON.parse(JSON.stringify(value ?? {})) as JsonValue, { ignoreUnknownFields: true });
  return codec === 'proto' ? toBinary(desc, message) : Buffer.from(toJsonString(desc, message));
}

/**
 * A request message as protobuf binary, checked by @bufbuild/protobuf as `decodeRequest` checks it
 * (malformed bytes or JSON, unknown JSON fields, JSON too deep: `invalid_argument`): binary as sent,
 * JSON re-encoded. What a hand-written method's own deserializer then reads.
 */
export function requestBinary(desc: DescMessage, codec: Codec, bytes: Uint8Array, maxJsonDepth: number): Uint8Array {
  const message = parseRequest(desc, codec, bytes, maxJsonDepth);
  return codec === 'proto' ? bytes : toBinary(desc, message);
}

/** A response message given as protobuf binary (a hand-written method's own serializer's), in the call's codec: canonical proto3 JSON, or the bytes as they are. */
export function responseFromBinary(desc: DescMessage, codec: Codec, bytes: Uint8Array): Uint8Array {
  return codec === 'proto' ? bytes : Buffer.from(toJsonString(desc, fromBinary(desc, bytes)));
}
