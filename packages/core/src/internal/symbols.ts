/**
 * The members core's classes share with each other across files, keyed by symbols that only core
 * imports (as fastify keeps its internals behind the names of one `symbols.js`). Nothing outside
 * core can reach them by name, and they are stripped from the published types. A member that only
 * its own class uses is a `#` private of that class instead.
 */

// Context, for the pipeline, the router and the responder: the request's answer as they hand it on.

/** `ctx[SETTLE]()`: records the standard 404 unless something answered (the one "nothing answered" rule). */
export const SETTLE: unique symbol = Symbol('fw.settle');
/** `ctx[NOT_FOUND]()`: records the standard 404 over whatever was recorded (a path no route has). */
export const NOT_FOUND: unique symbol = Symbol('fw.notFound');
/** `ctx[NEEDS_BODY]`: whether the body still has to be read before the route's chain runs. */
export const NEEDS_BODY: unique symbol = Symbol('fw.needsBody');
/** `ctx[RAW_IN_USE]()`: whether the handler took over the raw response. */
export const RAW_IN_USE: unique symbol = Symbol('fw.rawInUse');
/** `ctx[UNANSWERED]()`: whether the recorded answer is the standard 404 of "nothing answered" (no handler's own 404). */
export const UNANSWERED: unique symbol = Symbol('fw.unanswered');
/** `ctx[RESET_RESPONSE]()`: forgets the recorded answer (before an error answer is recorded). */
export const RESET_RESPONSE: unique symbol = Symbol('fw.resetResponse');
/** `ctx[FLUSH]()`: writes the recorded answer. */
export const FLUSH: unique symbol = Symbol('fw.flush');
/** `ctx[ABORT](reason)`: aborts `ctx.signal` (made now if it was never read), for a stream that ended. */
export const ABORT: unique symbol = Symbol('fw.abort');
/** `ctx[SET_DEADLINE](at)`: sets the request's deadline (epoch ms), for the pipeline that enforces it. */
export const SET_DEADLINE: unique symbol = Symbol('fw.setDeadline');
/** `ctx[RAW_BODY]()`: the request body's bytes as sent, read once (and kept for `parseBody`). */
export const RAW_BODY: unique symbol = Symbol('fw.rawBody');
/** `ctx[SSE_STREAM](options?)`: registers a server-sent events stream for this request (throws its 429/503). */
export const SSE_STREAM: unique symbol = Symbol('fw.sseStream');

// Router, for the pipeline and the application.

/** `router[MATCH](method, path)`: the route for a request's decoded path, params percent-decoded. */
export const MATCH: unique symbol = Symbol('fw.match');
/** `router[ALLOWED_METHODS](path)`: the `Allow` list of a 405. */
export const ALLOWED_METHODS: unique symbol = Symbol('fw.allowedMethods');
/** `router[AROUND](middleware)`: the global middleware that lends schema and meta to the route records. */
export const AROUND: unique symbol = Symbol('fw.around');
/** `router[ASSERT_FREE](definition)`: throws as registering the route would, registering nothing. */
export const ASSERT_FREE: unique symbol = Symbol('fw.assertFree');

// TrieMatcher, for the router.

/** `matcher[LOOKUP](method, path)`: the winning leaf, its param bounds kept for `PARAMS`. */
export const LOOKUP: unique symbol = Symbol('fw.lookup');
/** `matcher[PARAMS](leaf, path)`: a fresh params object for the leaf the last `LOOKUP` found. */
export const PARAMS: unique symbol = Symbol('fw.params');
