import type { InfoObject, SecuritySchemeObject } from './types.js';

/** The OpenAPI version of the documents built here. */
export const OPENAPI_VERSION = '3.1.0';

/** `info` when none is given. */
export const DEFAULT_INFO: InfoObject = { title: 'API', version: '1.0.0' };

/** The security scheme routes with `meta.auth` require when no `securitySchemes` are given: a bearer token, as `authenticate` reads it. */
export const DEFAULT_SECURITY_SCHEMES: Record<string, SecuritySchemeObject> = {
  bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
};
