import type { Middleware, RequestContext } from '@fw/core';
import type { OperationGraphQLDefinition as OperationGraphQL, OperationGrpcDefinition as OperationGrpc } from '../types.js';
import type { MultipartConfig, OperationBodyType } from '@fw/core';
import type { OperationRestDefinition } from '../types.js';
import { holdsFile, refusesStrings } from './string-fields.js';
import { isZod3, isZod4, kindOf, type ZodNode } from './zod4.js';

/**
 * The define-time checks of an operation definition. Each failure is a `TypeError` whose message
 * starts with `defineOperation("<name>"): ` and says what to change.
 */

/** A definition whose every part was checked: zod 4 schemas, frozen copies of the protocol fields. */
export interface CheckedDefinition {
  name: string;
  description: string | undefined;
  /** True when the operation is deprecated (a reason alone deprecates it too). */
  deprecated: boolean;
  deprecationReason: string | undefined;
  /** Former names, frozen; undefined when none are given. */
  aliases: readonly string[] | undefined;
  input: ZodNode;
  output: ZodNode;
  handler: (input: unknown, ctx: RequestContext) => unknown;
  /** A streaming operation: the handler yields events. */
  stream: boolean;
  middleware: ReadonlyArray<Middleware<RequestContext>>;
  /** The deadline of each call in ms; undefined for none. */
  timeout: number | undefined;
  rest: OperationRestDefinition | undefined;
  graphql: OperationGraphQL | undefined;
  grpc: OperationGrpc | undefined;
}

const NAME = /^[_A-Za-z][_0-9A-Za-z]*$/;
const PASCAL = /^[A-Z][A-Za-z0-9]*$/;
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
const METHODS: readonly string[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
const QUERY_METHODS = new Set(['GET', 'DELETE']);
const ZOD3 = "is a zod 3 schema: operations need zod 4 (import { z } from 'zod' with zod 4, or from 'zod/v4' with zod 3.25)";

const KEYS = {
  definition: ['name', 'description', 'deprecated', 'deprecationReason', 'aliases', 'input', 'output', 'stream', 'handler', 'middleware', 'timeout', 'rest', 'graphql', 'grpc'],
  rest: ['method', 'path', 'status', 'accepts', 'multipart'],
  graphql: ['type', 'args'],
  grpc: ['service', 'method'],
} as const;

/** The prefix of every definition error. */
export function errorPrefix(name: unknown): string {
  return typeof name === 'string' ? `defineOperation(${JSON.stringify(name)}): ` : 'defineOperation(): ';
}

/** Checks a definition; throws a `TypeError` naming the operation at the first mistake. */
export function checkDefinition(definition: unknown): CheckedDefinition {
  if (typeof definition !== 'object' || definition === null || Array.isArray(definition)) {
    throw new TypeError('defineOperation() expects a definition object { name, input, output, handler, ... }');
  }
  const given = definition as Record<string, unknown>;
  const prefix = errorPrefix(given.name);
  const fail = (message: string): never => {
    throw new TypeError(prefix + message);
  };
  if (typeof given.name !== 'string') return fail('name must be a string');
  if (!NAME.test(given.name)) fail(`name must match ${String(NAME)} (it is the GraphQL field name)`);
  unknownKeys(given, KEYS.definition, '', fail);
  if (given.description !== undefined && typeof given.description !== 'string') fail('description must be a string');
  const deprecation = deprecationOf(given, fail);
  const aliases = given.aliases === undefined ? undefined : aliasList(given.aliases, given.name, fail);
  const input = schema(given.input, 'input', fail);
  if (input._zod.def.type !== 'object') fail(`input must be a zod 4 object schema (z.object({ ... })), got ${kindOf(input)}`);
  const output = schema(given.output, 'output', fail);
  if (given.stream !== undefined && typeof given.stream !== 'boolean') fail(`stream must be true or false, got ${show(given.stream)}`);
  const stream = given.stream === true;
  if (typeof given.handler !== 'function') fail(stream ? 'handler must be an async generator function (async function* (input, ctx) { ... })' : 'handler must be a function');
  return {
    name: given.name,
    description: given.description as string | undefined,
    ...deprecation,
    aliases,
    input,
    output,
    handler: given.handler as CheckedDefinition['handler'],
    stream,
    middleware: middleware(given.middleware, fail),
    timeout: timeout(given.timeout, stream, fail),
    rest: given.rest === undefined ? undefined : rest(given.rest, input, stream, fail),
    graphql: given.graphql === undefined ? undefined : graphql(given.graphql, stream, input, fail),
    grpc: given.grpc === undefined ? undefined : grpc(given.grpc, fail),
  };
}

type Fail = (message: string) => never;

function unknownKeys(value: Record<string, unknown>, known: readonly string[], where: string, fail: Fail): void {
  for (const key of Object.keys(value)) if (!known.includes(key)) fail(`unknown key "${where}${key}"`);
}

function schema(value: unknown, part: 'input' | 'output', fail: Fail): ZodNode {
  if (isZod4(value)) return value;
  if (isZod3(value)) return fail(`${part} ${ZOD3}`);
  return fail(part === 'input' ? 'input must be a zod 4 object schema (z.object({ ... }))' : 'output must be a zod 4 schema');
}

function middleware(value: unknown, fail: Fail): ReadonlyArray<Middleware<RequestContext>> {
  if (value === undefined) return Object.freeze([]);
  if (!Array.isArray(value)) return fail('middleware must be an array of functions');
  for (const [i, fn] of (value as unknown[]).entries()) if (typeof fn !== 'function') fail(`middleware[${i}] must be a function`);
  return Object.freeze([...(value as Array<Middleware<RequestContext>>)]);
}

function timeout(value: unknown, stream: boolean, fail: Fail): number | undefined {
  if (value === undefined) return undefined;
  if (stream) fail('timeout is for unary operations: a stream is bounded by the app\'s streams.maxDuration');
  if (typeof value !== 'number' || !(value >= 0) || value > 2_147_483_647) fail(`timeout must be a number of milliseconds (0 for none), got ${show(value)}`);
  return value === 0 ? undefined : value;
}

function record(value: unknown, what: string, fail: Fail): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return fail(what);
  return value as Record<string, unknown>;
}

