import type { HTTPMethod, Route } from '@fw/core';

/** A JSON Schema (2020-12, the dialect of OpenAPI 3.1) as a plain object. */
export interface JSONSchema {
  [keyword: string]: unknown;
}

/** OpenAPI `info`. */
export interface InfoObject {
  title: string;
  version: string;
  summary?: string;
  description?: string;
  termsOfService?: string;
  contact?: { name?: string; url?: string; email?: string };
  license?: { name: string; identifier?: string; url?: string };
  [extension: `x-${string}`]: unknown;
}

/** OpenAPI `servers` entry. */
export interface ServerObject {
  url: string;
  description?: string;
  variables?: Record<string, { default: string; enum?: string[]; description?: string }>;
}

/** OpenAPI `tags` entry. */
export interface TagObject {
  name: string;
  description?: string;
  externalDocs?: { url: string; description?: string };
}

/** An OpenAPI Security Scheme Object (http bearer, apiKey, oauth2, openIdConnect, ...). */
export interface SecuritySchemeObject {
  type: 'apiKey' | 'http' | 'mutualTLS' | 'oauth2' | 'openIdConnect';
  description?: string;
  name?: string;
  in?: 'query' | 'header' | 'cookie';
  scheme?: string;
  bearerFormat?: string;
  flows?: Record<string, unknown>;
  openIdConnectUrl?: string;
}

/** An OpenAPI security requirement: scheme name → scopes (or role names). */
export type SecurityRequirementObject = Record<string, string[]>;

/** A `$ref` to a reusable component. */
export interface ReferenceObject {
  $ref: string;
  summary?: string;
  description?: string;
}

/** An OpenAPI Parameter Object (path and query parameters are generated). */
export interface ParameterObject {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  description?: string;
  deprecated?: boolean;
  style?: string;
  explode?: boolean;
  schema?: JSONSchema;
  example?: unknown;
}

/** An OpenAPI Media Type Object. */
export interface MediaTypeObject {
  schema?: JSONSchema;
  example?: unknown;
  examples?: Record<string, unknown>;
}

/** An OpenAPI Header Object. */
export interface HeaderObject {
  description?: string;
  required?: boolean;
  schema?: JSONSchema;
}

/** An OpenAPI Response Object. */
export interface ResponseObject {
  description: string;
  headers?: Record<string, HeaderObject | ReferenceObject>;
  content?: Record<string, MediaTypeObject>;
}

/** An OpenAPI Request Body Object. */
export interface RequestBodyObject {
  description?: string;
  required?: boolean;
  content: Record<string, MediaTypeObject>;
}

/** An OpenAPI Operation Object. */
export interface OperationObject {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  deprecated?: boolean;
  parameters?: Array<ParameterObject | ReferenceObject>;
  requestBody?: RequestBodyObject | ReferenceObject;
  responses: Record<string, ResponseObject | ReferenceObject>;
  security?: SecurityRequirementObject[];
  externalDocs?: { url: string; description?: string };
  [extension: `x-${string}`]: unknown;
}

/** The lower-case method keys of an OpenAPI Path Item. */
export type OperationMethod = 'get' | 'put' | 'post' | 'delete' | 'options' | 'head' | 'patch' | 'trace';

/** An OpenAPI Path Item Object. */
export type PathItemObject = Partial<Record<OperationMethod, OperationObject>> & { summary?: string; description?: string; parameters?: ParameterObject[] };

/** An OpenAPI Components Object. */
export interface ComponentsObject {
  schemas?: Record<string, JSONSchema>;
  responses?: Record<string, ResponseObject>;
  parameters?: Record<string, ParameterObject>;
  requestBodies?: Record<string, RequestBodyObject>;
  headers?: Record<string, HeaderObject>;
  securitySchemes?: Record<string, SecuritySchemeObject>;
}

/** An OpenAPI 3.1 document, as `openapi()` builds it. */
export interface OpenAPIDocument {
  openapi: string;
  info: InfoObject;
  servers?: ServerObject[];
  paths: Record<string, PathItemObject>;
  components?: ComponentsObject;
  tags?: TagObject[];
  security?: SecurityRequirementObject[];
  externalDocs?: { url: string; description?: string };
  [extension: `x-${string}`]: unknown;
}

/** Which side of a schema is documented: what the client sends, or what the server answers. */
export type SchemaIO = 'input' | 'output';

/** Where a schema sits on the route: a request part, or the response of a status. */
export type SchemaPart = 'body' | 'query' | 'params' | `response ${number}`;

/** What a custom converter is told about the schema it is asked to convert. */
export interface ConvertContext {
  /** `input` for request parts (coercions and defaults apply to the input), `output` for responses. */
  io: SchemaIO;
  part: SchemaPart;
  method: HTTPMethod;
  path: string;
}

/**
 * Turns a schema into JSON Schema: return `undefined` to let the built-in conversion try (zod 4,
 * Standard JSON Schema, valibot); throw to have the schema documented as `{}` with a warning.
 */
export type SchemaConverter = (schema: unknown, context: ConvertContext) => JSONSchema | undefined;

/** Why something could not be documented exactly; the document is still built. */
export interface OpenAPIWarning {
  code:
    | 'unconvertible-schema'
    | 'unrepresentable-type'
    | 'query-not-object'
    | 'params-not-object'
    | 'duplicate-operation-id'
    | 'shadowed-route'
    | 'path-param-names'
    | 'nested-query-parameter'
    | 'invalid-error-status';
  message: string;
  method?: HTTPMethod;
  path?: string;
}

/**
 * A documented response, as `schema.responses` / `meta.responses` may give it per status:
 * a schema (zod, Standard Schema, or a plain JSON Schema object), `null` for no body, or this
 * descriptor for a description, headers or another content type.
 */
