import { toHTTPError, type Context } from '@fw/core';
import { isServerFault, type LogFunction } from '@fw/core/plugin';
import type { ResolvedGraphQLConfig } from '../config.js';
import { thrownResponse } from './answer.js';
import type { AcceptedMediaType } from './negotiation.js';

/** Gives the `contextValue` resolvers get for a request (or a promise of it), or the answer the context factory refused the request with. */
export type ContextStep = (ctx: Context, mediaType: AcceptedMediaType) => unknown;

/**
 * The step that makes resolvers' `context` for a request: the framework `Context` by default, the
 * configured fixed value, or what the factory returns (awaited when it is a promise). A factory
 * that throws refuses the request with the error's status, headers and (unless masked) message; an
 * error at 5xx is logged. A factory may also return an answer tuple, which is sent as it is
 * (graphql-http's rule).
 */
export function createContextStep(config: Pick<ResolvedGraphQLConfig, 'context' | 'contextValue' | 'hasContextValue' | 'maskErrors'>, log: LogFunction): ContextStep {
  const { context: factory, maskErrors } = config;
  if (factory === undefined) {
    const fixed = config.hasContextValue ? config.contextValue : undefined;
    return config.hasContextValue ? () => fixed : (ctx) => ctx;
  }
  return async (ctx: Context, mediaType: AcceptedMediaType): Promise<unknown> => {
    try {
      return await factory(ctx.req, ctx);
    } catch (err) {
      const error = toHTTPError(err);
      if (isServerFault(error)) log(`GraphQL context factory failed on ${ctx.method} ${ctx.path}`, err);
      return thrownResponse(err, error, maskErrors, mediaType);
    }
  };
}
