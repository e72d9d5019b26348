/**
 * The changes between two OpenAPI documents that reach clients, by operation: a removed operation,
 * a parameter or request property a client must now send (or can no longer send with its old type
 * or value), a response property a client read that may now be missing or of another type. What a
 * client may now send or will now receive in addition is safe, except what graphql-inspector calls
 * dangerous in a schema: a value added to a response's enum (a reader may not handle it) and a
 * request default changed (a client that leaves the value out now sends another). Constraints
 * (lengths, bounds, formats) are not compared.
 */

type Json = Record<string, unknown>;

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

const isObject = (value: unknown): value is Json => value !== null && typeof value === 'object' && !Array.isArray(value);

/** `#/components/schemas/X` followed within `doc` (once: our documents reference components, never chains of them). */
function deref(doc: Json, schema: unknown): Json {
  if (!isObject(schema)) return {};
  const ref = schema.$ref;
  if (typeof ref !== 'string' || !ref.startsWith('#/')) return schema;
  let at: unknown = doc;
  for (const part of ref.slice(2).split('/')) at = isObject(at) ? at[part.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined;
  return isObject(at) ? at : {};
}

/** The JSON types a schema allows (`type`, with `nullable`/`null`, or those of its `anyOf`/`oneOf`), or undefined for "anything". */
function typesOf(doc: Json, schema: Json): Set<string> | undefined {
  const variants = (schema.anyOf ?? schema.oneOf) as unknown[] | undefined;
  if (Array.isArray(variants)) {
    const all = new Set<string>();
    for (const variant of variants) {
      const types = typesOf(doc, deref(doc, variant));
      if (types === undefined) return undefined;
      for (const type of types) all.add(type);
    }
    return all;
  }
  const type = schema.type;
  if (type === undefined) return Array.isArray(schema.enum) ? new Set(schema.enum.map((value) => (value === null ? 'null' : typeof value))) : undefined;
  const types = new Set(Array.isArray(type) ? (type as string[]) : [typeof type === 'string' ? type : JSON.stringify(type)]);
  if (types.has('number')) types.add('integer');
  if (schema.nullable === true) types.add('null');
  return types;
}

const subset = (a: ReadonlySet<string>, b: ReadonlySet<string>): boolean => [...a].every((value) => b.has(value));

interface Change {
  breaking: boolean;
  /** Breaks nothing, but a client may now get what it does not handle. */
  dangerous: boolean;
  message: string;
}

const breaks = (message: string): Change => ({ breaking: true, dangerous: false, message });
const safe = (message: string): Change => ({ breaking: false, dangerous: false, message });
const dangerous = (message: string): Change => ({ breaking: false, dangerous: true, message });
const change = (breaking: boolean, message: string): Change => (breaking ? breaks(message) : safe(message));

/** Compares a schema clients send (`input`) or receive (output). */
function compareSchemas(docs: [Json, Json], pair: [unknown, unknown], where: string, input: boolean, changes: Change[], seen: Set<string>): void {
  const [was, is] = [deref(docs[0], pair[0]), deref(docs[1], pair[1])];
  const key = `${JSON.stringify(pair[0])}>${JSON.stringify(pair[1])}>${input}`;
  if (seen.has(key)) return;
  seen.add(key);
  const [oldTypes, newTypes] = [typesOf(docs[0], was), typesOf(docs[1], is)];
  // A client sends what the old schema allowed: the new one must still allow it; it reads what the new one gives: the old one must have allowed it.
  const narrower = input ? (newTypes !== undefined && (oldTypes === undefined || !subset(oldTypes, newTypes))) : (oldTypes !== undefined && (newTypes === undefined || !subset(newTypes, oldTypes)));
  if (narrower) changes.push(breaks(`${where} changed type from ${[...(oldTypes ?? ['any'])].join(' | ')} to ${[...(newTypes ?? ['any'])].join(' | ')}`));
  if (Array.isArray(was.enum) && Array.isArray(is.enum)) {
    const [from, to] = [was.enum.map((v) => JSON.stringify(v)), is.enum.map((v) => JSON.stringify(v))];
    for (const value of from.filter((v) => !to.includes(v))) changes.push(change(input, `${where} no longer allows ${value}`));
    // A reader of a response may not handle the new value (graphql-inspector's "dangerous"); the server reads a request's.
    for (const value of to.filter((v) => !from.includes(v))) changes.push(input ? safe(`${where} now allows ${value}`) : dangerous(`${where} now allows ${value}`));
  }
  if (input && JSON.stringify(was.default) !== JSON.stringify(is.default)) {
    const [from, to] = [JSON.stringify(was.default), JSON.stringify(is.default)];
    changes.push(
      dangerous(was.default === undefined ? `${where} now has the default ${to}` : is.default === undefined ? `${where} no longer has the default ${from}` : `${where} changed its default from ${from} to ${to}`),
    );
  }
  const [oldProps, newProps] = [isObject(was.properties) ? was.properties : {}, isObject(is.properties) ? is.properties : {}];
  const [oldRequired, newRequired] = [new Set((was.required as string[] | undefined) ?? []), new Set((is.required as string[] | undefined) ?? [])];
  for (const name of Object.keys(oldProps)) {
    const at = `${where}.${name}`;
    if (!(name in newProps)) changes.push(change(!input, `${at} was removed`));
    else {
      if (input && !oldRequired.has(name) && newRequired.has(name)) changes.push(breaks(`${at} became required`));
      if (!input && oldRequired.has(name) && !newRequired.has(name)) changes.push(breaks(`${at} is no longer always present`));
      compareSchemas(docs, [oldProps[name], newProps[name]], at, input, changes, seen);
    }
  }
  for (const name of Object.keys(newProps)) {
    if (name in oldProps) continue;
    const required = input && newRequired.has(name);
    changes.push(change(required, `${where}.${name} was added${required ? ' (required)' : ''}`));
  }
  if (was.items !== undefined && is.items !== undefined) compareSchemas(docs, [was.items, is.items], `${where}[]`, input, changes, seen);
}

const jsonSchemaOf = (content: unknown): unknown => (isObject(content) ? (content['application/json'] as Json | undefined)?.schema : undefined);

/** The changes from `before` to `after` (two OpenAPI documents), breaking ones first, then dangerous ones. */
export function findOpenAPIChanges(before: unknown, after: unknown): Change[] {
  if (!isObject(before) || !isObject(after)) return [breaks('the document is not an OpenAPI object')];
  const changes: Change[] = [];
  const seen = new Set<string>();
  const docs: [Json, Json] = [before, after];
  const [oldPaths, newPaths] = [isObject(before.paths) ? before.paths : {}, isObject(after.paths) ? after.paths : {}];
  for (const [path, item] of Object.entries(oldPaths)) {
    for (const method of METHODS) {
      const was = isObject(item) ? item[method] : undefined;
      if (!isObject(was)) continue;
      const next = newPaths[path];
      const is = isObject(next) ? next[method] : undefined;
      const name = `${method.toUpperCase()} ${path}`;
      if (!isObject(is)) {
        changes.push(breaks(`${name}${typeof was.operationId === 'string' ? ` (${was.operationId})` : ''} was removed`));
        continue;
      }
      const params = (op: Json): Map<string, Json> =>
        new Map(((op.parameters as unknown[] | undefined) ?? []).map((p) => deref(docs[op === was ? 0 : 1], p)).map((p) => [`${String(p.in)} ${String(p.name)}`, p]));
      const [oldParams, newParams] = [params(was), params(is)];
      for (const [key, param] of newParams) {
        const old = oldParams.get(key);
        if (param.required === true && old?.required !== true) changes.push(breaks(`${name}: the ${key.replace(' ', ' parameter ')} became required`));
        else if (old === undefined) changes.push(safe(`${name}: the ${key.replace(' ', ' parameter ')} was added`));
        if (old !== undefined) compareSchemas(docs, [old.schema, param.schema], `${name} ${key.replace(' ', ' parameter ')}`, true, changes, seen);
      }
      for (const key of oldParams.keys()) if (!newParams.has(key)) changes.push(safe(`${name}: the ${key.replace(' ', ' parameter ')} was removed (clients sending it are not refused)`));
      const [oldBody, newBody] = [deref(before, was.requestBody), deref(after, is.requestBody)];
      if (newBody.required === true && oldBody.required !== true) changes.push(breaks(`${name}: the request body became required`));
      if (jsonSchemaOf(oldBody.content) !== undefined && jsonSchemaOf(newBody.content) !== undefined) {
        compareSchemas(docs, [jsonSchemaOf(oldBody.content), jsonSchemaOf(newBody.content)], `${name} body`, true, changes, seen);
      }
      const [oldResponses, newResponses] = [isObject(was.responses) ? was.responses : {}, isObject(is.responses) ? is.responses : {}];
      for (const [status, response] of Object.entries(oldResponses)) {
        if (!status.startsWith('2')) continue;
        const next = newResponses[status];
        if (next === undefined) changes.push(breaks(`${name} no longer answers ${status}`));
        else compareSchemas(docs, [jsonSchemaOf(deref(before, response).content), jsonSchemaOf(deref(after, next).content)], `${name} ${status} response`, false, changes, seen);
      }
    }
  }
  for (const [path, item] of Object.entries(newPaths)) {
    for (const method of METHODS) {
      const old = oldPaths[path];
      if (isObject(item) && isObject(item[method]) && !(isObject(old) && isObject(old[method]))) changes.push(safe(`${method.toUpperCase()} ${path} was added`));
    }
  }
  const rank = (found: Change): number => (found.breaking ? 0 : found.dangerous ? 1 : 2);
  return changes.map((found, index) => ({ found, index })).sort((a, b) => rank(a.found) - rank(b.found) || a.index - b.index).map(({ found }) => found);
}
