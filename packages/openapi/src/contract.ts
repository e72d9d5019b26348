import type { InjectRequest, InjectResponse } from '@fw/core';
import { exampleFor } from './internal/example.js';
import type {
  ContractCheckOptions,
  ContractReport,
  ContractRequest,
  ContractResult,
  JSONSchema,
  OpenAPIDocument,
  OperationMethod,
  OperationObject,
  ParameterObject,
  PathItemObject,
  ReferenceObject,
  RequestBodyObject,
  ResponseObject,
} from './types.js';

/** What `checkContract` needs of the app: in-process requests (an `Application` has it). */
export interface InjectTarget {
  inject(request: InjectRequest): Promise<InjectResponse>;
}

const METHODS: readonly OperationMethod[] = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const DOCUMENT_ID = 'urn:fw:openapi-document';

interface Validator {
  (data: unknown): boolean;
  errors?: Array<{ instancePath: string; message?: string }> | null;
}

interface AjvLike {
  addSchema(schema: object): unknown;
  compile(schema: object): Validator;
}

/** The implementation of `checkContract`: the package exports ./lazy.ts's, which loads this on its first call. */
export async function checkContract(app: InjectTarget, document: OpenAPIDocument, options: ContractCheckOptions = {}): Promise<ContractReport> {
  const ajv = await createAjv(document);
  const compiled = new WeakMap<object, Validator>();
  const validatorFor = (schema: JSONSchema): Validator => {
    let validate = compiled.get(schema);
    if (validate === undefined) compiled.set(schema, (validate = ajv.compile(pointRefsAtDocument(schema) as object)));
    return validate;
  };
  const resolve = <T>(value: T | ReferenceObject): T | undefined => resolveRef(document, value);
  const basePath = options.basePath ?? serverPath(document);

  const results: ContractResult[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of Object.keys(item) as OperationMethod[]) {
      const operation = item[method];
      if (!METHODS.includes(method) || operation === undefined) continue;
      const operationId = operation.operationId ?? `${method} ${path}`;
      const given = options.operations?.[operationId];
      // A list checks one operation several times: its success and each documented error.
      const list = isRequestList(given) && given.length > 0 ? given : undefined;
      const requests: ReadonlyArray<ContractRequest> = list ?? (given === undefined || isRequestList(given) ? [{}] : [given]);
      for (const [index, request] of requests.entries()) {
        const result: ContractResult = { operationId, method: method.toUpperCase(), path, ok: false, skipped: false, errors: [] };
        if (list !== undefined) result.case = index + 1;
        results.push(result);
        await checkOperation(result, { app, document, method, path, item, operation, given: request, headers: options.headers ?? {}, basePath, resolve, validatorFor });
      }
    }
  }
  const failures = results.filter((result) => !result.ok);
  const summary = results
    .map((r) => {
      const head = `${r.ok ? '✓' : '✗'} ${r.method} ${r.path}${r.case === undefined ? '' : ` #${r.case}`}`;
      if (r.skipped) return `${head} (skipped${r.skipReason === undefined ? '' : `: ${r.skipReason}`})`;
      return r.ok ? `${head} → ${r.status}` : `${head}${r.status === undefined ? '' : ` → ${r.status}`}: ${r.errors.join('; ')}`;
    })
    .join('\n');
  return { ok: failures.length === 0, results, failures, summary };
}

/** Whether every success response of the operation is `text/event-stream` (an operation with `stream: true`). */
function answersEventStream(operation: OperationObject, resolve: <T>(value: T | ReferenceObject) => T | undefined): boolean {
  const success = Object.entries(operation.responses ?? {}).filter(([status]) => status.startsWith('2'));
  return success.length > 0 && success.every(([, response]) => {
    const content = resolve(response)?.content;
    return content !== undefined && Object.keys(content).length > 0 && Object.keys(content).every((type) => type === 'text/event-stream');
  });
}

/** Whether a case expects only statuses outside 2xx (an error answered before any event). */
function expectsError(status: number | number[] | undefined): boolean {
  if (status === undefined) return false;
  const statuses = Array.isArray(status) ? status : [status];
  return statuses.length > 0 && statuses.every((code) => code < 200 || code >= 300);
}

function isRequestList(given: ContractRequest | readonly ContractRequest[] | undefined): given is readonly ContractRequest[] {
  return Array.isArray(given);
}

interface OperationCheck {
  app: InjectTarget;
  document: OpenAPIDocument;
  method: OperationMethod;
  path: string;
  item: PathItemObject;
  operation: OperationObject;
  given: ContractRequest;
  headers: Record<string, string>;
  basePath: string;
  resolve: <T>(value: T | ReferenceObject) => T | undefined;
  validatorFor: (schema: JSONSchema) => Validator;
}

