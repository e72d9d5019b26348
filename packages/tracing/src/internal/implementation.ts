// What ../lazy.ts calls: the plugin and the modules that use @opentelemetry/api at their top
// level, loaded on the first call of `tracingPlugin`.
export { tracingPlugin } from '../plugin.js';
