import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join, relative } from 'node:path';
import ts from 'typescript';
import { ATTR_HTTP_ROUTE, ATTR_SERVICE_NAME, type TracingConfig } from '../src/index.js';

// The OTLP exporters load `http` with a native import(), which jest's VM refuses without
// --experimental-vm-modules; so the app runs in a child process, as plain Node ESM compiled from
// the current sources, and the collector runs here. The sources are written for the package's
// CommonJS build (the plugin's implementation is loaded with `require` on first use), so each
// compiled module gets a `require` of its own.

const PACKAGE = join(__dirname, '..');
const OUT = join(PACKAGE, 'test-output', 'otlp-e2e');

function compile(from: string, to: string): void {
  for (const name of readdirSync(from)) {
    const path = join(from, name);
    if (statSync(path).isDirectory()) compile(path, join(to, name));
    else if (name.endsWith('.ts') && !name.endsWith('.test.ts')) {
      const { outputText } = ts.transpileModule(readFileSync(path, 'utf8'), {
        compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
        fileName: name,
      });
      mkdirSync(to, { recursive: true });
      const withRequire = `import { createRequire as __createRequire } from 'node:module';\nconst require = __createRequire(import.meta.url);\n${outputText}`;
      writeFileSync(join(to, name.replace(/\.ts$/, '.js')), withRequire);
    }
  }
}

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** A minimal OTLP/HTTP collector: records every export request and answers 200. */
async function startReceiver(): Promise<{ server: Server; url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) });
      const json = String(req.headers['content-type']).includes('json');
      res.writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' });
      res.end(json ? '{}' : undefined);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received };
}

/** Runs the fixture app with this config and environment; resolves with what it printed. */
function runApp(config: TracingConfig, env: Record<string, string> = {}): Promise<{ status: number; traceparent: string | null }> {
  const script = join(OUT, 'test', 'fixtures', 'otlp-app.js');
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [script],
      { cwd: PACKAGE, env: { ...process.env, ...env, FW_TRACING_CONFIG: JSON.stringify(config) }, timeout: 90_000 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`fixture app failed: ${stderr || error.message}`, { cause: error }));
        else resolve(JSON.parse(stdout.trim().split('\n').pop() ?? '{}'));
      },
    );
  });
}

interface OtlpAttribute {
  key: string;
  value: { stringValue?: string; intValue?: string | number };
}
interface OtlpSpan {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  kind: number;
  attributes: OtlpAttribute[];
}
interface OtlpJson {
  resourceSpans: Array<{ resource: { attributes: OtlpAttribute[] }; scopeSpans: Array<{ scope: { name: string }; spans: OtlpSpan[] }> }>;
}

const attr = (attributes: OtlpAttribute[], key: string) => {
  const value = attributes.find((a) => a.key === key)?.value;
  return value?.stringValue ?? value?.intValue;
};

let receiver: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  compile(join(PACKAGE, 'src'), join(OUT, 'src'));
  compile(join(PACKAGE, 'test', 'fixtures'), join(OUT, 'test', 'fixtures'));
  // Sanity: the compiled fixture imports the compiled sources next to it.
  expect(relative(dirname(join(OUT, 'test', 'fixtures', 'otlp-app.js')), join(OUT, 'src'))).toBe(join('..', '..', 'src'));
  receiver = await startReceiver();
});
afterAll(async () => {
  receiver.server.closeAllConnections();
  receiver.server.close();
});
beforeEach(() => {
  receiver.received.length = 0;
});

// Each case starts a process that loads the OpenTelemetry SDK: seconds on a loaded machine.
jest.setTimeout(120_000);

describe('OTLP over HTTP, end to end', () => {
  it('exports the spans as OTLP/JSON to the endpoint, with the service name, by the time close() resolves', async () => {
    const { status, traceparent } = await runApp({ serviceName: 'orders-api', endpoint: receiver.url, otlpProtocol: 'http/json', otlpHeaders: { 'x-api-key': 'secret' } });
    expect(status).toBe(200);
    expect(receiver.received).toHaveLength(1);
    const [request] = receiver.received;
    expect(request!.path).toBe('/v1/traces');
    expect(request!.headers['content-type']).toBe('application/json');
    expect(request!.headers['x-api-key']).toBe('secret');
    const body = JSON.parse(request!.body.toString('utf8')) as OtlpJson;
    const resource = body.resourceSpans[0]!;
    expect(attr(resource.resource.attributes, ATTR_SERVICE_NAME)).toBe('orders-api');
    const spans = resource.scopeSpans.flatMap((scope) => scope.spans);
    const server = spans.find((span) => span.name === 'GET /orders/:id');
    const child = spans.find((span) => span.name === 'load order');
    expect(server).toBeDefined();
    expect(attr(server!.attributes, ATTR_HTTP_ROUTE)).toBe('/orders/:id');
    expect(server!.kind).toBe(2); // SPAN_KIND_SERVER in OTLP numbering
    expect(child?.parentSpanId).toBe(server!.spanId);
    expect(traceparent).toBe(`00-${server!.traceId}-${server!.spanId}-01`);
  });

  it('exports OTLP/protobuf by default, to a full traces URL as given', async () => {
    await runApp({ serviceName: 'orders-proto', endpoint: `${receiver.url}/custom/traces` });
    expect(receiver.received).toHaveLength(1);
    const [request] = receiver.received;
    expect(request!.path).toBe('/custom/traces');
    expect(request!.headers['content-type']).toBe('application/x-protobuf');
    // Protobuf carries strings as raw UTF-8: the service and span names are in the bytes.
    const bytes = request!.body.toString('latin1');
    expect(bytes).toContain('orders-proto');
    expect(bytes).toContain('GET /orders/:id');
  });

  it('takes the endpoint, protocol and service name from the OTEL_* variables when no option is given', async () => {
    await runApp({}, { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_SERVICE_NAME: 'from-env' });
    expect(receiver.received.map((r) => r.path)).toEqual(['/v1/traces']);
    const body = JSON.parse(receiver.received[0]!.body.toString('utf8')) as OtlpJson;
    expect(attr(body.resourceSpans[0]!.resource.attributes, ATTR_SERVICE_NAME)).toBe('from-env');
  });
});
