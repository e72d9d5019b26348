import type { ScalarConstraints, ShapeAnnotations } from '@fw/core';
import { checksOf, NUMBER_FORMAT_RANGES } from './number-kind.js';
import { metaOf, type ZodNode } from './zod4.js';

/**
 * What a schema's checks state, as zod's own `toJSONSchema` folds them (zod 4 `aggregateChecks`):
 * the definition's checks (a format schema such as `z.email()` is its own first check), then what
 * third-party checks left in `_zod.bag`. Read here so that OpenAPI documents the shapes with the
 * same keywords zod writes.
 */
interface Folded {
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  multipleOf?: number[];
  format?: string;
  patterns?: Set<string>;
  contentEncoding?: string;
  laxFormat?: boolean;
  mime?: string[];
}

/** zod's check names → JSON Schema format names; `''`: none. */
const FORMAT_NAMES: Readonly<Record<string, string>> = { guid: 'uuid', url: 'uri', datetime: 'date-time', json_string: 'json-string', regex: '' };

const narrowMin = (folded: Folded, key: 'minimum' | 'exclusiveMinimum', value: unknown): void => {
  if (typeof value === 'number' && (folded[key] === undefined || value > folded[key])) folded[key] = value;
};
const narrowMax = (folded: Folded, key: 'maximum' | 'exclusiveMaximum', value: unknown): void => {
  if (typeof value === 'number' && (folded[key] === undefined || value < folded[key])) folded[key] = value;
};
const addPattern = (folded: Folded, pattern: unknown): void => {
  if (pattern instanceof RegExp) (folded.patterns ??= new Set()).add(pattern.source);
};
const intersectMime = (folded: Folded, mime: unknown): void => {
  if (!Array.isArray(mime)) return;
  const list = mime.filter((m): m is string => typeof m === 'string');
  folded.mime = folded.mime === undefined ? list : folded.mime.filter((m) => list.includes(m));
};

function fold(node: ZodNode): Folded {
  const folded: Folded = {};
  for (const check of checksOf(node)) {
    const { value, inclusive } = check as { value?: unknown; inclusive?: unknown };
    switch (check.check) {
      case 'greater_than':
        narrowMin(folded, inclusive === true ? 'minimum' : 'exclusiveMinimum', value);
        break;
      case 'less_than':
        narrowMax(folded, inclusive === true ? 'maximum' : 'exclusiveMaximum', value);
        break;
      case 'multiple_of':
        if (typeof value === 'number' && !(folded.multipleOf ??= []).includes(value)) folded.multipleOf.push(value);
        break;
      case 'number_format': {
        if (typeof check.format !== 'string') break;
        folded.format = check.format;
        const range = NUMBER_FORMAT_RANGES[check.format];
        if (range !== undefined) {
          narrowMin(folded, 'minimum', range[0]);
          narrowMax(folded, 'maximum', range[1]);
        }
        break;
      }
      case 'min_length':
      case 'min_size':
        narrowMin(folded, 'minimum', check.minimum);
        break;
      case 'max_length':
      case 'max_size':
        narrowMax(folded, 'maximum', check.maximum);
        break;
      case 'length_equals':
      case 'size_equals': {
        const exact = check.check === 'length_equals' ? check.length : check.size;
        narrowMin(folded, 'minimum', exact);
        narrowMax(folded, 'maximum', exact);
        break;
      }
      case 'string_format':
        if (typeof check.format !== 'string') break;
        folded.format = check.format;
        addPattern(folded, check.pattern);
        if (check.format === 'base64' || check.format === 'base64url') folded.contentEncoding = check.format;
        if (check.local === true || check.precision === -1) folded.laxFormat = true;
        break;
      case 'mime_type':
        intersectMime(folded, check.mime);
        break;
      default:
        break;
    }
  }
  // Third-party checks write the bag only; first-party ones are never tighter there than above.
  const bag = node._zod.bag ?? {};
  narrowMin(folded, 'minimum', bag.minimum);
  narrowMin(folded, 'exclusiveMinimum', bag.exclusiveMinimum);
  narrowMax(folded, 'maximum', bag.maximum);
  narrowMax(folded, 'exclusiveMaximum', bag.exclusiveMaximum);
  if (typeof bag.multipleOf === 'number' && !(folded.multipleOf ??= []).includes(bag.multipleOf)) folded.multipleOf.push(bag.multipleOf);
  if (typeof bag.format === 'string') folded.format ??= bag.format;
  if (bag.mime !== undefined) intersectMime(folded, bag.mime);
  if (bag.patterns instanceof Set) for (const pattern of bag.patterns as Set<unknown>) addPattern(folded, pattern);
  return folded;
}

