import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { MetricsAddress } from '../types.js';

/** A small node:http server answering `GET <path>` with the Prometheus text, and nothing else. */
export class AdminServer {
  #server: Server | undefined;

  constructor(
    private readonly path: string,
    private readonly scrape: () => Promise<string>,
    private readonly log: (message: string, error?: unknown) => void,
  ) {}

  async listen(port: number, host: string): Promise<MetricsAddress> {
    const server = createServer((req, res) => {
      const pathname = (req.url ?? '/').split('?')[0];
      if (pathname !== this.path) {
        res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not Found\n');
        return;
      }
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' }).end('Method Not Allowed\n');
        return;
      }
      this.scrape().then(
        (text) => {
          res.writeHead(200, { 'content-type': PROMETHEUS_CONTENT_TYPE, 'content-length': Buffer.byteLength(text) });
          res.end(req.method === 'HEAD' ? undefined : text);
        },
        (err: unknown) => {
          this.log('Metrics could not be collected', err);
          res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('Internal Server Error\n');
        },
      );
    });
    this.#server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.removeListener('error', reject);
        resolve();
      });
    });
    const address = server.address() as AddressInfo;
    const shown = address.address.includes(':') ? `[${address.address}]` : address.address;
    return { host: address.address, port: address.port, url: `http://${shown}:${address.port}${this.path}` };
  }

  async close(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    if (server === undefined) return;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }
}

/** The media type of the Prometheus text exposition format. */
export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';
