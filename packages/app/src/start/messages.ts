/** The messages between `fw start`'s primary and its workers, over the cluster's IPC channel. */

/** Where a worker listens. */
export interface WorkerAddress {
  host: string;
  port: number;
}

/** From a worker to the primary. */
export type WorkerMessage =
  /** Listening, and its readiness answers 200. */
  | { fw: 'ready'; http: WorkerAddress; grpc?: WorkerAddress; metricsPath?: string }
  /** Could not start (the module failed to load, the port was taken, ...). */
  | { fw: 'failed'; message: string }
  /** A scrape arrived: the primary is asked for every worker's series, summed. */
  | { fw: 'collect'; id: number }
  /** This worker's own Prometheus text, asked for by `scrape`. */
  | { fw: 'scraped'; id: number; text?: string; error?: string };

/** From the primary to a worker. */
export type PrimaryMessage =
  /** Send your own Prometheus text. */
  | { fw: 'scrape'; id: number }
  /** The summed text of every worker, for the scrape `collect` asked about. */
  | { fw: 'collected'; id: number; text?: string; error?: string }
  /** Shut down in order (not ready, `delay`, drain, flush), then exit 0; `handoff`: first stop taking connections and close the open ones as they answer. */
  | { fw: 'shutdown'; delay?: number; handoff?: boolean };

/** Whether `value` is one of fw start's messages (the channel may carry the app's own). */
export function isFwMessage<T extends { fw: string }>(value: unknown): value is T {
  return value !== null && typeof value === 'object' && typeof (value as { fw?: unknown }).fw === 'string';
}

/** The environment variables a worker reads its settings from. */
export const WORKER_ENV = Object.freeze({ module: 'FW_START_MODULE', port: 'FW_START_PORT', host: 'FW_START_HOST' });
