// What ../lazy.ts calls: the plugin and the modules it needs, loaded on the first call of `metricsPlugin`.
export { metricsPlugin } from '../plugin.js';
