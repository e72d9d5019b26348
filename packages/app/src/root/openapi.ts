// `@fw/openapi`'s functions on the root entry, loaded on first use (see ../internal/lazy.ts).
import type * as O from '@fw/openapi';
import { lazyFunction } from '../internal/lazy.js';
import { loadOpenAPI as load } from '../internal/optional.js';

/** `@fw/openapi`'s `checkContract`, loaded on first use. */
export const checkContract: typeof O.checkContract = lazyFunction('checkContract', () => load().checkContract);
/** `@fw/openapi`'s `describeRoute`, loaded on first use. */
export const describeRoute: typeof O.describeRoute = lazyFunction('describeRoute', () => load().describeRoute);
/** `@fw/openapi`'s `openapi` (the document of an app), loaded on first use. */
export const openapi: typeof O.openapi = lazyFunction('openapi', () => load().openapi);
/** `@fw/openapi`'s `openapiPlugin`, loaded on first use. */
export const openapiPlugin: typeof O.openapiPlugin = lazyFunction('openapiPlugin', () => load().openapiPlugin);
