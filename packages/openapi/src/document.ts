import { STATUS_CODES } from 'node:http';
import { isOperation, type HTTPMethod, type Operation, type Route } from '@fw/core';
import { defaultLog, readsBody, restBodyTypes, upperFirst } from '@fw/core/plugin';
import { accessMeta } from './internal/access-meta.js';
import { SchemaRegistry } from './internal/components.js';
import { acceptsUndefined, convertSchema, isPlainJSONSchema } from './internal/convert.js';
import { DEFAULT_INFO, DEFAULT_SECURITY_SCHEMES, OPENAPI_VERSION } from './defaults.js';
import { ErrorComponents } from './internal/errors.js';
import { ShapeSchema, shapeSchema } from './internal/shape-schema.js';
import { normalizePrefix, operationIdFor, planOperations, type PlannedOperation } from './internal/routes.js';
import type {
  ComponentsObject,
  HeaderObject,
  JSONSchema,
  OpenAPIDocument,
  OpenAPIOptions,
  OpenAPIWarning,
  OperationMethod,
  OperationObject,
  ParameterObject,
  ReferenceObject,
  RequestBodyObject,
  ResponseObject,
  ResponseSpec,
  SchemaIO,
  SchemaPart,
  SecuritySchemeObject,
  ServerObject,
  TagObject,
} from './types.js';

/** Anything with `getRoutes()` (an Application or a Router), or the routes themselves. */
export type RouteSource = { getRoutes(): Route[] } | readonly Route[];

const RESPONSE_SPEC_KEYS = new Set(['description', 'schema', 'contentType', 'headers']);

/** Statuses whose answers carry no body. */
const NO_BODY_STATUSES = new Set([204, 205, 304]);

type Convert = (value: unknown, part: SchemaPart, io: SchemaIO, name: string, datesAsStrings?: boolean) => JSONSchema;

/** Where warnings go without `onWarning`: fw's default log (one entry on stderr). */
const logWarning = (warning: OpenAPIWarning): void => defaultLog(`[@fw/openapi] ${warning.message}`);

/** The implementation of `openapi`: the package exports ./lazy.ts's, which loads this on its first call. */
export function openapi(source: RouteSource, options: OpenAPIOptions = {}): OpenAPIDocument {
  const routes = Array.isArray(source) ? (source as readonly Route[]) : (source as { getRoutes(): Route[] }).getRoutes();
  return new DocumentBuilder(options).build(routes);
}

class DocumentBuilder {
  private readonly registry = new SchemaRegistry();
  private readonly errors = new ErrorComponents(this.registry);
  private readonly operationIds = new Set<string>();
  private readonly tags: string[] = [];
  private readonly schemes: Record<string, SecuritySchemeObject>;
  private readonly schemeName: string | undefined;
  private securityUsed = false;
  // Routes share schemas (one response schema on many routes): each is converted once per side.
  // Operation inputs are cached apart: their dates are documented as strings. Operations' shapes are cached by shape.
  private readonly converted = { input: new WeakMap<object, JSONSchema>(), output: new WeakMap<object, JSONSchema>(), operationInput: new WeakMap<object, JSONSchema>() };
  private readonly fromShapes = { input: new WeakMap<object, JSONSchema>(), output: new WeakMap<object, JSONSchema>() };
  /**
   * Operations are documented from their type shapes (the ones GraphQL and gRPC are generated from),
   * unless the user asked for their own converter: then from their schemas, through it.
   */
  private readonly shapes: boolean;
  private readonly onWarning: (warning: OpenAPIWarning) => void;

  constructor(private readonly options: OpenAPIOptions) {
    this.onWarning = options.onWarning ?? logWarning;
    this.schemes = options.securitySchemes ?? DEFAULT_SECURITY_SCHEMES;
    this.schemeName = Object.keys(this.schemes)[0];
    this.shapes = options.convert === undefined && options.zodToJSONSchema === undefined;
  }

  build(routes: readonly Route[]): OpenAPIDocument {
    const paths: OpenAPIDocument['paths'] = {};
    const plan = planOperations(routes, this.options, (code, message, method, path) => this.warn(code, message, method, path));
    for (const planned of plan) {
      const item = (paths[planned.template] ??= {});
      item[planned.method.toLowerCase() as OperationMethod] = this.operation(planned);
    }
    const servers = this.servers();
    const document: OpenAPIDocument = {
      openapi: OPENAPI_VERSION,
      info: { ...(this.options.info ?? DEFAULT_INFO) },
      ...(servers === undefined ? {} : { servers }),
      paths,
    };
    const components = this.components();
    if (components !== undefined) document.components = components;
    const tags = this.documentTags();
    if (tags.length > 0) document.tags = tags;
    return document;
  }

