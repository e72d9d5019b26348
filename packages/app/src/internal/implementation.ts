// What ../lazy.ts calls: `emit` (the schema files and their checks) and `start` (the cluster
// primary), loaded on the first call of either.
export { emit } from '../emit.js';
export { start } from '../start/primary.js';