/** Sends one request for an operation and records in `result` what did not match. */
async function checkOperation(result: ContractResult, check: OperationCheck): Promise<void> {
  const { given, method, path, item, operation } = check;
  if (given.skip === true) {
    result.ok = true;
    result.skipped = true;
    return;
  }
  // A stream of server-sent events has no end to read a body to: its success case is skipped; the
  // errors it documents (answered before the first event, as JSON) are checked like any other.
  if (answersEventStream(operation, check.resolve) && !expectsError(given.status)) {
    result.ok = true;
    result.skipped = true;
    result.skipReason = 'a stream of server-sent events: check it with an event-stream client';
    return;
  }
  let request: InjectRequest;
  try {
    request = buildRequest(method, check.basePath + path, [...(item.parameters ?? []), ...(operation.parameters ?? [])], operation, given, check.headers, check.document);
  } catch (err) {
    result.errors.push(`could not build a request: ${err instanceof Error ? err.message : String(err)}`);
    return;
  }
  result.url = request.url;
  const response = await check.app.inject(request);
  result.status = response.statusCode;
  checkResponse(result, response, operation, given, check.resolve, check.validatorFor, method === 'head');
  result.ok = result.errors.length === 0;
}

function buildRequest(
  method: OperationMethod,
  template: string,
  parameters: Array<ParameterObject | ReferenceObject>,
  operation: OperationObject,
  given: ContractRequest,
  commonHeaders: Record<string, string>,
  document: OpenAPIDocument,
): InjectRequest {
  const example = (schema: JSONSchema | undefined): unknown => exampleFor(schema ?? {}, (ref) => resolveRef<JSONSchema>(document, { $ref: ref }));
  const params = new Map<string, string>();
  const query: Array<[string, string]> = [];
  const headers: Record<string, string> = { ...commonHeaders, ...given.headers };
  for (const ref of parameters) {
    const param = resolveRef(document, ref);
    if (param === undefined) throw new Error('a parameter $ref does not resolve');
    if (param.in === 'path') {
      const value = given.params?.[param.name] ?? paramExample(param, example);
      params.set(param.name, encodeURIComponent(String(value)));
    } else if (param.in === 'query') {
      const value = given.query?.[param.name] ?? (param.required === true ? paramExample(param, example) : undefined);
      if (value !== undefined) for (const v of Array.isArray(value) ? value : [value]) query.push([param.name, String(v)]);
    } else if (param.in === 'header' && param.required === true) {
      headers[param.name.toLowerCase()] ??= String(paramExample(param, example));
    }
  }
  // Query values the document does not list are sent too: the caller asked for them.
  for (const [name, value] of Object.entries(given.query ?? {})) {
    if (query.some(([n]) => n === name)) continue;
    for (const v of Array.isArray(value) ? value : [value]) query.push([name, String(v)]);
  }
  const path = template.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = params.get(name) ?? (given.params?.[name] === undefined ? undefined : encodeURIComponent(String(given.params[name])));
    if (value === undefined) throw new Error(`no value for path parameter "${name}"`);
    return value;
  });
  const search = query.length === 0 ? '' : `?${new URLSearchParams(query).toString()}`;
  const request: InjectRequest = { method: method.toUpperCase(), url: path + search, headers };
  let body = given.body;
  if (body === undefined && operation.requestBody !== undefined) {
    const requestBody = resolveRef<RequestBodyObject>(document, operation.requestBody);
    const media = requestBody?.content['application/json'];
    if (media !== undefined) body = media.example !== undefined ? media.example : example(media.schema);
  }
  if (body !== undefined) {
    headers['content-type'] ??= 'application/json';
    request.body = typeof body === 'string' ? JSON.stringify(body) : body;
  }
  return request;
}