  private warn(code: OpenAPIWarning['code'], message: string, method?: HTTPMethod, path?: string): void {
    const warning: OpenAPIWarning = { code, message };
    if (method !== undefined) warning.method = method;
    if (path !== undefined) warning.path = path;
    this.onWarning(warning);
  }

  private servers(): ServerObject[] | undefined {
    const prefix = normalizePrefix(this.options.prefix);
    const given = this.options.servers;
    if (prefix === '' || this.options.stripPrefix === false) return given?.map((server) => ({ ...server }));
    if (given === undefined || given.length === 0) return [{ url: prefix }];
    return given.map((server) => ({ ...server, url: server.url.replace(/\/+$/, '') + prefix }));
  }

  private operation(planned: PlannedOperation): OperationObject {
    const { route, method } = planned;
    const meta = route.meta ?? {};
    const schema = route.schema ?? {};
    // A route `app.operation()` registered is documented from its operation's schemas.
    const op = isOperation(meta.operation) && meta.operation.rest !== undefined ? meta.operation : undefined;
    const operationId = this.operationId(planned, meta.operationId ?? op?.name);
    const hint = upperFirst(operationId);
    const convert: Convert = (value, part, io, name, datesAsStrings = false) => {
      if (value instanceof ShapeSchema) {
        let converted = this.fromShapes[io].get(value.shape);
        if (converted === undefined) this.fromShapes[io].set(value.shape, (converted = shapeSchema(value.shape, io)));
        return this.registry.hoist(converted, hint + name, io);
      }
      const cacheable = typeof value === 'object' && value !== null && this.options.convert === undefined;
      const cache = cacheable ? this.converted[datesAsStrings ? 'operationInput' : io] : undefined;
      let converted = cache?.get(value as object);
      if (converted === undefined) {
        let warned = false;
        converted = convertSchema(
          value,
          { io, part, method, path: route.path },
          this.options,
          (code, message) => {
            warned = true;
            this.warn(code, message, method, route.path);
          },
          datesAsStrings,
        );
        // A schema with a warning is converted again for each route, so each route is named in one.
        if (!warned) cache?.set(value as object, converted);
      }
      return this.registry.hoist(converted, hint + name, io);
    };

    const operation: Omit<OperationObject, 'responses'> & { responses?: OperationObject['responses'] } = { operationId };
    if (typeof meta.summary === 'string') operation.summary = meta.summary;
    if (typeof meta.description === 'string') operation.description = meta.description;
    if (Array.isArray(meta.tags) && meta.tags.length > 0) {
      operation.tags = meta.tags.filter((tag): tag is string => typeof tag === 'string');
      for (const tag of operation.tags) if (!this.tags.includes(tag)) this.tags.push(tag);
    }
    // An operation's own deprecation (deprecated, or a deprecationReason) marks its route, as describeRoute() does.
    if (meta.deprecated === true || op?.deprecated === true) operation.deprecated = true;

    const input =
      op !== undefined
        ? this.operationInput(planned, op, convert)
        : {
            parameters: [
              ...this.pathParameters(planned, schema.params === undefined ? undefined : convert(schema.params, 'params', 'input', 'Params')),
              ...this.queryParameters(planned, schema.query === undefined ? undefined : convert(schema.query, 'query', 'input', 'Query')),
            ],
            requestBody:
              schema.body === undefined
                ? undefined
                : { required: !acceptsUndefined(schema.body), content: { 'application/json': { schema: convert(schema.body, 'body', 'input', 'Body') } } },
          };
    if (input.parameters.length > 0) operation.parameters = input.parameters;
    if (input.requestBody !== undefined) operation.requestBody = input.requestBody;
    // An operation validates its input and, on POST/PUT/PATCH, reads the body even when it documents none.
    const validated = op !== undefined || schema.body !== undefined || schema.query !== undefined || schema.params !== undefined;
    const takesBody = op !== undefined ? readsBody(method) : schema.body !== undefined;

    const success = op === undefined ? {} : this.operationResponse(op);
    const responses = this.documentedResponses(planned, { ...success, ...asRecord(meta.responses), ...asRecord(schema.responses) }, convert);
    // Listed errors are the route's own statement, so they are documented even with errorResponses: false.
    for (const [status, description] of this.listedErrors(planned, meta.errors)) responses[String(status)] ??= this.errors.forStatus(status, description);
    const access = accessMeta(meta);
    const auth = access.auth === true;
    const optionalAuth = !auth && access.authOptional === true;
    const rateLimited = access.rateLimited !== undefined && access.rateLimited !== false;
    if (this.options.errorResponses !== false) {
      const add = (key: Parameters<ErrorComponents['use']>[0]): void => {
        const { status, ref } = this.errors.use(key);
        responses[status] ??= ref;
      };
      if (validated) add('validationError');
      if (auth || optionalAuth) add('unauthorized');
      if (auth) add('forbidden');
      if (planned.templateNames.length > 0) add('notFound');
      if (takesBody) add('payloadTooLarge');
      if (rateLimited) add('tooManyRequests');
      add('internalServerError');
    }
    if (rateLimited) this.addRateLimitHeaders(responses);
    operation.responses = sortResponses(responses);
    if ((auth || optionalAuth) && this.schemeName !== undefined) {
      this.securityUsed = true;
      const roles = Array.isArray(access.roles) ? access.roles.filter((role): role is string => typeof role === 'string') : [];
      const required = this.options.security ?? [{ [this.schemeName]: roles }];
      // Optional authentication: a token is verified when sent, and the operation works without one.
      operation.security = auth ? required : [...required, {}];
    }
    const extra = meta.openapi;
    if (extra !== null && typeof extra === 'object' && !Array.isArray(extra)) Object.assign(operation, extra);
    return operation as OperationObject;
  }

