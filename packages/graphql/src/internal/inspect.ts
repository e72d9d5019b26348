/**
 * graphql-js's `inspect` (graphql/jsutils/inspect), which its executor uses to turn a thrown value
 * that is not an Error into `Unexpected error value: <inspect(value)>`. Copied rather than
 * deep-imported: a deep import of graphql's CommonJS file from an ES module would load a second
 * copy of graphql.
 */
const MAX_ARRAY_LENGTH = 10;
const MAX_RECURSIVE_DEPTH = 2;

export function inspect(value: unknown): string {
  return formatValue(value, []);
}

function formatValue(value: unknown, seen: readonly unknown[]): string {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'function':
      return value.name ? `[function ${value.name}]` : '[function]';
    case 'object':
      return formatObjectValue(value, seen);
    default:
      return String(value);
  }
}

function formatObjectValue(value: object | null, previouslySeen: readonly unknown[]): string {
  if (value === null) return 'null';
  if (previouslySeen.includes(value)) return '[Circular]';
  const seen = [...previouslySeen, value];
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') {
    const json: unknown = (value as { toJSON: () => unknown }).toJSON();
    if (json !== value) return typeof json === 'string' ? json : formatValue(json, seen);
  } else if (Array.isArray(value)) {
    return formatArray(value, seen);
  }
  return formatObject(value, seen);
}

function formatObject(object: object, seen: readonly unknown[]): string {
  const entries = Object.entries(object);
  if (entries.length === 0) return '{}';
  if (seen.length > MAX_RECURSIVE_DEPTH) return `[${objectTag(object)}]`;
  return `{ ${entries.map(([key, value]) => `${key}: ${formatValue(value, seen)}`).join(', ')} }`;
}

function formatArray(array: readonly unknown[], seen: readonly unknown[]): string {
  if (array.length === 0) return '[]';
  if (seen.length > MAX_RECURSIVE_DEPTH) return '[Array]';
  const length = Math.min(MAX_ARRAY_LENGTH, array.length);
  const remaining = array.length - length;
  const items: string[] = [];
  for (let i = 0; i < length; ++i) items.push(formatValue(array[i], seen));
  if (remaining === 1) items.push('... 1 more item');
  else if (remaining > 1) items.push(`... ${remaining} more items`);
  return `[${items.join(', ')}]`;
}

function objectTag(object: object): string {
  const tag = Object.prototype.toString
    .call(object)
    .replace(/^\[object /, '')
    .replace(/]$/, '');
  if (tag === 'Object') {
    const ctor = (object as { constructor?: { name?: unknown } }).constructor;
    if (typeof ctor === 'function' && typeof ctor.name === 'string' && ctor.name !== '') return ctor.name;
  }
  return tag;
}
