import { STATUS_CODES } from 'node:http';
import type { ComponentsObject, HeaderObject, JSONSchema, ReferenceObject, ResponseObject } from '../types.js';
import type { SchemaRegistry } from './components.js';

/** The names of the reusable error components in `components.schemas` / `components.responses`. */
export const ERROR_COMPONENTS = {
  errorBody: 'ErrorBody',
  validationErrorBody: 'ValidationErrorBody',
  validationError: 'ValidationError',
  unauthorized: 'Unauthorized',
  forbidden: 'Forbidden',
  notFound: 'NotFound',
  payloadTooLarge: 'PayloadTooLarge',
  tooManyRequests: 'TooManyRequests',
  internalServerError: 'InternalServerError',
} as const;

/** The rate-limit headers `rateLimit()` sends, as `components.headers`. */
export const RATE_LIMIT_HEADERS: Record<string, HeaderObject> = {
  'X-RateLimit-Limit': { description: 'Requests allowed per window.', schema: { type: 'integer', minimum: 0 } },
  'X-RateLimit-Remaining': { description: 'Requests left in the current window.', schema: { type: 'integer', minimum: 0 } },
  'X-RateLimit-Reset': { description: 'When the current window ends (ISO 8601).', schema: { type: 'string', format: 'date-time' } },
  'Retry-After': { description: 'Seconds until the client may retry.', schema: { type: 'integer', minimum: 0 } },
};

/** `{ error: true, message, code, details? }`: the body of every error the framework answers (`errorBody()` in core). */
const ERROR_BODY: JSONSchema = {
  type: 'object',
  description: 'The error body fw sends for every error: the status in `code`, a message safe to show, and `details` when the error carries them.',
  properties: {
    error: { const: true },
    message: { type: 'string' },
    code: { type: 'integer', minimum: 400, maximum: 599 },
    details: {},
  },
  required: ['error', 'message', 'code'],
};

/** The 400 `validate()` answers: `details.errors` lists every issue of every part. */
const VALIDATION_ERROR_BODY: JSONSchema = {
  type: 'object',
  description: 'The body of a failed validation: every issue of the body, query and params.',
  properties: {
    error: { const: true },
    message: { const: 'Validation failed' },
    code: { const: 400 },
    details: {
      type: 'object',
      properties: {
        errors: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              field: { type: 'string', description: 'The part and path: `body.<name>`, `query.<name>`, `params.<name>`.', examples: ['body.name'] },
              message: { type: 'string' },
              code: { type: 'string', description: "The validation library's issue code.", examples: ['invalid_type', 'too_small'] },
            },
            required: ['field', 'message', 'code'],
          },
        },
      },
      required: ['errors'],
    },
  },
  required: ['error', 'message', 'code', 'details'],
};

type ErrorKey = Exclude<keyof typeof ERROR_COMPONENTS, 'errorBody' | 'validationErrorBody'>;

interface ErrorResponse {
  status: number;
  description: string;
  validation?: boolean;
  headers?: string[];
}

const RESPONSES: Record<ErrorKey, ErrorResponse> = {
  validationError: {
    status: 400,
    description: 'The request did not validate (`details.errors` lists every issue), or its body could not be parsed.',
    validation: true,
  },
  unauthorized: { status: 401, description: 'No valid credentials: the bearer token is missing, malformed, invalid or expired.', headers: ['WWW-Authenticate'] },
  forbidden: { status: 403, description: 'The credentials are valid but lack the permissions (roles) this operation needs.' },
  notFound: { status: 404, description: 'No resource matches the path parameters.' },
  payloadTooLarge: { status: 413, description: "The request body is larger than the app's body limit." },
  tooManyRequests: { status: 429, description: 'Too many requests in the current window; retry after `Retry-After` seconds.', headers: ['Retry-After', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'] },
  internalServerError: { status: 500, description: 'An unexpected error. The body never carries a stack trace.' },
};

/** Adds the error components on first use and hands out `$ref`s to them. */
export class ErrorComponents {
  readonly responses: Record<string, ResponseObject> = {};
  readonly headers: Record<string, HeaderObject> = {};

  constructor(private readonly registry: SchemaRegistry) {}

  /** The status and a reference to the response component for `key`. */
  use(key: ErrorKey): { status: string; ref: ReferenceObject } {
    const name = ERROR_COMPONENTS[key];
    const spec = RESPONSES[key];
    if (this.responses[name] === undefined) {
      const errorBody = this.registry.define(ERROR_COMPONENTS.errorBody, ERROR_BODY);
      // A malformed JSON body is a 400 too, with the plain error body: either shape may come.
      const schema = spec.validation === true ? { anyOf: [this.registry.define(ERROR_COMPONENTS.validationErrorBody, VALIDATION_ERROR_BODY), errorBody] } : errorBody;
      const response: ResponseObject = { description: spec.description, content: { 'application/json': { schema } } };
      if (spec.headers !== undefined) {
        response.headers = {};
        for (const header of spec.headers) response.headers[header] = header === 'WWW-Authenticate' ? this.wwwAuthenticate() : this.header(header);
      }
      this.responses[name] = response;
    }
    return { status: String(spec.status), ref: { $ref: `#/components/responses/${name}` } };
  }

  /**
   * The response for an error status a route lists: the shared component when fw already has one
   * for that status (its description replaced when one is given), else the plain error body.
   */
  forStatus(status: number, description?: string): ResponseObject | ReferenceObject {
    const key = (Object.keys(RESPONSES) as ErrorKey[]).find((candidate) => RESPONSES[candidate].status === status);
    if (key !== undefined) {
      const { ref } = this.use(key);
      return description === undefined ? ref : { ...ref, description };
    }
    const schema = this.registry.define(ERROR_COMPONENTS.errorBody, ERROR_BODY);
    return { description: description ?? STATUS_CODES[status] ?? 'Error', content: { 'application/json': { schema } } };
  }

  /** A reference to one of the rate-limit headers. */
  header(name: string): ReferenceObject {
    this.headers[name] ??= structuredClone(RATE_LIMIT_HEADERS[name]!);
    return { $ref: `#/components/headers/${name}` };
  }

  private wwwAuthenticate(): ReferenceObject {
    this.headers['WWW-Authenticate'] ??= { description: 'The authentication challenge (`Bearer`, with `error="invalid_token"` for a rejected token).', schema: { type: 'string' } };
    return { $ref: '#/components/headers/WWW-Authenticate' };
  }

  /** What to merge into `components`. */
  components(): Pick<ComponentsObject, 'responses' | 'headers'> {
    const out: Pick<ComponentsObject, 'responses' | 'headers'> = {};
    if (Object.keys(this.responses).length > 0) out.responses = this.responses;
    if (Object.keys(this.headers).length > 0) out.headers = this.headers;
    return out;
  }
}
