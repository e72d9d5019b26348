// `@fw/tracing`'s functions on the root entry, loaded on first use (see ../internal/lazy.ts); when
// `@fw/tracing` or @opentelemetry/api is not installed, the first call names the packages to install.
import type * as T from '@fw/tracing';
import { lazyFunction } from '../internal/lazy.js';
import { loadTracing as load } from '../internal/optional.js';

/** `@fw/tracing`'s `graphqlSpanName`, loaded on first use. */
export const graphqlSpanName: typeof T.graphqlSpanName = lazyFunction('graphqlSpanName', () => load().graphqlSpanName);
/** `@fw/tracing`'s `grpcSpanName`, loaded on first use. */
export const grpcSpanName: typeof T.grpcSpanName = lazyFunction('grpcSpanName', () => load().grpcSpanName);
/** `@fw/tracing`'s `httpSpanName`, loaded on first use. */
export const httpSpanName: typeof T.httpSpanName = lazyFunction('httpSpanName', () => load().httpSpanName);
/** `@fw/tracing`'s `isHttpServerError`, loaded on first use. */
export const isHttpServerError: typeof T.isHttpServerError = lazyFunction('isHttpServerError', () => load().isHttpServerError);
/** `@fw/tracing`'s `tracingPlugin`, loaded on first use. */
export const tracingPlugin: typeof T.tracingPlugin = lazyFunction('tracingPlugin', () => load().tracingPlugin);