/** Drops the undefined members (shapes carry only what a schema states). */
function defined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/** A string's length bounds, format and patterns (a template literal's pattern is its own). */
export function stringConstraints(node: ZodNode): ScalarConstraints {
  const folded = fold(node);
  const own = (node._zod as { pattern?: unknown }).pattern;
  if (node._zod.def.type === 'template_literal') addPattern(folded, own);
  let format = folded.format === undefined ? undefined : (FORMAT_NAMES[folded.format] ?? folded.format);
  // `z.iso.time()` is no RFC 3339 full-time, and a local or any-precision datetime accepts what `date-time` forbids.
  if (format === '' || folded.format === 'time' || folded.laxFormat === true) format = undefined;
  return defined({
    minLength: folded.minimum,
    maxLength: folded.maximum,
    format,
    contentEncoding: folded.contentEncoding,
    patterns: folded.patterns === undefined || folded.patterns.size === 0 ? undefined : Object.freeze([...folded.patterns]),
  });
}

/** A number's bounds (of both kinds, the tighter one kept, as JSON Schema states one) and divisors. */
export function numberConstraints(node: ZodNode): ScalarConstraints {
  const folded = fold(node);
  const { minimum, maximum, exclusiveMinimum, exclusiveMaximum } = folded;
  const exMin = exclusiveMinimum !== undefined && exclusiveMinimum >= (minimum ?? -Infinity);
  const exMax = exclusiveMaximum !== undefined && exclusiveMaximum <= (maximum ?? Infinity);
  // JSON Schema divisors are greater than 0; a negative one accepts what its absolute value does.
  const divisors = [...new Set((folded.multipleOf ?? []).filter((d) => Number.isFinite(d) && d !== 0).map(Math.abs))];
  return defined({
    exclusiveMinimum: exMin ? exclusiveMinimum : undefined,
    minimum: exMin ? undefined : minimum,
    exclusiveMaximum: exMax ? exclusiveMaximum : undefined,
    maximum: exMax ? undefined : maximum,
    multipleOf: divisors.length === 0 ? undefined : Object.freeze(divisors),
  });
}

/** A file's size bounds and media types. */
export function fileConstraints(node: ZodNode): ScalarConstraints {
  const folded = fold(node);
  return defined({ minLength: folded.minimum, maxLength: folded.maximum, mime: folded.mime === undefined ? undefined : Object.freeze(folded.mime) });
}

/** An array's length bounds. */
export function listConstraints(node: ZodNode): { minItems?: number; maxItems?: number } {
  const folded = fold(node);
  return defined({ minItems: folded.minimum, maxItems: folded.maximum });
}


/** The annotations of a type's own schema: title, examples, deprecated, and the other `.meta()` keys. */
export function annotationsOf(node: ZodNode): ShapeAnnotations {
  const meta = metaOf(node) as Readonly<Record<string, unknown>> | undefined;
  if (meta === undefined) return {};
  const title = typeof meta.title === 'string' ? meta.title : undefined;
  const examples = Array.isArray(meta.examples) ? Object.freeze([...(meta.examples as unknown[])]) : undefined;
  const deprecated = typeof meta.deprecated === 'boolean' ? meta.deprecated : undefined;
  // The name is no annotation, the description is a member of its own; a key of another type than
  // its member's (examples: 'x') is passed on as it is.
  const own = new Set(['id', 'description', ...(title === undefined ? [] : ['title']), ...(examples === undefined ? [] : ['examples']), ...(deprecated === undefined ? [] : ['deprecated'])]);
  const rest = Object.entries(meta).filter(([key, value]) => !own.has(key) && value !== undefined);
  return defined({
    title,
    examples,
    deprecated,
    annotations: rest.length === 0 ? undefined : Object.freeze(Object.fromEntries(rest)),
  });
}
