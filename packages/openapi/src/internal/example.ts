import type { JSONSchema } from '../types.js';

/** Thrown when no value can be made that the schema accepts (a `pattern`, `not`, an unresolvable `$ref`). */
export class NoExampleError extends Error {
  override readonly name = 'NoExampleError';
}

const FORMAT_EXAMPLES: Record<string, string> = {
  email: 'user@example.com',
  'idn-email': 'user@example.com',
  uuid: '3f1c2a9e-8b4d-4c2e-9a1f-6d5e4c3b2a10',
  guid: '3f1c2a9e-8b4d-4c2e-9a1f-6d5e4c3b2a10',
  'date-time': '2024-01-02T03:04:05.000Z',
  date: '2024-01-02',
  time: '03:04:05Z',
  duration: 'P1D',
  uri: 'https://example.com/',
  url: 'https://example.com/',
  'uri-reference': '/example',
  hostname: 'example.com',
  ipv4: '192.0.2.1',
  ipv6: '2001:db8::1',
  cuid: 'cjld2cjxh0000qzrmn831i7rn',
  cuid2: 'tz4a98xxat96iws9zmbrgj3a',
  ulid: '01ARZ3NDEKTSV4RRFFQ69G5FAV',
  nanoid: 'V1StGXR8_Z5jdHi6B-myT',
  base64: 'ZXhhbXBsZQ==',
  base64url: 'ZXhhbXBsZQ',
  emoji: '🙂',
  jwt: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJleGFtcGxlIn0.c2lnbmF0dXJl',
};

/**
 * A value the schema accepts, for a contract check's request: the schema's own `examples`,
 * `example`, `default`, `const` or first `enum` value when it has one; otherwise one built from its
 * type and bounds (required object properties only, the fewest array items allowed, at least one).
 * `resolve` follows `$ref`s into the document.
 */
export function exampleFor(schema: JSONSchema, resolve: (ref: string) => JSONSchema | undefined, depth = 0): unknown {
  if (depth > 24) throw new NoExampleError('the schema nests too deep (a recursive schema with required recursion?)');
  if (typeof schema.$ref === 'string') {
    const target = resolve(schema.$ref);
    if (target === undefined) throw new NoExampleError(`cannot resolve ${schema.$ref}`);
    const { $ref: _ignored, ...siblings } = schema;
    return exampleFor({ ...target, ...siblings }, resolve, depth + 1);
  }
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if ('example' in schema) return schema.example;
  if ('default' in schema) return schema.default;
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum.find((v) => v !== null) ?? schema.enum[0];
  for (const key of ['anyOf', 'oneOf'] as const) {
    const options = schema[key];
    if (Array.isArray(options) && options.length > 0) {
      const choice = (options as JSONSchema[]).find((option) => option.type !== 'null') ?? (options[0] as JSONSchema);
      return exampleFor(choice, resolve, depth + 1);
    }
  }
  if (Array.isArray(schema.allOf)) {
    const parts = (schema.allOf as JSONSchema[]).map((part) => exampleFor(part, resolve, depth + 1));
    if (parts.every((part) => part !== null && typeof part === 'object' && !Array.isArray(part))) return Object.assign({}, ...parts) as unknown;
    return parts[0];
  }
  const type = Array.isArray(schema.type) ? (schema.type as string[]).find((t) => t !== 'null') ?? 'null' : schema.type;
  switch (type ?? inferType(schema)) {
    case 'string':
      return stringExample(schema);
    case 'integer':
      return numberExample(schema, true);
    case 'number':
      return numberExample(schema, false);
    case 'boolean':
      return true;
    case 'null':
      return null;
    case 'array': {
      const count = Math.max(typeof schema.minItems === 'number' ? schema.minItems : 1, 1);
      const capped = typeof schema.maxItems === 'number' ? Math.min(count, schema.maxItems) : count;
      if (Array.isArray(schema.prefixItems)) return (schema.prefixItems as JSONSchema[]).map((item) => exampleFor(item, resolve, depth + 1));
      const items = (schema.items as JSONSchema | undefined) ?? {};
      return Array.from({ length: capped }, () => exampleFor(items, resolve, depth + 1));
    }
    case 'object': {
      const properties = (schema.properties as Record<string, JSONSchema> | undefined) ?? {};
      const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
      const out: Record<string, unknown> = {};
      for (const name of required) out[name] = exampleFor(properties[name] ?? {}, resolve, depth + 1);
      return out;
    }
    default:
      // `{}` accepts anything.
      return 'example';
  }
}

function inferType(schema: JSONSchema): string | undefined {
  if (schema.properties !== undefined || schema.required !== undefined) return 'object';
  if (schema.items !== undefined || schema.prefixItems !== undefined) return 'array';
  return undefined;
}

function stringExample(schema: JSONSchema): string {
  if (typeof schema.pattern === 'string') {
    throw new NoExampleError(`no example for a string with pattern ${schema.pattern}: give the schema an example (zod: .meta({ examples: [...] }))`);
  }
  const format = typeof schema.format === 'string' ? schema.format : undefined;
  let value = format !== undefined ? (FORMAT_EXAMPLES[format] ?? 'example') : 'example';
  const min = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const max = typeof schema.maxLength === 'number' ? schema.maxLength : Infinity;
  if (value.length < min) value = value.padEnd(min, 'x');
  if (value.length > max) {
    if (format !== undefined) throw new NoExampleError(`no ${format} example fits maxLength ${max}`);
    value = value.slice(0, max);
  }
  return value;
}

function numberExample(schema: JSONSchema, integer: boolean): number {
  const num = (key: string): number | undefined => (typeof schema[key] === 'number' ? schema[key] : undefined);
  const step = integer ? 1 : 0.5;
  let low = num('minimum') ?? -Infinity;
  const exclusiveLow = num('exclusiveMinimum');
  if (exclusiveLow !== undefined) low = Math.max(low, integer ? Math.floor(exclusiveLow) + 1 : exclusiveLow + step);
  let high = num('maximum') ?? Infinity;
  const exclusiveHigh = num('exclusiveMaximum');
  if (exclusiveHigh !== undefined) high = Math.min(high, integer ? Math.ceil(exclusiveHigh) - 1 : exclusiveHigh - step);
  if (integer) {
    low = Math.ceil(low);
    high = Math.floor(high);
  }
  // 1 reads like an id or a count; else the nearest bound.
  let value = 1 < low ? low : 1 > high ? high : 1;
  const multipleOf = num('multipleOf');
  if (multipleOf !== undefined && multipleOf > 0) {
    value = Math.ceil(value / multipleOf) * multipleOf;
    if (value > high) throw new NoExampleError(`no multiple of ${multipleOf} between ${low} and ${high}`);
  }
  if (value < low || value > high || !Number.isFinite(value)) throw new NoExampleError(`no ${integer ? 'integer' : 'number'} between ${low} and ${high}`);
  return value;
}
