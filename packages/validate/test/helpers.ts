import { Application, type ApplicationConfig } from '@fw/core';

/** A running application on 127.0.0.1 with a port chosen by the OS. */
export interface Served {
  app: Application;
  url: string;
  /** Errors the application logged (5xx causes). */
  logged: Array<{ message: string; error: unknown }>;
  close(): Promise<void>;
}

/** Builds an application with `setup`, listens on port 0, and records what it logs. */
export async function serve(setup: (app: Application) => void, config: ApplicationConfig = {}): Promise<Served> {
  const logged: Served['logged'] = [];
  const app = new Application({ ...config, onLog: (message, error) => logged.push({ message, error }) });
  setup(app);
  const info = await app.listen(0, '127.0.0.1');
  return { app, url: `http://127.0.0.1:${info.port}`, logged, close: () => app.close() };
}

/** What a request answered. */
export interface Answer {
  status: number;
  contentType: string | null;
  body: unknown;
}

/** Options of `send`: a JSON body, a URL-encoded form, or raw text. */
export interface SendOptions {
  method?: string;
  json?: unknown;
  form?: Record<string, string>;
  text?: string;
}

/** Sends one request over a real socket and parses a JSON answer. */
export async function send(base: string, path: string, options: SendOptions = {}): Promise<Answer> {
  const headers: Record<string, string> = {};
  let body: string | undefined;
  if (options.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.json);
  } else if (options.form !== undefined) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(options.form).toString();
  } else if (options.text !== undefined) {
    headers['content-type'] = 'text/plain';
    body = options.text;
  }
  const method = options.method ?? (body === undefined ? 'GET' : 'POST');
  const res = await fetch(base + path, { method, headers, body });
  const contentType = res.headers.get('content-type');
  const text = await res.text();
  return { status: res.status, contentType, body: contentType?.startsWith('application/json') ? (JSON.parse(text) as unknown) : text };
}

/** The exact 400 body `validate()` answers with. */
export function failure(errors: Array<{ field: string; message?: unknown; code: string }>): unknown {
  return {
    error: true,
    message: 'Validation failed',
    code: 400,
    details: { errors: errors.map((e) => ({ field: e.field, message: e.message ?? expect.any(String), code: e.code })) },
  };
}
