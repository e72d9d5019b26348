/**
 * @fw/validate — `validate()` and `createHandler()`: request validation with zod 3.25+/4 or any
 * Standard Schema validator, replacing body, query and params with the validated output; and
 * `defineOperation()`: one zod 4 definition served on REST, GraphQL and gRPC.
 */
export { createHandler } from './create-handler.js';
// The definition checks and type shapes load with the first call of defineOperation, not with the package.
export { defineOperation } from './lazy.js';
export { validate, TOO_DEEP_CODE, TOO_DEEP_MESSAGE } from './validate.js';
export type {
  AnyOperationDefinition,
  DefinedOperation,
  DefinedStreamOperation,
  InferOutput,
  OperationDefinition,
  OperationDefinitionBase,
  OperationHandler,
  OperationMethod,
  OperationRestDefinition,
  OperationGraphQLDefinition,
  OperationGrpcDefinition,
  OperationStreamGraphQLDefinition,
  OperationStreamRestDefinition,
  OperationUnaryGraphQLDefinition,
  Schema,
  StandardSchemaV1,
  StreamOperationDefinition,
  StreamOperationHandler,
  StreamRestOf,
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
  Zod4Input,
  Zod4ObjectSchema,
  Zod4Output,
  Zod4Schema,
} from './types.js';
