// The functions of this package that build or check documents: each is this package's own
// function, and loads its implementation (internal/implementation.ts) on its first call.
// Importing @fw/openapi, as @fw/app's root does for every app, evaluates none of that code: a
// REST app that never documents itself never pays for it.
import type { InjectTarget } from './contract.js';
import type { RouteSource } from './document.js';
import type * as Implementation from './internal/implementation.js';
import type { OpenAPIPlugin } from './plugin.js';
import type { ContractCheckOptions, ContractReport, OpenAPIDocument, OpenAPIOptions, OpenAPIPluginConfig } from './types.js';

let implementation: typeof Implementation | undefined;
// eslint-disable-next-line @typescript-eslint/no-require-imports -- synchronous on purpose: openapi() and the plugin factory are synchronous
const load = (): typeof Implementation => (implementation ??= require('./internal/implementation.js') as typeof Implementation);

/**
 * Checks an app against its OpenAPI document: for every operation, builds a request from the
 * schemas (path parameters, required query parameters, the JSON body — from their examples,
 * defaults or types), sends it with `app.inject`, and checks that the status is the expected one
 * (any 2xx unless `operations[id].status` says otherwise) and documented, and that the body
 * validates against the documented response schema (ajv, JSON Schema 2020-12). Needs the optional
 * peers `ajv` and `ajv-formats`.
 * @example
 * const report = await checkContract(app, openapi(app), { headers: { authorization: `Bearer ${token}` } });
 * if (!report.ok) throw new Error(report.summary);
 */
export function checkContract(app: InjectTarget, document: OpenAPIDocument, options: ContractCheckOptions = {}): Promise<ContractReport> {
  return load().checkContract(app, document, options);
}

/**
 * Builds an OpenAPI 3.1 document from the routes of an app or router: one operation per route
 * (`:id` written `{id}`), parameters from the params and query schemas, the request body from the
 * body schema, responses from `schema.responses` / `meta.responses`, and the error bodies the
 * framework really sends. A schema that cannot be converted is documented as `{}` with a warning.
 * @example
 * const document = openapi(app, { info: { title: 'Bookstore', version: '1.0.0' } });
 */
export function openapi(source: RouteSource, options: OpenAPIOptions = {}): OpenAPIDocument {
  return load().openapi(source, options);
}

/**
 * Serves the OpenAPI document of the app's routes as JSON (default `/openapi.json`) and a Swagger
 * UI page (default `/docs`) whose files are bundled into the package at build time: no CDN, works
 * offline, strict CSP. The document is built on first request and rebuilt when the routes change.
 * @example
 * app.register(openapiPlugin({ info: { title: 'Bookstore', version: '1.0.0' } }));
 */
export function openapiPlugin(config: OpenAPIPluginConfig = {}): OpenAPIPlugin {
  return load().openapiPlugin(config);
}
