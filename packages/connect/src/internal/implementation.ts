// What ../lazy.ts calls: the modules that use @bufbuild/protobuf, loaded on the first such call.
export { connectPlugin } from '../plugin.js';
