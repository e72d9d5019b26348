/** `@fw/app/validate`: everything `@fw/validate` exports, for apps that install only `@fw/app`. */
export * from '@fw/validate';
// The functions and classes are the root entry's own objects (the build points this import at
// `@fw/app` itself), so `import { x } from '@fw/app'` and from here give the same object.
export { createHandler, defineOperation, validate } from '../index.js';