function rest(value: unknown, input: ZodNode, stream: boolean, fail: Fail): OperationRestDefinition {
  const given = record(value, stream ? 'rest must be an object { path, method? }' : 'rest must be an object { method, path, status? }', fail);
  unknownKeys(given, KEYS.rest, 'rest.', fail);
  const { path, status, accepts, multipart } = given;
  // A stream is read by EventSource, which sends GET.
  const method = stream && given.method === undefined ? 'GET' : given.method;
  if (stream && status !== undefined) fail('rest.status is not for streams: server-sent events are answered 200');
  if (typeof method !== 'string' || !METHODS.includes(method)) fail(`rest.method must be one of ${METHODS.join(', ')}, got ${show(method)}`);
  if (typeof path !== 'string' || !path.startsWith('/')) return fail(`rest.path must be a string starting with "/", got ${show(path)}`);
  if (status !== undefined && (typeof status !== 'number' || !Number.isInteger(status) || status < 200 || status > 299)) {
    fail(`rest.status must be an integer from 200 to 299, got ${show(status)}`);
  }
  if (accepts !== undefined) {
    if (!Array.isArray(accepts) || accepts.length === 0 || !(accepts as unknown[]).every((type) => type === 'json' || type === 'form' || type === 'multipart')) {
      fail(`rest.accepts must be a non-empty list of "json", "form" and "multipart", got ${showList(accepts)}`);
    }
    if (QUERY_METHODS.has(method)) fail(`rest.accepts is for POST, PUT and PATCH, which read a body; ${method} reads the query`);
  }
  const fields = (input._zod.def.shape ?? {}) as Record<string, unknown>;
  const files = Object.keys(fields).filter((key) => isZod4(fields[key]) && holdsFile(fields[key]));
  if (multipart !== undefined) {
    if (typeof multipart !== 'object' || multipart === null || Array.isArray(multipart)) fail('rest.multipart must be an object of limits ({ fileSize, files, ... })');
    if (QUERY_METHODS.has(method)) fail(`rest.multipart is for POST, PUT and PATCH, which read a body; ${method} reads the query`);
  }
  if (files.length > 0) {
    if (QUERY_METHODS.has(method)) fail(`input.${files[0]!}: a file is uploaded in a body (multipart/form-data): use POST, PUT or PATCH, not ${method}`);
    if (accepts !== undefined && !(accepts as unknown[]).includes('multipart')) {
      fail(`input.${files[0]!}: a file is uploaded as multipart/form-data: add "multipart" to rest.accepts`);
    }
  }
  const params = path.split('/').filter((segment) => segment.startsWith(':')).map((segment) => segment.slice(1));
  for (const param of params) {
    if (!Object.prototype.hasOwnProperty.call(fields, param)) {
      fail(`rest.path parameter ":${param}" is not a field of the input (fields: ${Object.keys(fields).join(', ') || 'none'})`);
    }
  }
  // Path params are strings, and so are query values: a field that refuses every string can never be valid there.
  const readsQuery = QUERY_METHODS.has(method);
  for (const [key, field] of Object.entries(fields)) {
    const isParam = params.includes(key);
    if (!isParam && !readsQuery) continue;
    const refusal = isZod4(field) ? refusesStrings(field) : undefined;
    if (refusal !== undefined) {
      fail(`input.${key}: ${refusal.kind} never accepts the string a REST ${isParam ? 'path' : 'query'} parameter is (use ${refusal.use})`);
    }
  }
  return Object.freeze({
    method: method as OperationRestDefinition['method'],
    path,
    ...(status === undefined ? {} : { status }),
    ...(accepts === undefined ? {} : { accepts: Object.freeze([...(accepts as OperationBodyType[])]) }),
    ...(multipart === undefined ? {} : { multipart: Object.freeze({ ...(multipart as MultipartConfig) }) }),
  });
}

