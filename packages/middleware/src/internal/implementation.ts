// What the functions of ../lazy.ts call: the middleware factories, loaded on the first such call.
export { cors } from '../cors.js';
export { compress, isCompressibleType } from '../compress.js';
export { etag } from '../etag.js';
export { logger } from '../logger.js';
export { rateLimit } from '../rate-limit.js';
export { idempotency } from '../idempotency.js';
export { secureHeaders } from '../secure-headers.js';
export { jwtVerifier } from '../jwt.js';