export interface ResponseSpec {
  /** What the response means. @default the status text (`OK`, `Not Found`, ...) */
  description: string;
  /** The body schema; `null` or absent for no body. */
  schema?: unknown;
  /** The media type of the body. @default 'application/json' */
  contentType?: string;
  /** Response headers, by name. */
  headers?: Record<string, HeaderObject>;
}

/** Options of `openapi()` (and of `openapiPlugin()`, which passes them on). */
export interface OpenAPIOptions {
  /** The document's `info`. @default { title: 'API', version: '1.0.0' } */
  info?: InfoObject;
  /** The document's `servers`. With `prefix` (and `stripPrefix`), the prefix is appended to each URL. @default none (same origin); `[{ url: prefix }]` with a stripped prefix */
  servers?: ServerObject[];
  /** Security schemes. Routes whose `meta.auth` is true require the first one. @default { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } */
  securitySchemes?: Record<string, SecuritySchemeObject>;
  /** The requirement set on routes whose `meta.auth` is true. @default [{ <first scheme>: meta.roles ?? [] }] */
  security?: SecurityRequirementObject[];
  /** Only document the routes under this path prefix (`/api/v1`). @default none (every route) */
  prefix?: string;
  /** With `prefix`: write paths without it and move it into `servers`. @default true */
  stripPrefix?: boolean;
  /** Descriptions for tags (tags used by routes are listed in any case). @default [] */
  tags?: TagObject[];
  /** Document only the routes for which this returns true (after `prefix` and `meta.hidden`). @default every route */
  include?: (route: Route) => boolean;
  /** Document the error bodies the framework sends (400, 401, 403, 404, 413, 429, 500). @default true */
  errorResponses?: boolean;
  /** Tried before the built-in conversion for every schema (e.g. zod-to-json-schema for zod 3). @default none */
  convert?: SchemaConverter;
  /**
   * zod's `z.toJSONSchema`, for zod 4 schemas that carry no converter of their own (zod 4.0/4.1, and
   * `zod/v4` inside zod 3.25). Newer zod schemas convert themselves. @default none
   */
  zodToJSONSchema?: (schema: never, params: Record<string, unknown>) => unknown;
  /** Receives each warning. @default writes `[@fw/openapi] <message>` to fw's default log (the plugin: the app's onLog) */
  onWarning?: (warning: OpenAPIWarning) => void;
}

/** One document the plugin serves besides (or instead of) the main one: e.g. one per version prefix. */
export interface OpenAPIDocumentEntry extends OpenAPIOptions {
  /** Shown in the docs page's document selector. */
  name: string;
  /** Where the document is served (`/api/v1/openapi.json`). */
  path: string;
}

/** Options of `openapiPlugin()`: where to serve the document and the docs page, plus `openapi()`'s options. */
export interface OpenAPIPluginConfig extends OpenAPIOptions {
  /** The plugin's name (register several under different names). @default 'openapi' */
  name?: string;
  /** Where the JSON document is served; `false` serves only `documents`. @default '/openapi.json' */
  path?: string | false;
  /** Where the Swagger UI page is served; its files are served under it; `false` for no page. @default '/docs' */
  docsPath?: string | false;
  /** More documents, each with its own options (typically `prefix`), listed in the docs page's selector. @default [] */
  documents?: OpenAPIDocumentEntry[];
  /** The docs page's `<title>`. @default info.title */
  docsTitle?: string;
  /** Extra Swagger UI options (JSON values only: the page's CSP allows no inline script). @default {} */
  swaggerUI?: Record<string, unknown>;
}

/** One operation's request in a contract check, given by the caller instead of the generated example. */
export interface ContractRequest {
  /** Path parameter values by name (replace the examples). */
  params?: Record<string, string | number>;
  /** Query values by name (replace the examples of required parameters). */
  query?: Record<string, string | number | boolean | Array<string | number | boolean>>;
  /** The JSON body (replaces the example). */
  body?: unknown;
  /** Request headers (added to the common `headers`). */
  headers?: Record<string, string>;
  /** The status (or statuses) expected; else any 2xx. */
  status?: number | number[];
  /** Leave this operation out of the check. */
  skip?: boolean;
}

/** Options of `checkContract()`. */
export interface ContractCheckOptions {
  /** Headers sent with every request (e.g. `authorization`). @default {} */
  headers?: Record<string, string>;
  /**
   * Requests (or expectations) per operationId. A list sends one request per entry, in order, so
   * one operation can be checked on its success and on each error it documents. @default {}
   */
  operations?: Record<string, ContractRequest | readonly ContractRequest[]>;
  /** Path prepended to every documented path. @default the path of the document's first server URL, else '' */
  basePath?: string;
}

/** How one documented operation fared in a contract check. */
export interface ContractResult {
  operationId: string;
  method: string;
  /** The documented path template. */
  path: string;
  /** The position (from 1) of the request in the operation's list, when `operations[id]` is a list. */
  case?: number;
  /** The URL requested (absent when skipped or when no request could be built). */
  url?: string;
  status?: number;
  ok: boolean;
  skipped: boolean;
  /** Why the check skipped the request on its own (a success case that is an endless event stream). */
  skipReason?: string;
  /** What did not match: empty when `ok`. */
  errors: string[];
}

/** The outcome of `checkContract()`. */
export interface ContractReport {
  /** True when every checked operation passed. */
  ok: boolean;
  results: ContractResult[];
  /** The results that did not pass. */
  failures: ContractResult[];
  /** One line per request: `✓ GET /books/{id} → 200`, `✓ POST /orders #2 → 409` (a list), or `✗ ...: reasons`. */
  summary: string;
}
