import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';

/**
 * What the subscription transports take from the application: the registry of open streams and
 * the stream settings of `ApplicationConfig.streams`, declared here by the shape used (core's plugin
 * host provides them; a standalone handler has neither registry nor app).
 */

/** One open stream in the app's registry. */
export interface StreamRegistration {
  /** Fires when the stream is ended by the app (closing, maximum duration). */
  readonly signal: AbortSignal;
  /** Tells the registry the stream ended, for whatever reason; called once. */
  close(): void;
}

/** What a transport tells the registry about a stream it opens. */
export interface StreamOpening {
  readonly protocol: string;
  /** The client the per-client limit counts by (its address). */
  readonly clientKey: string;
  /** Called by the registry to end the stream (the app closes, the maximum duration passed): end it with a reconnect hint. */
  readonly end: (reason: Error) => void;
}

/** The stream settings transports follow, with defaults applied. */
export interface StreamSettings {
  /** Heartbeat interval in ms (SSE comment lines, WebSocket pings); 0 turns heartbeats off. */
  readonly heartbeat: number;
  /** The most bytes a consumer that does not read may leave unsent before its stream is ended. */
  readonly maxBufferedBytes: number;
}

/** The app side of the transports: open a stream (throws an HTTPError 429/503 when refused) and the settings. */
export interface StreamHost {
  openStream(opening: StreamOpening): StreamRegistration;
  readonly settings: StreamSettings;
}

/** Used when the app has no stream settings of its own (a standalone handler). */
export const DEFAULT_STREAM_SETTINGS: StreamSettings = Object.freeze({ heartbeat: 15_000, maxBufferedBytes: 1024 * 1024 });

/** A registry that refuses nothing and never ends a stream: a standalone handler's. */
export const UNLIMITED_STREAMS: StreamHost = Object.freeze({
  openStream: (): StreamRegistration => ({ signal: new AbortController().signal, close: () => undefined }),
  settings: DEFAULT_STREAM_SETTINGS,
});

/** What a plugin host offers for WebSocket upgrades (core's `onUpgrade`). */
export interface UpgradeHost {
  onUpgrade(path: string, handler: (req: IncomingMessage, socket: Duplex, head: Buffer) => void): unknown;
}

/** The stream side of a plugin host: its registry and settings, or no limits before registration. */
export function streamHostOf(host: object | undefined): StreamHost {
  const app = host as Partial<{ openStream: StreamHost['openStream']; streams: Partial<StreamSettings> }> | undefined;
  if (app?.openStream === undefined) return UNLIMITED_STREAMS;
  const settings = { ...DEFAULT_STREAM_SETTINGS, ...app.streams };
  return { openStream: (opening) => app.openStream!(opening), settings };
}

/** The host's `onUpgrade`, when it has one. */
export function upgradeHostOf(host: object): UpgradeHost | undefined {
  return typeof (host as Partial<UpgradeHost>).onUpgrade === 'function' ? (host as UpgradeHost) : undefined;
}
