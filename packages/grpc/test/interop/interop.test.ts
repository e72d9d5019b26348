// gRPC's standard interop cases against grpc.testing.TestService served by fw, with two clients
// that share no code with the server: @grpc/grpc-js, and grpcio from Python (gRPC's C core).
// Served twice: by hand-written handlers (every case), and by operations (the cases whose methods
// are unary or server streaming). When no Python has grpcio the Python cases are skipped with one
// line that says so; CI's setup script installs it.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Application } from '@fw/core';
import { grpcPlugin, type GrpcPlugin } from '../../src/index.js';
import { startOperations } from '../operations-helpers.js';
import { CASES, grpcJsCases, halfDuplex, interopClients, type InteropCase, type InteropClients } from './grpc-js-client.js';
import { findPython, generateStubs, runPythonCases, type PythonResult } from './python-client.js';
import { OPERATIONS_PROTO_OUT, testOperations } from './test-operations.js';
import { echoInitialMetadata, PROTO_DIR, TEST_PROTO, testService } from './test-service.js';

interface Server {
  readonly grpc: GrpcPlugin;
  readonly port: number;
  readonly target: string;
  readonly logs: Array<{ message: string; error: unknown }>;
  close(): Promise<void>;
}

interface Served {
  readonly name: string;
  /** The cases whose methods this server has. */
  readonly cases: readonly InteropCase[];
  start(): Promise<Server>;
}

async function handlers(): Promise<Server> {
  const logs: Server['logs'] = [];
  const app = new Application();
  const plugin = grpcPlugin({
    port: 0,
    host: '127.0.0.1',
    protoPath: TEST_PROTO,
    loaderOptions: { includeDirs: [PROTO_DIR] },
    services: { 'grpc.testing.TestService': testService },
    middleware: [echoInitialMetadata],
    onLog: (message, error) => logs.push({ message, error }),
  });
  app.register(plugin);
  await app.listen(0, '127.0.0.1');
  return { grpc: plugin, port: plugin.address!.port, target: plugin.address!.target, logs, close: () => app.close() };
}

async function operations(): Promise<Server> {
  const started = await startOperations(testOperations, { protoOut: OPERATIONS_PROTO_OUT, middleware: [echoInitialMetadata] });
  return { grpc: started.grpc, port: started.grpc.address!.port, target: started.target, logs: started.logs, close: () => started.app.close() };
}

// Operations are unary or server streaming: client streaming and bidi cases have no method there,
// nor has custom_metadata (its unary half needs a trailer, which an operation cannot set).
const OPERATION_CASES: readonly InteropCase[] = ['empty_unary', 'large_unary', 'server_streaming', 'special_status_message', 'unimplemented_method', 'unimplemented_service'];

const SERVED: readonly Served[] = [
  { name: 'hand-written handlers', cases: CASES, start: handlers },
  { name: 'operations (defineOperation)', cases: OPERATION_CASES, start: operations },
];

const python = findPython();
if ('missing' in python) process.stderr.write(`gRPC interop: Python (grpcio) cases skipped: ${python.missing}\n`);
const withPython = 'python' in python ? describe : describe.skip;

describe('gRPC interop: grpc.testing.TestService on fw', () => {
  const servers = new Map<string, Server>();
  const server = (name: string): Server => servers.get(name)!;

  beforeAll(async () => {
    const started = await Promise.all(SERVED.map((served) => served.start()));
    SERVED.forEach((served, i) => servers.set(served.name, started[i]!));
  });

  afterAll(async () => {
    await Promise.all([...servers.values()].map((s) => s.close()));
  });

  describe.each(SERVED)('$name, called by grpc-js', ({ name, cases }) => {
    let clients: InteropClients;
    beforeAll(() => void (clients = interopClients(server(name).target)));
    afterAll(() => clients.close());

    it.each(cases)('%s', (testCase) => grpcJsCases[testCase](clients));
  });

  it('answers HalfDuplexCall (no standard case) only once the client half-closes', async () => {
    const clients = interopClients(server('hand-written handlers').target);
    try {
      await halfDuplex(clients);
    } finally {
      clients.close();
    }
  });

  withPython('called by grpcio (Python, C core)', () => {
    const results = new Map<string, Map<string, PythonResult>>();
    let stubs: string;

    beforeAll(async () => {
      if (!('python' in python)) return;
      stubs = mkdtempSync(path.join(tmpdir(), 'fw-interop-python-'));
      await generateStubs(python.python, stubs);
      // Both servers at once: each run is one child process, and the event loop here stays free.
      const runs = await Promise.all(SERVED.map((served) => runPythonCases(python.python, stubs, server(served.name).port, served.cases)));
      SERVED.forEach((served, i) => results.set(served.name, runs[i]!));
    }, 60_000);

    afterAll(() => {
      if (stubs !== undefined) rmSync(stubs, { recursive: true, force: true });
    });

    describe.each(SERVED)('$name', ({ name, cases }) => {
      it.each(cases)('%s', (testCase) => {
        const result = results.get(name)?.get(testCase);
        if (result?.ok !== true) throw new Error(`${result?.error ?? 'not run'}\n${result?.trace ?? ''}`);
      });
    });
  });

  it('serves the operations from the committed protoOut, which generating again leaves as it is', () => {
    const ops = server('operations (defineOperation)');
    for (const file of ops.grpc.generateProtos()) {
      expect(file.text).toBe(readFileSync(path.join(OPERATIONS_PROTO_OUT, file.file), 'utf8'));
    }
    expect(ops.logs.map((log) => log.message)).not.toContainEqual(expect.stringContaining('out of date'));
  });

  it('logs nothing on either server: statuses the cases ask for and cancellations are no server errors', () => {
    for (const served of SERVED) expect(server(served.name).logs).toEqual([]);
  });
});
