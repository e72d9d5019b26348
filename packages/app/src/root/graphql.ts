// `@fw/graphql`'s functions on the root entry, loaded on first use (see ../internal/lazy.ts); when
// `@fw/graphql` or graphql is not installed, the first call names the packages to install.
import type * as G from '@fw/graphql';
import { lazyFunction } from '../internal/lazy.js';
import { loadGraphQL as load } from '../internal/optional.js';

/** `@fw/graphql`'s `createGraphQLHandler`, loaded on first use. */
export const createGraphQLHandler: typeof G.createGraphQLHandler = lazyFunction('createGraphQLHandler', () => load().createGraphQLHandler);
/** `@fw/graphql`'s `graphqlErrorCode`, loaded on first use. */
export const graphqlErrorCode: typeof G.graphqlErrorCode = lazyFunction('graphqlErrorCode', () => load().graphqlErrorCode);
/** `@fw/graphql`'s `graphqlPlugin`, loaded on first use. */
export const graphqlPlugin: typeof G.graphqlPlugin = lazyFunction('graphqlPlugin', () => load().graphqlPlugin);
/** `@fw/graphql`'s `validateGraphQLConfig`, loaded on first use. */
export const validateGraphQLConfig: typeof G.validateGraphQLConfig = lazyFunction('validateGraphQLConfig', () => load().validateGraphQLConfig);
/** `@fw/graphql`'s `findSchemaChanges`, loaded on first use. */
export const findSchemaChanges: typeof G.findSchemaChanges = lazyFunction('findSchemaChanges', () => load().findSchemaChanges);