  private operationId(planned: PlannedOperation, explicit: unknown): string {
    let base = operationIdFor(planned.method, planned.template);
    if (typeof explicit === 'string' && explicit !== '') {
      if (this.operationIds.has(explicit)) {
        this.warn('duplicate-operation-id', `operationId "${explicit}" of ${planned.method} ${planned.route.path} is already used; a suffix was added`, planned.method, planned.route.path);
      }
      base = explicit;
    }
    let id = base;
    for (let n = 2; this.operationIds.has(id); n++) id = `${base}_${n}`;
    this.operationIds.add(id);
    return id;
  }

  /**
   * An operation's input as REST carries it: the fields named by the route's `:params` as path
   * parameters, the others as query parameters (GET, DELETE, HEAD, OPTIONS) or as the JSON body
   * (POST, PUT, PATCH), as core's operation route merges them.
   */
  private operationInput(planned: PlannedOperation, op: Operation, convert: Convert): { parameters: ParameterObject[]; requestBody?: RequestBodyObject } {
    const fromBody = readsBody(planned.method);
    const input = convert(this.shapes ? new ShapeSchema(op.input) : op.schemas.input, fromBody ? 'body' : 'query', 'input', 'Input', true);
    const parameters = this.pathParameters(planned, input);
    const shape = this.objectShape(input);
    if (shape === undefined) {
      if (!fromBody) return { parameters: [...parameters, ...this.queryParameters(planned, input)] };
      return { parameters, requestBody: { required: false, content: bodyContent(op, input) } };
    }
    const fromPath = new Set(planned.routeNames);
    const names = Object.keys(shape.properties).filter((name) => !fromPath.has(name));
    const rest: JSONSchema = {
      type: 'object',
      properties: Object.fromEntries(names.map((name) => [name, shape.properties[name]!])),
      ...(shape.required.some((name) => !fromPath.has(name)) ? { required: shape.required.filter((name) => !fromPath.has(name)) } : {}),
    };
    if (!fromBody) return { parameters: [...parameters, ...this.queryParameters(planned, rest)] };
    if (names.length === 0) return { parameters };
    // Without path fields the input is the body as it is (a named schema stays a reference).
    const additional = this.registry.resolve(input).additionalProperties;
    const body = names.length === Object.keys(shape.properties).length ? input : additional === undefined ? rest : { ...rest, additionalProperties: additional };
    return { parameters, requestBody: { required: Array.isArray(rest.required), content: bodyContent(op, body) } };
  }

