/**
 * @fw/openapi — an OpenAPI 3.1 document built from the routes' schemas and meta, a plugin that
 * serves it with an offline Swagger UI page, and a contract check of an app against its document.
 */
// The document builder and the contract check load with the first call of one of these, not with the package.
export { checkContract, openapi, openapiPlugin } from './lazy.js';
export type { InjectTarget } from './contract.js';
export { describeRoute } from './describe-route.js';
export type { DescribeRouteMiddleware, RouteDescription, RouteErrors } from './describe-route.js';
export { DEFAULT_INFO, DEFAULT_SECURITY_SCHEMES, OPENAPI_VERSION } from './defaults.js';
export type { RouteSource } from './document.js';
export { ERROR_COMPONENTS } from './internal/errors.js';
export { DEFAULT_SWAGGER_UI_OPTIONS } from './internal/docs-page.js';
export type { OpenAPIPlugin } from './plugin.js';
export type {
  ComponentsObject,
  ContractCheckOptions,
  ContractReport,
  ContractRequest,
  ContractResult,
  ConvertContext,
  HeaderObject,
  InfoObject,
  JSONSchema,
  MediaTypeObject,
  OpenAPIDocument,
  OpenAPIDocumentEntry,
  OpenAPIOptions,
  OpenAPIPluginConfig,
  OpenAPIWarning,
  OperationMethod,
  OperationObject,
  ParameterObject,
  PathItemObject,
  ReferenceObject,
  RequestBodyObject,
  ResponseObject,
  ResponseSpec,
  SchemaConverter,
  SchemaIO,
  SchemaPart,
  SecurityRequirementObject,
  SecuritySchemeObject,
  ServerObject,
  TagObject,
} from './types.js';