/** `deprecated` and `deprecationReason`, named as a field's `.meta()` names them: a reason alone deprecates. */
function deprecationOf(given: Record<string, unknown>, fail: Fail): { deprecated: boolean; deprecationReason: string | undefined } {
  const { deprecated, deprecationReason } = given;
  if (deprecated !== undefined && typeof deprecated !== 'boolean') fail(`deprecated must be true or false, got ${show(deprecated)}`);
  if (deprecationReason === undefined) return { deprecated: deprecated === true, deprecationReason: undefined };
  if (typeof deprecationReason !== 'string' || deprecationReason.trim() === '') return fail(`deprecationReason must be a non-empty string, got ${show(deprecationReason)}`);
  if (deprecated === false) fail('deprecationReason is for a deprecated operation: drop deprecated: false');
  return { deprecated: true, deprecationReason };
}

/** The former names of a renamed operation: names as `name` is, none twice, not the name itself. */
function aliasList(value: unknown, name: string, fail: Fail): readonly string[] {
  if (!Array.isArray(value)) return fail(`aliases must be a list of the operation's former names, got ${showList(value)}`);
  const seen = new Set<string>();
  for (const [i, alias] of (value as unknown[]).entries()) {
    if (typeof alias !== 'string' || !NAME.test(alias)) fail(`aliases[${i}] must match ${String(NAME)} (a former operation name), got ${show(alias)}`);
    if (alias === name) fail(`aliases[${i}] is the operation's own name`);
    if (seen.has(alias)) fail(`aliases[${i}] ${show(alias)} is given twice`);
    seen.add(alias);
  }
  return Object.freeze([...(value as string[])]);
}

function graphql(value: unknown, stream: boolean, input: ZodNode, fail: Fail): OperationGraphQL {
  const given = record(value, 'graphql must be an object { type }', fail);
  const fields = (input._zod.def.shape ?? {}) as Record<string, unknown>;
  const file = Object.keys(fields).find((key) => isZod4(fields[key]) && holdsFile(fields[key]));
  if (file !== undefined) {
    fail(`input.${file}: a file (z.file()) cannot be served on GraphQL, which has no upload type: leave graphql out (REST takes it as multipart/form-data, gRPC as bytes)`);
  }
  unknownKeys(given, KEYS.graphql, 'graphql.', fail);
  if (stream) {
    if (given.type !== 'subscription') fail(`graphql.type of a streaming operation must be "subscription", got ${show(given.type)}`);
  } else if (given.type === 'subscription') {
    fail('graphql.type "subscription" is for streaming operations: add stream: true and make the handler an async generator');
  } else if (given.type !== 'query' && given.type !== 'mutation') fail(`graphql.type must be "query" or "mutation", got ${show(given.type)}`);
  const { args } = given;
  if (args !== undefined && args !== 'flat' && args !== 'input') fail(`graphql.args must be "flat" or "input", got ${show(args)}`);
  return Object.freeze({ type: given.type, ...(args === undefined ? {} : { args }) });
}

function grpc(value: unknown, fail: Fail): OperationGrpc {
  const given = record(value, 'grpc must be an object { service, method? }', fail);
  unknownKeys(given, KEYS.grpc, 'grpc.', fail);
  const { service, method } = given;
  if (typeof service !== 'string' || !isServiceName(service)) {
    fail(`grpc.service must be "<package>.<Service>" (e.g. "bookstore.Catalog"), got ${show(service)}`);
  }
  if (method !== undefined && (typeof method !== 'string' || !PASCAL.test(method))) {
    fail(`grpc.method must be a PascalCase identifier (e.g. "GetBook"), got ${show(method)}`);
  }
  return Object.freeze({ service: service, ...(method === undefined ? {} : { method: method }) });
}

/** `<package>.<Service>`: a (dotted) package of identifiers, then a PascalCase service name. */
function isServiceName(service: string): boolean {
  const parts = service.split('.');
  const last = parts.pop()!;
  return parts.length > 0 && parts.every((part) => IDENTIFIER.test(part)) && PASCAL.test(last);
}

function showList(value: unknown): string {
  if (!Array.isArray(value)) return show(value);
  try {
    return JSON.stringify(value);
  } catch {
    return 'a list that cannot be shown';
  }
}

function show(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}
