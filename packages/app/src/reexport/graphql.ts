/** `@fw/app/graphql`: everything `@fw/graphql` exports, for apps that install only `@fw/app`. */
export * from '@fw/graphql';
// The functions and classes are the root entry's own objects (the build points this import at
// `@fw/app` itself), so `import { x } from '@fw/app'` and from here give the same object.
export { createGraphQLHandler, findSchemaChanges, graphqlErrorCode, graphqlPlugin, validateGraphQLConfig } from '../index.js';