  /**
   * The success response of an operation: `rest.status` (200) with its output, or no body for 204;
   * a streaming operation's route answers 200 with server-sent events, each event's data one output value.
   */
  private operationResponse(op: Operation): Record<string, unknown> {
    const output = this.shapes ? new ShapeSchema(op.output) : op.schemas.output;
    if (op.stream === true) {
      return { '200': { description: 'A stream of server-sent events (text/event-stream): each event\'s `data` is one value of this schema as JSON, its `id` a resume point for `Last-Event-ID`; an `error` event carries the error body and ends the stream', schema: output, contentType: 'text/event-stream' } };
    }
    const status = op.rest?.status ?? 200;
    return { [String(status)]: NO_BODY_STATUSES.has(status) ? null : output };
  }

  private pathParameters(planned: PlannedOperation, schema: JSONSchema | undefined): ParameterObject[] {
    const shape = schema === undefined ? undefined : this.objectShape(schema);
    if (schema !== undefined && shape === undefined && Object.keys(schema).length > 0) {
      this.warn('params-not-object', `The params schema of ${planned.method} ${planned.route.path} is not an object schema; its path parameters are documented as strings`, planned.method, planned.route.path);
    }
    return planned.templateNames.map((name, i) => {
      const property = shape?.properties[planned.routeNames[i]!];
      return parameter(name, 'path', true, property ?? { type: 'string' });
    });
  }

  private queryParameters(planned: PlannedOperation, schema: JSONSchema | undefined): ParameterObject[] {
    if (schema === undefined || Object.keys(schema).length === 0) return [];
    const shape = this.objectShape(schema);
    if (shape === undefined) {
      this.warn('query-not-object', `The query schema of ${planned.method} ${planned.route.path} is not an object schema: no query parameters are documented`, planned.method, planned.route.path);
      return [];
    }
    return Object.entries(shape.properties).map(([name, property]) => {
      const resolved = this.registry.resolve(property);
      if (resolved.type === 'object') {
        this.warn('nested-query-parameter', `Query parameter "${name}" of ${planned.method} ${planned.route.path} is an object: query strings carry strings and repeated keys only`, planned.method, planned.route.path);
      }
      return parameter(name, 'query', shape.required.includes(name), property);
    });
  }

  /** The properties and required names of an object schema (through `$ref` and `allOf`), if it is one. */
  private objectShape(schema: JSONSchema): { properties: Record<string, JSONSchema>; required: string[] } | undefined {
    const resolved = this.registry.resolve(schema);
    if (Array.isArray(resolved.allOf)) {
      const parts = (resolved.allOf as JSONSchema[]).map((part) => this.objectShape(part));
      if (parts.some((part) => part === undefined)) return undefined;
      return {
        properties: Object.assign({}, ...parts.map((part) => part!.properties)) as Record<string, JSONSchema>,
        required: parts.flatMap((part) => part!.required),
      };
    }
    const properties = resolved.properties;
    if (resolved.type !== 'object' && (properties === null || typeof properties !== 'object')) return undefined;
    return {
      properties: properties !== null && typeof properties === 'object' ? (properties as Record<string, JSONSchema>) : {},
      required: Array.isArray(resolved.required) ? (resolved.required as string[]) : [],
    };
  }

  private documentedResponses(
    planned: PlannedOperation,
    specs: Record<string, unknown>,
    convert: (value: unknown, part: SchemaPart, io: SchemaIO, name: string) => JSONSchema,
  ): Record<string, ResponseObject | ReferenceObject> {
    const responses: Record<string, ResponseObject | ReferenceObject> = {};
    for (const [status, spec] of Object.entries(specs)) {
      if (!/^(?:[1-5](?:\d\d|XX)|default)$/.test(status)) {
        this.warn('unconvertible-schema', `Response key "${status}" of ${planned.method} ${planned.route.path} is not a status code, a range such as 2XX, or "default"; it is left out`, planned.method, planned.route.path);
        continue;
      }
      const code = Number(status);
      const fallback = Number.isInteger(code) ? (STATUS_CODES[code] ?? 'Response') : status === 'default' ? 'Any other response' : 'Response';
      const part = `response ${Number.isInteger(code) ? code : 0}` as SchemaPart;
      const name = `Response${status === 'default' ? 'Default' : status}`;
      if (spec === null || spec === undefined) {
        responses[status] = { description: fallback };
      } else if (isResponseSpec(spec)) {
        const response: ResponseObject = { description: spec.description };
        if (spec.headers !== undefined) response.headers = { ...spec.headers };
        if (spec.schema !== undefined && spec.schema !== null) {
          response.content = { [spec.contentType ?? 'application/json']: { schema: convert(spec.schema, part, 'output', name) } };
        }
        responses[status] = response;
      } else {
        responses[status] = { description: fallback, content: { 'application/json': { schema: convert(spec, part, 'output', name) } } };
      }
    }
    if (!Object.keys(responses).some((status) => status.startsWith('2'))) {
      responses['2XX'] = { description: 'Success (the response body is not documented)' };
    }
    return responses;
  }

