import { statusText, toHTTPError, type Context } from '@fw/core';
import { parseJSON } from '@fw/core/plugin';
import { MASKED_MESSAGE } from '../internal/errors.js';
import { badRequest, errorResponse, requestError, type HandlerResponse } from './answer.js';
import { UNSUPPORTED_MEDIA_TYPE, headerValue, isJsonContentType, type AcceptedMediaType } from './negotiation.js';
import { hashMatches, type PersistedQueries } from './persisted.js';

/** The GraphQL-over-HTTP parameters of a request, checked. */
export interface GraphQLParams {
  readonly query: string;
  readonly variables: Readonly<Record<string, unknown>> | null | undefined;
  readonly operationName: string | null | undefined;
  readonly extensions: Readonly<Record<string, unknown>> | null | undefined;
  /** The hash to keep the query under once its document validates (a persisted query sent with its text). */
  readonly persistAs: string | undefined;
}

/** The parameters as sent, before their checks. */
interface SentParams {
  query?: unknown;
  variables?: unknown;
  operationName?: unknown;
  extensions?: unknown;
}

/** Answers a method GraphQL over HTTP has no meaning for; HEAD is answered as GET. */
const METHOD_NOT_ALLOWED: HandlerResponse = Object.freeze([null, Object.freeze({ status: 405, statusText: statusText(405), headers: Object.freeze({ allow: 'GET, HEAD, POST' }) })] as const);

/**
 * Reads and checks the parameters of a request (`method`: HEAD read as GET), in graphql-http's
 * order and words, or answers why it cannot: the body with core's parser (its size limit, one read
 * even when middleware read it first), GET's `variables` and `extensions` with core's JSON rules
 * (the forbidden-key walk and the depth limit a body gets: `maxJsonDepth`, undefined for core's
 * default), and a persisted query's text from `persisted`.
 */
export async function readParams(
  ctx: Context,
  method: string,
  mediaType: AcceptedMediaType,
  maxJsonDepth: () => number | undefined,
  persisted: PersistedQueries,
): Promise<GraphQLParams | HandlerResponse> {
  let sent: SentParams;
  if (method === 'GET') {
    const url = ctx.url;
    const at = url.indexOf('?');
    const search = new URLSearchParams(at === -1 ? '' : url.slice(at + 1));
    sent = { query: search.get('query') ?? undefined, operationName: search.get('operationName') ?? undefined };
    for (const key of ['variables', 'extensions'] as const) {
      const text = search.get(key);
      if (text === null || text === '') continue;
      try {
        sent[key] = parseJSON(text, { maxDepth: maxJsonDepth() });
      } catch (err) {
        const error = toHTTPError(err);
        return errorResponse(400, [requestError(400, `The "${key}" parameter is not valid: ${error.expose ? error.message : 'unreadable JSON'}.`)], mediaType);
      }
    }
  } else if (method === 'POST') {
    if (!isJsonContentType(headerValue(ctx.headers['content-type']))) return UNSUPPORTED_MEDIA_TYPE;
    let body: unknown;
    try {
      body = await ctx.parseBody();
    } catch (err) {
      const error = toHTTPError(err);
      return errorResponse(error.statusCode, [requestError(error, error.expose ? error.message : MASKED_MESSAGE)], 'application/json', error.headers);
    }
    if (Array.isArray(body)) return badRequest('Batched requests are not supported: send one operation per request, as a JSON object.');
    if (body === undefined) return badRequest('Missing request body: POST a JSON object such as {"query": "{ __typename }"}.');
    if (body === null || typeof body !== 'object') return badRequest('The request body must be a JSON object with a "query" string.');
    sent = body;
  } else {
    return METHOD_NOT_ALLOWED;
  }
  const { variables, operationName, extensions } = sent;
  let query = sent.query;
  if (variables != null && (typeof variables !== 'object' || Array.isArray(variables))) return badRequest('Invalid variables');
  if (operationName != null && typeof operationName !== 'string') return badRequest('Invalid operationName');
  if (extensions != null && (typeof extensions !== 'object' || Array.isArray(extensions))) return badRequest('Invalid extensions');
  let persistAs: string | undefined;
  const extension = (extensions as { persistedQuery?: unknown } | null | undefined)?.persistedQuery;
  if (extension !== undefined) {
    const hash = persisted.hashOf(extension, mediaType);
    if (typeof hash !== 'string') return hash;
    if (query == null) {
      const stored = persisted.lookup(hash, mediaType);
      if (typeof stored !== 'string') return stored;
      query = stored;
    } else if (typeof query === 'string') {
      if (!hashMatches(query, hash)) return badRequest('provided sha does not match query');
      persistAs = hash;
    }
  }
  if (query == null) return badRequest('Missing query');
  if (typeof query !== 'string') return badRequest('Invalid query');
  return { query, variables: variables as GraphQLParams['variables'], operationName, extensions: extensions as GraphQLParams['extensions'], persistAs };
}
