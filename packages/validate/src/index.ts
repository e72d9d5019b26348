/**
 * @fw/validate — `validate()` and `createHandler()`: request validation with zod 3.25+/4 or any
 * Standard Schema validator, replacing body, query and params with the validated output.
 */
export { createHandler } from './create-handler.js';
export { validate, TOO_DEEP_CODE, TOO_DEEP_MESSAGE } from './validate.js';
export type {
  InferOutput,
  Schema,
  StandardSchemaV1,
  ValidatedBody,
  ValidatedContext,
  ValidatedHandler,
  ValidatedParams,
  ValidatedQuery,
  ValidatedRoute,
  ValidationErrorDetails,
  ValidationErrorEntry,
  ValidationMiddleware,
  ValidationPart,
  ValidationSchema,
  ZodLikeIssue,
  ZodLikeResult,
  ZodLikeSchema,
} from './types.js';
