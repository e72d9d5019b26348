import type { ServerResponse } from 'node:http';
import type { StreamSink } from './stream-pump.js';

/** An SSE comment line: keeps proxies and clients from timing an idle stream out. */
export const SSE_HEARTBEAT = ':\n\n';

/**
 * A stream sink over an HTTP response (server-sent events, whoever frames them): unsent bytes are
 * the response's `writableLength`, the pump waits past its high-water mark (`writableNeedDrain`),
 * heartbeats are SSE comment lines, and a client that stopped reading has its connection destroyed.
 */
export function responseSink<T>(res: ServerResponse, encode: (event: T) => string | Uint8Array, oversized?: StreamSink<T>['oversized']): StreamSink<T> {
  return {
    encode,
    write(chunk) {
      if (!res.writableEnded && !res.destroyed) res.write(chunk);
    },
    buffered: () => res.writableLength,
    needsDrain: () => res.writableNeedDrain,
    onDrain(listener) {
      const done = (): void => {
        res.off('drain', done);
        res.off('close', done);
        listener();
      };
      res.on('drain', done);
      res.on('close', done);
      return () => {
        res.off('drain', done);
        res.off('close', done);
      };
    },
    heartbeat() {
      if (!res.writableEnded && !res.destroyed) res.write(SSE_HEARTBEAT);
    },
    cut() {
      res.destroy();
    },
    ...(oversized === undefined ? {} : { oversized }),
  };
}
