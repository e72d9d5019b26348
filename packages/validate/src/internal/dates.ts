import type { TypeShape } from '@fw/core';
import { parseDateTime } from '@fw/core/plugin';

/**
 * Dates cross every protocol as ISO 8601 strings: a `datetime` in the input is read from one into a
 * `Date` before validation (so `z.date()` accepts what REST, GraphQL and gRPC clients send), and a
 * `Date` in the output is written back as one. Both walks follow the shape, copy what they change
 * (never the caller's or the schema's objects), and run only where the shape has a `datetime`.
 */

const withDates = new WeakMap<TypeShape, boolean>();

/** Whether the shape has a `datetime` anywhere. */
export function hasDatetime(shape: TypeShape): boolean {
  const known = withDates.get(shape);
  if (known !== undefined) return known;
  let found: boolean;
  switch (shape.kind) {
    case 'scalar':
      found = shape.scalar === 'datetime';
      break;
    case 'enum':
      found = false;
      break;
    case 'object':
      found = shape.fields.some((field) => hasDatetime(field.type));
      break;
    default:
      found = hasDatetime(shape.of);
  }
  withDates.set(shape, found);
  return found;
}

/**
 * `value` with each RFC 3339 date-time string where the shape has a `datetime` read as a `Date`
 * (core's one strict parser: `2024-02-30T00:00:00Z` stays a string, never March 1st); anything
 * else is left for validation to judge.
 */
export function readDates(value: unknown, shape: TypeShape): unknown {
  return walk(value, shape, (leaf) => (typeof leaf === 'string' ? (parseDateTime(leaf) ?? leaf) : leaf));
}

/** `value` with each `Date` where the shape has a `datetime` written as an ISO 8601 string. */
export function writeDates(value: unknown, shape: TypeShape): unknown {
  return walk(value, shape, (leaf) => (leaf instanceof Date && !Number.isNaN(leaf.getTime()) ? leaf.toISOString() : leaf));
}

function walk(value: unknown, shape: TypeShape, leaf: (value: unknown) => unknown): unknown {
  if (!hasDatetime(shape)) return value;
  switch (shape.kind) {
    case 'scalar':
      return leaf(value);
    case 'nullable':
      return value === null ? value : walk(value, shape.of, leaf);
    case 'list':
      return Array.isArray(value) ? value.map((item) => walk(item, shape.of, leaf)) : value;
    case 'map': {
      if (!isRecord(value)) return value;
      const copy: Record<string, unknown> = { ...value };
      for (const key of Object.keys(copy)) copy[key] = walk(copy[key], shape.of, leaf);
      return copy;
    }
    case 'object': {
      if (!isRecord(value)) return value;
      const copy: Record<string, unknown> = { ...value };
      for (const field of shape.fields) {
        if (Object.prototype.hasOwnProperty.call(copy, field.name)) copy[field.name] = walk(copy[field.name], field.type, leaf);
      }
      return copy;
    }
    default:
      return value;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}
