/** `@fw/app/metrics`: everything `@fw/metrics` exports, for apps that install only `@fw/app`. */
export * from '@fw/metrics';
// The functions are the root entry's own objects (the build points this import at `@fw/app`
// itself), so `import { x } from '@fw/app'` and from here give the same object.
export { metricsPlugin } from '../index.js';