function paramExample(param: ParameterObject, example: (schema: JSONSchema | undefined) => unknown): unknown {
  try {
    return param.example !== undefined ? param.example : example(param.schema);
  } catch (err) {
    throw new Error(`${param.in} parameter "${param.name}": ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
}

function checkResponse(
  result: ContractResult,
  response: InjectResponse,
  operation: OperationObject,
  given: ContractRequest,
  resolve: <T>(value: T | ReferenceObject) => T | undefined,
  validatorFor: (schema: JSONSchema) => Validator,
  head: boolean,
): void {
  const status = response.statusCode;
  const expected = given.status === undefined ? undefined : Array.isArray(given.status) ? given.status : [given.status];
  if (expected === undefined ? status < 200 || status > 299 : !expected.includes(status)) {
    result.errors.push(`expected ${expected === undefined ? 'a 2xx status' : expected.join(' or ')}, got ${status} ${snippet(response.body)}`);
  }
  const key = [String(status), `${String(status)[0]}XX`, 'default'].find((k) => operation.responses[k] !== undefined);
  if (key === undefined) {
    result.errors.push(`status ${status} is not documented`);
    return;
  }
  const documented = resolve<ResponseObject>(operation.responses[key]!);
  if (documented === undefined) {
    result.errors.push(`the response ${key} $ref does not resolve`);
    return;
  }
  const content = documented.content;
  if (content === undefined || Object.keys(content).length === 0) return;
  if (response.rawBody.length === 0) {
    if (!head && status !== 204 && status !== 304) result.errors.push(`response ${key} documents a body, but none was sent`);
    return;
  }
  const contentType = String(response.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  const mediaKey = Object.keys(content).find((media) => mediaMatches(media, contentType));
  if (mediaKey === undefined) {
    result.errors.push(`content type "${contentType}" is not documented for ${key} (documented: ${Object.keys(content).join(', ')})`);
    return;
  }
  const schema = content[mediaKey]!.schema;
  if (schema === undefined || !/[/+]json$/.test(contentType)) return;
  let body: unknown;
  try {
    body = JSON.parse(response.body);
  } catch {
    result.errors.push(`the ${contentType} body is not JSON: ${snippet(response.body)}`);
    return;
  }
  const validate = validatorFor(schema);
  if (!validate(body)) {
    const problems = (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath === '' ? '(body)' : e.instancePath} ${e.message ?? 'is invalid'}`);
    result.errors.push(`the body does not match the ${key} schema: ${problems.join(', ')} ${snippet(response.body)}`);
  }
}

function mediaMatches(documented: string, actual: string): boolean {
  const [type, sub] = documented.toLowerCase().split('/');
  const [actualType, actualSub] = actual.split('/');
  return (type === '*' || type === actualType) && (sub === '*' || sub === actualSub);
}

function snippet(body: string): string {
  return body.length > 200 ? `(${body.slice(0, 200)}…)` : `(${body})`;
}

/** The path part of the first server URL (`/api/v1` for a document whose prefix was stripped). */
function serverPath(document: OpenAPIDocument): string {
  const url = document.servers?.[0]?.url;
  if (url === undefined) return '';
  let path = url;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) {
    try {
      path = new URL(url).pathname;
    } catch {
      return '';
    }
  }
  return path.replace(/\/+$/, '');
}

/** Follows a local `$ref` (`#/components/...`) through the document; anything else is returned as it is. */
function resolveRef<T>(document: OpenAPIDocument, value: T | ReferenceObject): T | undefined {
  let current: unknown = value;
  for (let depth = 0; depth < 32; depth++) {
    const ref = (current as { $ref?: unknown } | null)?.$ref;
    if (typeof ref !== 'string') return current as T;
    if (!ref.startsWith('#/')) return undefined;
    current = ref
      .slice(2)
      .split('/')
      .map((segment) => decodeURIComponent(segment).replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce<unknown>((node, segment) => (node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[segment] : undefined), document);
    if (current === undefined) return undefined;
  }
  return undefined;
}

/** A copy whose `#/...` references point into the document added to ajv under DOCUMENT_ID. */
function pointRefsAtDocument(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(pointRefsAtDocument);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    out[key] = key === '$ref' && typeof child === 'string' && child.startsWith('#/') ? DOCUMENT_ID + child : pointRefsAtDocument(child);
  }
  return out;
}

async function createAjv(document: OpenAPIDocument): Promise<AjvLike> {
  let ajvModule: unknown;
  let formatsModule: unknown;
  try {
    [ajvModule, formatsModule] = await Promise.all([import('ajv/dist/2020.js'), import('ajv-formats')]);
  } catch (err) {
    throw new Error('checkContract needs the packages ajv and ajv-formats: npm install --save-dev ajv ajv-formats', { cause: err });
  }
  const Ajv2020 = interopDefault(ajvModule) as new (options: object) => AjvLike;
  const addFormats = interopDefault(formatsModule) as (ajv: AjvLike) => void;
  // strict: false — OpenAPI schemas may carry keywords JSON Schema does not know (example, xml, discriminator).
  const ajv = new Ajv2020({ strict: false, allErrors: true, logger: false });
  addFormats(ajv);
  ajv.addSchema({ $id: DOCUMENT_ID, components: { schemas: document.components?.schemas ?? {} } });
  return ajv;
}

/** The CommonJS export of a module loaded with `import()`, whichever way the module system wrapped it. */
function interopDefault(mod: unknown): unknown {
  let current = mod;
  for (let i = 0; i < 2; i++) {
    const inner = (current as { default?: unknown } | null)?.default;
    if (typeof current === 'function' || inner === undefined) break;
    current = inner;
  }
  return current;
}
