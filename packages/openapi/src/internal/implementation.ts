// What the functions of ../lazy.ts call: the document builder, the schema converters, the docs
// page and the contract check, loaded on the first such call.
export { checkContract } from '../contract.js';
export { openapi } from '../document.js';
export { openapiPlugin } from '../plugin.js';
