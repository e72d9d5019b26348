// Test helpers: real sockets only. Starts an app on 127.0.0.1:0 and sends requests with node:http.
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { Application } from '@fw/core';

/** A response as the tests read it. */
export interface TestResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  json(): unknown;
}

/** Options of `send`. */
export interface SendOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
}

/** Listens on a free loopback port (IPv4 unless `host` says otherwise); returns the base URL. Close with `app.close()`. */
export async function start(app: Application, host = '127.0.0.1'): Promise<string> {
  const info = await app.listen(0, host);
  return host.includes(':') ? `http://[${host}]:${info.port}` : info.url;
}

/** Sends one request on a fresh connection (no keep-alive, so nothing lingers after the test). */
export function send(url: string, options: SendOptions = {}): Promise<TestResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: options.method ?? 'GET', headers: options.headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body, json: () => JSON.parse(body) as unknown });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(options.body);
  });
}