  /** The statuses of `meta.errors` (a list, or descriptions by status); anything but 400–599 is warned about. */
  private listedErrors(planned: PlannedOperation, errors: unknown): Array<[number, string | undefined]> {
    let entries: Array<[unknown, unknown]>;
    if (Array.isArray(errors)) entries = errors.map((status: unknown) => [status, undefined]);
    else if (errors !== null && typeof errors === 'object') entries = Object.entries(errors);
    else return [];
    const listed: Array<[number, string | undefined]> = [];
    for (const [key, description] of entries) {
      const status = typeof key === 'string' && /^\d+$/.test(key) ? Number(key) : key;
      if (typeof status !== 'number' || !Number.isInteger(status) || status < 400 || status > 599) {
        this.warn('invalid-error-status', `Error status ${String(key)} of ${planned.method} ${planned.route.path} is not a status from 400 to 599; it is left out`, planned.method, planned.route.path);
        continue;
      }
      listed.push([status, typeof description === 'string' && description !== '' ? description : undefined]);
    }
    return listed;
  }

  private addRateLimitHeaders(responses: Record<string, ResponseObject | ReferenceObject>): void {
    for (const [status, response] of Object.entries(responses)) {
      if (!status.startsWith('2') || '$ref' in response) continue;
      const headers: Record<string, HeaderObject | ReferenceObject> = { ...response.headers };
      for (const name of ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']) headers[name] ??= this.errors.header(name);
      response.headers = headers;
    }
  }

  private components(): ComponentsObject | undefined {
    const components: ComponentsObject = {};
    if (Object.keys(this.registry.schemas).length > 0) components.schemas = { ...this.registry.schemas };
    Object.assign(components, this.errors.components());
    if (this.securityUsed || this.options.securitySchemes !== undefined) components.securitySchemes = structuredClone(this.schemes);
    return Object.keys(components).length > 0 ? components : undefined;
  }

  private documentTags(): TagObject[] {
    const given = this.options.tags ?? [];
    const tags = given.map((tag) => ({ ...tag }));
    for (const name of this.tags) if (!tags.some((tag) => tag.name === name)) tags.push({ name });
    return tags;
  }
}

/** A parameter for a property schema; its description and first example move up to the parameter, where Swagger UI shows them. */
function parameter(name: string, location: 'path' | 'query', required: boolean, property: JSONSchema): ParameterObject {
  const { description, ...schema } = property;
  const param: ParameterObject = { name, in: location, required, schema };
  if (typeof description === 'string') param.description = description;
  const examples = property.examples;
  if (Array.isArray(examples) && examples.length > 0) param.example = examples[0];
  return param;
}

/** A plain `{ description, schema?, contentType?, headers? }` object and nothing else. */
function isResponseSpec(value: unknown): value is ResponseSpec {
  if (!isPlainJSONSchema(value) || typeof value.description !== 'string') return false;
  return Object.keys(value).every((key) => RESPONSE_SPEC_KEYS.has(key));
}

function asRecord(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** 200, 201, 2XX, 400, ..., 4XX, 500, 5XX, default. */
function sortResponses<T>(responses: Record<string, T>): Record<string, T> {
  const rank = (status: string): number => (status === 'default' ? 1000 : status.endsWith('XX') ? Number(status[0]) * 100 + 99.5 : Number(status));
  const sorted: Record<string, T> = {};
  for (const status of Object.keys(responses).sort((a, b) => rank(a) - rank(b))) sorted[status] = responses[status]!;
  return sorted;
}

/**
 * The media types an operation's body is documented with: JSON, and `multipart/form-data` when its
 * route takes one (an input with a file field does by default; a file field is a `format: binary` string there).
 */
function bodyContent(op: Operation, schema: JSONSchema): Record<string, { schema: JSONSchema }> {
  const types = restBodyTypes(op);
  const content: Record<string, { schema: JSONSchema }> = {};
  if (types.includes('json') || types.includes('form')) content['application/json'] = { schema };
  if (types.includes('multipart')) content['multipart/form-data'] = { schema };
  return content;
}
