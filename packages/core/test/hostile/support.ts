import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { Application, type ApplicationConfig } from '../../src/index.js';

/** A started application and what it logged. */
export interface Started {
  app: Application;
  port: number;
  logged: Array<{ message: string; error: unknown }>;
}

/** Starts an application on 127.0.0.1 and a random port with `routes`; the test closes it. */
export async function start(config: ApplicationConfig, routes: (app: Application) => void): Promise<Started> {
  const logged: Started['logged'] = [];
  const app = new Application({ onLog: (message, error) => logged.push({ message, error }), ...config });
  routes(app);
  const { port } = await app.listen(0, '127.0.0.1');
  return { app, port, logged };
}

/** A response as a client sees it. */
export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** One request on a fresh connection with node:http. */
export function fetchRaw(port: number, path: string, options: { method?: string; headers?: Record<string, string | number>; body?: string | Buffer } = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: options.method ?? 'GET', headers: options.headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

/** A raw TCP connection that records every byte the server sends. */
export class RawSocket {
  private received = Buffer.alloc(0);
  private closedAt: number | undefined;
  private readonly waiters = new Set<() => void>();

  private constructor(readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.received = Buffer.concat([this.received, chunk]);
      this.wake();
    });
    // Resets are part of what these tests provoke; `closed` says what happened.
    socket.on('error', () => undefined);
    socket.on('close', () => {
      this.closedAt = Date.now();
      this.wake();
    });
  }

  /** Connects to 127.0.0.1:port. */
  static open(port: number): Promise<RawSocket> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => resolve(new RawSocket(socket)));
      socket.once('error', reject);
    });
  }

  /** Sends bytes as they are. */
  write(data: string | Buffer): Promise<void> {
    return new Promise((resolve, reject) => this.socket.write(data, (err) => (err ? reject(err) : resolve())));
  }

  /** Everything received so far (latin1, so every byte survives). */
  get text(): string {
    return this.received.toString('latin1');
  }

  get closed(): boolean {
    return this.closedAt !== undefined;
  }

  /** Responses received so far, split at their status lines. */
  get statuses(): number[] {
    return [...this.text.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]));
  }

  /** Waits until `test` holds for what was received; rejects after `ms` (or once closed without it). */
  async until(test: (socket: RawSocket) => boolean, ms = 10_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!test(this)) {
      if (this.closed) throw new Error(`Connection closed; received ${JSON.stringify(this.text.slice(0, 500))}`);
      if (Date.now() >= deadline) throw new Error(`Timed out after ${ms} ms; received ${JSON.stringify(this.text.slice(0, 500))}`);
      await this.wait(deadline - Date.now());
    }
  }

  /** Waits for the server to close the connection; resolves with when it did. Rejects after `ms` (a wait, not a speed bound). */
  async untilClosed(ms = 10_000): Promise<number> {
    const deadline = Date.now() + ms;
    while (this.closedAt === undefined) {
      if (Date.now() >= deadline) throw new Error(`Still open after ${ms} ms; received ${JSON.stringify(this.text.slice(0, 500))}`);
      await this.wait(deadline - Date.now());
    }
    return this.closedAt;
  }

  destroy(): void {
    this.socket.destroy();
  }

  private wait(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.waiters.add(done);
    });
  }

  private wake(): void {
    for (const waiter of [...this.waiters]) waiter();
  }
}

/** Sends raw bytes on a fresh connection; resolves once a complete response arrived or the server closed. */
export async function exchange(port: number, data: string | Buffer, ms = 3000): Promise<{ status: number; head: string; body: string; closed: boolean; socket: RawSocket }> {
  const socket = await RawSocket.open(port);
  await socket.write(data);
  await socket.until((s) => s.closed || complete(s.text), ms).catch((err: unknown) => {
    if (!socket.closed) throw err;
  });
  const text = socket.text;
  const end = text.indexOf('\r\n\r\n');
  const head = end === -1 ? text : text.slice(0, end);
  // Give the server a moment to close after a `Connection: close` answer.
  if (/\r\nconnection: close/i.test(head)) await socket.untilClosed(1000).catch(() => undefined);
  return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), head, body: end === -1 ? '' : text.slice(end + 4), closed: socket.closed, socket };
}

/** Whether `text` holds one complete response (head, and a body of its Content-Length if any). */
function complete(text: string): boolean {
  const end = text.indexOf('\r\n\r\n');
  if (end === -1) return false;
  const length = /\r\ncontent-length: *(\d+)/i.exec(text.slice(0, end));
  if (length !== null) return Buffer.byteLength(text.slice(end + 4), 'latin1') >= Number(length[1]);
  if (/\r\ntransfer-encoding: *chunked/i.test(text.slice(0, end))) return text.endsWith('0\r\n\r\n');
  return true;
}

/** The error body the framework sends. */
export function errorOf(text: string): { error: boolean; message: string; code: number } {
  return JSON.parse(text) as { error: boolean; message: string; code: number };
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** `promise`'s value, or `fallback` once `ms` passed (the timer is cleared either way). */
export async function within<T, F>(promise: Promise<T>, ms: number, fallback: F): Promise<T | F> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([promise, new Promise<F>((resolve) => (timer = setTimeout(() => resolve(fallback), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

/** Whether anything polluted Object.prototype. */
export function prototypePolluted(): boolean {
  const probe: Record<string, unknown> = {};
  return probe['polluted'] !== undefined || Object.prototype.hasOwnProperty.call(Object.prototype, 'polluted');
}

/**
 * The merge found in countless code bases (and old lodash): what makes a `__proto__` key in a
 * parsed body dangerous. Handlers in these tests run every body through it.
 */
export function naiveMerge(target: Record<string, unknown>, source: unknown): Record<string, unknown> {
  if (source === null || typeof source !== 'object') return target;
  for (const key in source as Record<string, unknown>) {
    const value = (source as Record<string, unknown>)[key];
    if (value !== null && typeof value === 'object') {
      if (target[key] === null || typeof target[key] !== 'object') target[key] = {};
      naiveMerge(target[key] as Record<string, unknown>, value);
    } else {
      target[key] = value;
    }
  }
  return target;
}
