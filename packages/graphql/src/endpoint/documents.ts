import { GraphQLError, NoSchemaIntrospectionCustomRule, getOperationAST, parse, specifiedRules, validate, type DocumentNode, type GraphQLSchema, type ParseOptions, type ValidationRule } from 'graphql';
import type { ResolvedGraphQLConfig } from '../config.js';
import type { Executor, OperationPlan } from '../internal/executor.js';
import { checkDocumentLimits, oversizeBytes } from '../internal/limits.js';
import { LruCache } from '../internal/lru.js';
import type { GraphQLLimits } from '../types.js';
import { errorResponse, requestError, type HandlerResponse } from './answer.js';
import type { AcceptedMediaType } from './negotiation.js';

/** A parsed and validated document, with the operations requests picked from it. */
export interface PreparedDocument {
  readonly document: DocumentNode;
  /** By `operationName` (undefined: the document's only operation); only names the document defines. */
  readonly operations: Map<string | undefined, OperationPlan>;
}

/** Why a document is refused: an answer of its own (a limit) or graphql's errors (syntax, validation). */
export type DocumentRefusal = HandlerResponse | readonly GraphQLError[];

/**
 * The documents requests send, parsed, held to the limits and validated once each: kept in a
 * bounded LRU (unless `documentCache` is false) for the schema they were validated against. A
 * document leaving the cache takes its compiled operations with it; a new schema empties the cache.
 */
export class Documents {
  readonly #limits: Required<GraphQLLimits>;
  readonly #rules: readonly ValidationRule[];
  readonly #parseOptions: ParseOptions | undefined;
  readonly #executor: Executor;
  readonly #cache: LruCache<string, PreparedDocument> | undefined;
  /** The schema the cached documents were validated against. */
  #cachedFor: GraphQLSchema | undefined = undefined;

  constructor(config: Pick<ResolvedGraphQLConfig, 'limits' | 'documentCache' | 'introspection' | 'validationRules'>, executor: Executor) {
    const { limits, documentCache } = config;
    this.#limits = limits;
    this.#rules = [...specifiedRules, ...(config.introspection ? [] : [NoSchemaIntrospectionCustomRule]), ...config.validationRules];
    this.#parseOptions = limits.maxTokens === false ? undefined : { maxTokens: limits.maxTokens };
    this.#executor = executor;
    this.#cache =
      documentCache === false
        ? undefined
        : new LruCache<string, PreparedDocument>(documentCache.maxEntries, documentCache.maxSize, (prepared) => {
            for (const plan of prepared.operations.values()) executor.forget(plan);
          });
  }

  /** The document `query` is, validated against `schema` (from the cache, or prepared now), or why it is refused. */
  get(query: string, schema: GraphQLSchema, mediaType: AcceptedMediaType): PreparedDocument | DocumentRefusal {
    if (schema !== this.#cachedFor) {
      this.#cache?.clear();
      this.#executor.clear();
      this.#cachedFor = schema;
    }
    return this.#cache?.get(query) ?? this.#prepare(query, schema, mediaType);
  }

  /** Parses, checks the limits of and validates a document not in the cache. */
  #prepare(query: string, schema: GraphQLSchema, mediaType: AcceptedMediaType): PreparedDocument | DocumentRefusal {
    const limits = this.#limits;
    if (limits.maxDocumentSize !== false) {
      const bytes = oversizeBytes(query, limits.maxDocumentSize);
      if (bytes !== undefined) {
        return limitResponse('maxDocumentSize', `The query is too large: ${bytes} bytes exceeds the maximum of ${limits.maxDocumentSize} bytes.`, mediaType);
      }
    }
    let document: DocumentNode;
    try {
      document = parse(query, this.#parseOptions);
      const violation = checkDocumentLimits(document, limits);
      if (violation !== undefined) return limitResponse(violation.limit, violation.message, mediaType);
      const errors = validate(schema, document, this.#rules);
      if (errors.length > 0) return errors;
    } catch (err) {
      if (err instanceof GraphQLError) {
        // graphql reports its token limit as a syntax error; it is a size limit like the others.
        if (limits.maxTokens !== false && err.message.includes('tokens. Parsing aborted')) {
          return limitResponse('maxTokens', `The query is too large: it has more than ${limits.maxTokens} tokens, the maximum.`, mediaType);
        }
        return [err];
      }
      // The parser and some validation rules recurse: absurd nesting runs out of stack.
      if (err instanceof RangeError) return limitResponse('maxDepth', 'The query is nested too deeply to be parsed.', mediaType);
      throw err;
    }
    const prepared: PreparedDocument = { document, operations: new Map() };
    this.#cache?.set(query, prepared, documentWeight(query, document));
    return prepared;
  }
}

/** Whether `value` is a prepared document rather than a refusal (both refusals are arrays). */
export function isPrepared(value: PreparedDocument | DocumentRefusal): value is PreparedDocument {
  return !Array.isArray(value);
}

/** The operation of `prepared` a request names (undefined: the only one), looked up once per document and name. */
export function operationOf(prepared: PreparedDocument, name: string | undefined): OperationPlan | undefined {
  const plan = prepared.operations.get(name);
  if (plan === undefined) {
    const operation = getOperationAST(prepared.document, name);
    if (operation == null) return undefined;
    const created: OperationPlan = { operation, runs: 0, compiled: undefined };
    // Only names the document defines are kept, so a client cannot grow the map.
    prepared.operations.set(name, created);
    return created;
  }
  return plan;
}

function limitResponse(limit: keyof GraphQLLimits, message: string, mediaType: AcceptedMediaType): HandlerResponse {
  return errorResponse(400, [requestError(400, message, { limit })], mediaType);
}

/**
 * What a cached document weighs against `documentCache.maxSize`: its characters, or
 * `TOKEN_WEIGHT` per lexical token when that is more. A parsed document keeps about 450 bytes of
 * heap per token at most (a dense `{ a b c … }`), so the cache holds at most about 8 bytes of heap per unit.
 */
const TOKEN_WEIGHT = 64;

function documentWeight(query: string, document: DocumentNode): number {
  let tokens = 0;
  for (let token = document.loc?.startToken ?? null; token !== null; token = token.next) tokens += 1;
  return Math.max(query.length, tokens * TOKEN_WEIGHT);
}
