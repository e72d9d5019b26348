/**
 * @fw/core/plugin — what plugin authors share: the plugin host, and the plumbing every protocol
 * package needs once (client address, bundled pages, read-only guards, bearer tokens, logging, JSON,
 * whether a client cancelled or left, observing operation calls, the check of option names, the
 * admission rules every transport shares (media types, content negotiation, the caller's identity,
 * the marks middleware carries for connections: origin policies, per-call middleware), and the
 * operation rules every generator follows: names, the order they are listed in, nullables).
 */
export { createAssetHandler, sendHtmlPage } from './static-assets.js';
export type { StaticAsset } from './static-assets.js';
export { clientIp } from './internal/client-ip.js';
export type { TrustProxy } from './internal/client-ip.js';
export { assertGetOrHead, BEARER_TOKEN, bearerToken } from './internal/http-guards.js';
export { createLogger, defaultLog } from './internal/logging.js';
export type { LogFunction } from './internal/logging.js';
export { escapeLogText, formatLogValue, stackFrames } from './internal/log-format.js';
export { parseDateTime } from './internal/date-time.js';
export { nearestName } from './internal/nearest-name.js';
export { checkOptions } from './internal/check-options.js';
export type { CheckOptionsConfig } from './internal/check-options.js';
export { parseJSON } from './internal/json.js';
export type { ParseJSONOptions } from './internal/json.js';
export { admittedBodyType, negotiate, parseMediaType } from './internal/media-type.js';
export type { BodyType, MediaType } from './internal/media-type.js';
export { requestIdentity } from './internal/identity.js';
export { ContextVariables } from './request-context.js';
export { metaOf, schemaOf } from './route-meta.js';
export { ORIGIN_POLICY, originPolicyOf, withOriginPolicy } from './origin-policy.js';
export type { OriginPolicy, OriginRequest, WithHeaders } from './origin-policy.js';
export { isPerCall, markPerCall, PER_CALL } from './per-call.js';
export { captureOperation, hasFileInput, OPERATION_BRAND, observeOperations, restBodyTypes, runOperation, runStreamOperation } from './operation.js';
export type { OperationCapture, OperationObserver } from './operation.js';
export { CLIENT_CLOSED_REQUEST, isClientGone, markClientGone } from './client-gone.js';
export { isServerFault } from './server-fault.js';
export { toStreamEvent } from './stream.js';
export { withStreamSignal } from './stream-scope.js';
export { rawResponseInUse, readRawBody } from './recorded.js';
export { armDeadline, checkTimeout, raceDeadline, withDeadline } from './deadline.js';
export { StreamStop, STOPPED } from './stream-stop.js';
export { releaseStream } from './stream-registry.js';
export { EVENTS_PER_TURN, EventTooLargeError, StreamPump } from './stream-pump.js';
export type { StreamPumpOptions, StreamSink, StreamStopReason } from './stream-pump.js';
export { responseSink, SSE_HEARTBEAT } from './response-sink.js';
export type { OpenStream, StreamOpenOptions } from './stream-registry.js';
export { STREAM_DEFAULTS } from './config.js';
export type { ResolvedStreamsConfig } from './config.js';
export { byName, compareNames, operationError, pascalCase, readsBody, typeNames, typeStem, unwrapNullable, upperFirst } from './internal/operation-rules.js';
export type { NamedShape, TypeNames } from './internal/operation-rules.js';
export type { ContextSettings } from './context.js';
export type { ClaimOptions, ListenInfo, Plugin, PluginHost, RequestHook, ResponseHook, UpgradeHandler, WrapOptions } from './plugin-host.js';
