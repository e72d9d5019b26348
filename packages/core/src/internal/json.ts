import { HTTPError } from '../http-error.js';

/** Default deepest nesting of objects and arrays a JSON text may have. */
export const DEFAULT_MAX_JSON_DEPTH = 64;

/** Options of `parseJSON()`. */
export interface ParseJSONOptions {
  /** Deepest nesting of objects and arrays allowed; deeper is refused with 400. @default 64 */
  maxDepth?: number;
}

const FORBIDDEN_KEY = /"(?:__proto__|constructor|prototype)"\s*:/;

/**
 * Parses JSON the way the framework parses request bodies: malformed text, nesting deeper than
 * `maxDepth`, and `__proto__` / `constructor.prototype` keys (also `\u`-escaped) throw a 400 HTTPError.
 * @example
 * const variables = parseJSON(text, { maxDepth: 32 });
 */
export function parseJSON(text: string, options?: ParseJSONOptions): unknown {
  const maxDepth = options?.maxDepth ?? DEFAULT_MAX_JSON_DEPTH;
  if (!Number.isInteger(maxDepth) || maxDepth < 1) throw new TypeError(`maxDepth must be a positive integer, got ${String(maxDepth)}`);
  // Checked on the text, before JSON.parse builds anything: whoever walks the value afterwards
  // (a validator, a resolver, a recursive merge) would overflow the stack on deep input.
  if (text.length > maxDepth && openersExceed(text, maxDepth) && depthExceeds(text, maxDepth)) {
    throw new HTTPError(400, `JSON nested deeper than ${maxDepth} levels`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new HTTPError(400, 'Malformed JSON in request body', undefined, { cause: err });
  }
  // JSON.parse makes `__proto__` an own key, harmless here but a trap for any later
  // merge into a plain object: refuse such bodies, as Fastify does by default.
  // The raw-text test is only a fast path: a `\u` escape can spell the key (`"\u005f_proto__"`),
  // so escaped text always gets the walk.
  if (((mayNameForbiddenKey(text) && FORBIDDEN_KEY.test(text)) || text.includes('\\u')) && hasForbiddenKey(value)) {
    throw new HTTPError(400, 'Request body contains a forbidden key (__proto__ or constructor.prototype)');
  }
  return value;
}

/**
 * Whether the text holds more than `max` of `{` and `[` in all (inside strings too): if not, it
 * cannot nest deeper than `max`, and the character-by-character walk is skipped. `indexOf` scans
 * natively, so a typical body (a query request, a form of a few fields) costs a handful of calls.
 */
function openersExceed(text: string, max: number): boolean {
  let count = 0;
  for (let i = text.indexOf('{'); i !== -1; i = text.indexOf('{', i + 1)) if (++count > max) return true;
  for (let i = text.indexOf('['); i !== -1; i = text.indexOf('[', i + 1)) if (++count > max) return true;
  return false;
}

/** Whether the text spells `proto` or `constructor` anywhere: a native scan before the regular expression. */
function mayNameForbiddenKey(text: string): boolean {
  return text.includes('proto') || text.includes('constructor');
}

/** Whether `[` and `{` outside strings ever nest deeper than `max`. One pass, no recursion. */
function depthExceeds(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 91 /* [ */ || c === 123 /* { */) {
      if (++depth > max) return true;
    } else if (c === 93 /* ] */ || c === 125 /* } */) depth--;
  }
  return false;
}

function hasForbiddenKey(root: unknown): boolean {
  // An explicit stack, not recursion: the depth limit can be raised far beyond the call stack,
  // and a stack overflow here would turn a bad body into a 500.
  const pending: unknown[] = [root];
  while (pending.length !== 0) {
    const value = pending.pop();
    if (value === null || typeof value !== 'object') continue;
    if (Array.isArray(value)) {
      for (const item of value) pending.push(item);
      continue;
    }
    const obj = value as Record<string, unknown>;
    if (Object.prototype.hasOwnProperty.call(obj, '__proto__')) return true;
    const ctor = Object.prototype.hasOwnProperty.call(obj, 'constructor') ? obj['constructor'] : undefined;
    if (ctor !== null && typeof ctor === 'object' && Object.prototype.hasOwnProperty.call(ctor, 'prototype')) return true;
    for (const key of Object.keys(obj)) pending.push(obj[key]);
  }
  return false;
}
