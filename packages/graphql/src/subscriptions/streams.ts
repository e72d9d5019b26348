import type { OpenStream, PluginHost, ResolvedStreamsConfig, StreamOpenOptions } from '@fw/core/plugin';

/**
 * What the subscription transports take from the application: its registry of open streams
 * (`host.openStream`: a 429 past `streams.maxPerClient`/`maxOpen`, a 503 while closing) and its
 * stream settings (`streams`: heartbeat, event size, unsent-bytes bound). A standalone handler has
 * no app: nothing limits it but the defaults.
 */
export interface StreamHost {
  openStream(options: StreamOpenOptions): OpenStream;
  readonly settings: Pick<ResolvedStreamsConfig, 'heartbeat' | 'maxEventBytes' | 'maxBufferedBytes' | 'stallTimeout'>;
}

/** Used when the app has no stream settings of its own (a standalone handler); core's defaults. */
const DEFAULT_SETTINGS: StreamHost['settings'] = Object.freeze({ heartbeat: 15_000, maxEventBytes: 1_048_576, maxBufferedBytes: 1_048_576, stallTimeout: 30_000 });

/** A registry that refuses nothing and never ends a stream: a standalone handler's. */
export const UNLIMITED_STREAMS: StreamHost = Object.freeze({
  openStream: (): OpenStream => ({ signal: new AbortController().signal, close: () => undefined }),
  settings: DEFAULT_SETTINGS,
});

/** The stream side of a plugin host (before registration: no limits). */
export function streamHostOf(host: PluginHost | undefined): StreamHost {
  if (host === undefined) return UNLIMITED_STREAMS;
  return { openStream: (options) => host.openStream(options), settings: host.streams };
}
