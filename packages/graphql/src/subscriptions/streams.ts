import { STREAM_DEFAULTS, type OpenStream, type PluginHost, type ResolvedStreamsConfig, type StreamOpenOptions } from '@fw/core/plugin';

/**
 * What the subscription transports take from the application: its registry of open streams
 * (`host.openStream`: a 429 past `streams.maxPerClient`/`maxOpen`, a 503 while closing) and its
 * stream settings (`streams`: heartbeat, event size, unsent-bytes bound, and the two limits, which
 * also bound the reservations of GraphQL over SSE). A standalone handler has
 * no app: nothing limits it but the defaults.
 */
export interface StreamHost {
  openStream(options: StreamOpenOptions): OpenStream;
  readonly settings: Pick<ResolvedStreamsConfig, 'heartbeat' | 'maxEventBytes' | 'maxBufferedBytes' | 'stallTimeout' | 'maxPerClient' | 'maxOpen'>;
}


/** A registry that refuses nothing and never ends a stream: a standalone handler's. */
export const UNLIMITED_STREAMS: StreamHost = Object.freeze({
  openStream: (): OpenStream => ({ signal: new AbortController().signal, close: () => undefined }),
  settings: STREAM_DEFAULTS,
});

/** The stream side of a plugin host (before registration: no limits). */
export function streamHostOf(host: PluginHost | undefined): StreamHost {
  if (host === undefined) return UNLIMITED_STREAMS;
  return { openStream: (options) => host.openStream(options), settings: host.streams };
}
