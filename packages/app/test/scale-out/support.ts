// What the fw start and scale-out tests share: the test app, starting `fw start` as a user does,
// a gRPC client from the app's emitted .proto, and load that counts every failed request.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readdir } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';

export const PACKAGE = join(__dirname, '..', '..');
export const BIN = join(PACKAGE, 'dist', 'bin', 'fw.js');
export const APP = join(__dirname, 'app.mjs');

/** A free TCP port on the loopback interface. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** A running `fw start`. */
export interface Started {
  child: ChildProcess;
  url: string;
  /** Where gRPC is served ('' when the app serves no gRPC). */
  grpcTarget: string;
  output: () => string;
  exited: Promise<number | null>;
}

/** Runs `fw start <app> <args>` (the test app unless `app` names another module) and resolves once it prints where it serves. */
export function fwStart(args: string[], env: Record<string, string>, { timeout = 30_000, app = APP }: { timeout?: number; app?: string } = {}): Promise<Started> {
  const child = spawn(process.execPath, [BIN, 'start', app, ...args], { cwd: PACKAGE, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`fw start did not serve within ${timeout} ms:\n${out}`)), timeout);
    const check = (): void => {
      const line = /serving (http:\/\/[^\s,]+)(?:, gRPC on (\S+))? \(primary/.exec(out);
      if (line !== null) {
        clearTimeout(timer);
        resolve({ child, url: line[1]!, grpcTarget: line[2] ?? '', output: () => out, exited });
      }
    };
    child.stdout.on('data', check);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(Object.assign(new Error(`fw start exited with ${code}:\n${out}`), { code, output: out }));
    });
  });
}

/** Ends a child by its PID if it still runs, and waits for it. */
export async function stopChild(child: ChildProcess | undefined, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
  if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise((resolve) => child.once('exit', resolve));
  child.kill(signal);
  await gone;
}

/** Writes the test app's .proto files with `fw emit` and resolves to a loaded client constructor for scale.Greeter. */
export async function greeterClient(): Promise<new (target: string, credentials: grpc.ChannelCredentials, options?: grpc.ChannelOptions) => GreeterClient> {
  const dir = await mkdtemp(join(tmpdir(), 'fw-scale-proto-'));
  await new Promise<void>((resolve, reject) =>
    execFile(process.execPath, [BIN, 'emit', APP, '--out', dir, '--proto-out', dir, '--no-graphql', '--no-openapi'], { cwd: PACKAGE }, (err, _out, stderr) => (err ? reject(new Error(stderr)) : resolve())),
  );
  const files = (await readdir(dir, { recursive: true })).filter((file) => file.endsWith('.proto')).map((file) => join(dir, file));
  const definition = protoLoader.loadSync(files, { keepCase: true, defaults: true });
  const pkg = grpc.loadPackageDefinition(definition) as unknown as { scale: { Greeter: new (target: string, credentials: grpc.ChannelCredentials, options?: grpc.ChannelOptions) => GreeterClient } };
  return pkg.scale.Greeter;
}

export interface GreeterClient extends grpc.Client {
  Hello(request: { name: string }, callback: (err: grpc.ServiceError | null, reply?: { greeting: string; pid: number }) => void): void;
}

/** One HTTP request (on a new connection unless an agent is given); resolves with the status and body, rejects on a network error or once `timeout` ms pass without a byte. */
export function httpGet(url: string, agent?: Agent, init: { method?: string; body?: string; headers?: Record<string, string>; timeout?: number } = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: init.method ?? 'GET', agent: agent ?? false, headers: init.headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', reject);
    });
    req.on('error', reject);
    if (init.timeout !== undefined) req.setTimeout(init.timeout, () => req.destroy(new Error(`no answer within ${init.timeout} ms`)));
    req.end(init.body);
  });
}

/** The tally of a load run: answers by protocol, and every failure (status or error). */
export interface Tally {
  ok: Record<'rest' | 'graphql' | 'grpc', number>;
  failures: string[];
  pids: Set<number>;
}

/**
 * Sends REST, GraphQL and gRPC requests over kept-alive connections, `concurrency` at a time per
 * protocol, until `until` resolves. Every answer that is not a success is a failure.
 */
export async function load(baseUrl: string, grpcClient: GreeterClient | undefined, until: Promise<unknown>, concurrency = 4): Promise<Tally> {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency * 2 });
  const tally: Tally = { ok: { rest: 0, graphql: 0, grpc: 0 }, failures: [], pids: new Set() };
  let done = false;
  void until.finally(() => (done = true));
  const rest = async (): Promise<void> => {
    while (!done) {
      try {
        const res = await httpGet(`${baseUrl}/hello/load`, agent);
        if (res.status !== 200) tally.failures.push(`REST ${res.status} ${res.body}`);
        else {
          tally.ok.rest++;
          tally.pids.add((JSON.parse(res.body) as { pid: number }).pid);
        }
      } catch (err) {
        tally.failures.push(`REST ${String(err)}`);
      }
    }
  };
  const graphql = async (): Promise<void> => {
    while (!done) {
      try {
        const res = await httpGet(`${baseUrl}/graphql`, agent, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ hello(name: "load") { greeting pid } }' }) });
        const body = JSON.parse(res.body) as { data?: { hello?: { pid: number } }; errors?: unknown };
        if (res.status !== 200 || body.data?.hello === undefined) tally.failures.push(`GraphQL ${res.status} ${res.body}`);
        else tally.ok.graphql++;
      } catch (err) {
        tally.failures.push(`GraphQL ${String(err)}`);
      }
    }
  };
  const rpc = async (): Promise<void> => {
    while (!done && grpcClient !== undefined) {
      try {
        await new Promise<void>((resolve, reject) => grpcClient.Hello({ name: 'load' }, (err) => (err ? reject(err) : resolve())));
        tally.ok.grpc++;
      } catch (err) {
        tally.failures.push(`gRPC ${String(err)}`);
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, () => [rest(), graphql(), rpc()]).flat());
  agent.destroy();
  return tally;
}
