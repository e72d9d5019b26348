/** `@fw/app/tracing`: everything `@fw/tracing` exports, for apps that install only `@fw/app`. */
export * from '@fw/tracing';
// The functions and classes are the root entry's own objects (the build points this import at
// `@fw/app` itself), so `import { x } from '@fw/app'` and from here give the same object.
export { graphqlSpanName, grpcSpanName, httpSpanName, isHttpServerError, tracingPlugin } from '../index.js';
