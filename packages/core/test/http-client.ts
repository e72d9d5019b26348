import { request, type IncomingHttpHeaders, type Agent } from 'node:http';
import { connect, type Socket } from 'node:net';

/** A response read by node:http's client. */
export interface ClientResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  text: string;
}

/** Sends one request with node:http and reads the whole response. */
export function send(
  port: number,
  options: { method?: string; path: string; headers?: Record<string, string | number>; body?: string | Buffer; agent?: Agent | false },
): Promise<ClientResponse> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, method: options.method ?? 'GET', path: options.path, headers: options.headers, agent: options.agent ?? false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const body = Buffer.concat(chunks);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, text: body.toString('utf8') });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/** A raw TCP connection that records everything the server sends. */
export class RawConnection {
  readonly socket: Socket;
  private received = Buffer.alloc(0);
  private closed = false;
  private readonly waiters: Array<() => void> = [];

  private constructor(socket: Socket) {
    this.socket = socket;
    socket.on('data', (chunk: Buffer) => {
      this.received = Buffer.concat([this.received, chunk]);
      this.wake();
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      this.closed = true;
      this.wake();
    });
  }

  /** Opens a connection to 127.0.0.1:port. */
  static open(port: number): Promise<RawConnection> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => resolve(new RawConnection(socket)));
      socket.once('error', reject);
    });
  }

  /** Writes bytes as they are. */
  write(data: string | Buffer): Promise<void> {
    return new Promise((resolve, reject) => this.socket.write(data, (err) => (err ? reject(err) : resolve())));
  }

  /** Everything received so far, as text. */
  get text(): string {
    return this.received.toString('utf8');
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Resolves once the received text satisfies `test`, or the connection closed; rejects after `ms`. */
  async until(test: (text: string) => boolean, ms = 10_000): Promise<string> {
    const deadline = Date.now() + ms;
    while (!test(this.text)) {
      if (this.closed) throw new Error(`Connection closed; received: ${JSON.stringify(this.text)}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`Timed out; received: ${JSON.stringify(this.text)}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return this.text;
  }

  /** Resolves with the time it took once the server closes the connection; rejects after `ms`. */
  async untilClosed(ms = 10_000): Promise<number> {
    const start = Date.now();
    while (!this.closed) {
      const left = start + ms - Date.now();
      if (left <= 0) throw new Error(`Connection still open after ${ms} ms; received: ${JSON.stringify(this.text)}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return Date.now() - start;
  }

  /** Closes the client side. */
  destroy(): void {
    this.socket.destroy();
  }

  private wake(): void {
    for (const waiter of this.waiters.splice(0)) waiter();
  }
}

/** Splits raw HTTP/1.1 response text into status line, headers (lower-case) and the rest. */
export function parseHead(text: string): { status: number; headers: Record<string, string>; rest: string } {
  const end = text.indexOf('\r\n\r\n');
  if (end === -1) throw new Error(`No complete response head in ${JSON.stringify(text)}`);
  const [statusLine, ...lines] = text.slice(0, end).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(statusLine!.split(' ')[1]), headers, rest: text.slice(end + 4) };
}
