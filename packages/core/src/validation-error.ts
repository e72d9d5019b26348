import { HTTPError, isHTTPError, VALIDATION_ERROR, type HTTPErrorOptions } from './http-error.js';

/** One refused field of a validation failure. */
export interface ValidationIssue {
  /** Where the field is: the part and the path inside it, joined with dots (`body.address.city`, `params.id`, `input.title`). */
  readonly field: string;
  /** A human-readable message. */
  readonly message: string;
  /** The validation library's issue code (`invalid_type`, `too_small`), when it has one. */
  readonly code?: string;
}

/** Options of `new ValidationError()`. */
export interface ValidationErrorOptions extends HTTPErrorOptions {
  /** The HTTP status: 400, or 422 for an API that answers well-formed but invalid input so. @default 400 */
  status?: 400 | 422;
}

/**
 * Input refused field by field: an `HTTPError` (400 unless `status` says 422) whose `details` are
 * `{ errors: [{ field, message, code? }] }`. `validate()` and an operation's input validation
 * throw it, and every protocol recognises it by its class: HTTP sends the standard error body,
 * the other protocols add their own description of the refused fields. Throw it from a handler
 * for field errors found later (a name already taken).
 * @example
 * throw new ValidationError([{ field: 'body.email', message: 'Already registered' }]);
 */
export class ValidationError extends HTTPError {
  /** The refused fields, in the order they were found. */
  declare readonly details: { readonly errors: readonly ValidationIssue[] };

  constructor(errors: readonly ValidationIssue[], message = 'Validation failed', options?: ValidationErrorOptions) {
    if (!Array.isArray(errors)) throw new TypeError('new ValidationError() expects the list of refused fields');
    super(options?.status === 422 ? 422 : 400, message, { errors }, options);
    this.name = 'ValidationError';
  }
}
Object.defineProperty(ValidationError.prototype, VALIDATION_ERROR, { value: true });

/** Whether a value is a ValidationError (also across copies of this package). Never throws. */
export function isValidationError(value: unknown): value is ValidationError {
  try {
    return value instanceof ValidationError || (isHTTPError(value) && (value as unknown as Record<symbol, unknown>)[VALIDATION_ERROR] === true);
  } catch {
    return false;
  }
}
