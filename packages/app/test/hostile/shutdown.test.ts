import { spawn } from 'node:child_process';
import { Agent, request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { getItem, itemsClient } from '../support.js';
import { sleep, tryConnect, within } from './support.js';

// close() under load, in a child process that uses @fw/app as a program would: 200 HTTP requests
// in flight (twenty pipelined on each of ten kept-alive connections), five gRPC calls in flight,
// and idle kept-alive connections. Every in-flight request and call gets its real answer, new
// HTTP connections and gRPC calls are refused, the kept-alive connections are closed, and the
// process exits by itself (nothing left holding the event loop).

const CONNECTIONS = 10;
const PER_CONNECTION = 20;
const GRPC_CALLS = 5;
const FIXTURE = join(__dirname, 'fixtures', 'draining-app.mjs');

/** A raw connection that records what it receives and when it closes. */
function rawConnection(port: number): Promise<{ socket: Socket; text: () => string; closed: Promise<void> }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
    const closed = new Promise<void>((done) => socket.once('close', () => done()));
    socket.once('connect', () => resolve({ socket, text: () => text, closed }));
    socket.once('error', reject);
  });
}

/** Ample on a loaded machine: each wait is for something that happens, not a speed bound. */
const WAIT_MS = 20_000;

describe('close() under load with HTTP and gRPC in flight (child process)', () => {
  it('answers everything in flight, refuses what is new, closes kept-alive connections, and the process exits by itself', async () => {
    const child = spawn(process.execPath, [FIXTURE, String(CONNECTIONS * PER_CONNECTION), String(GRPC_CALLS)], { cwd: __dirname, stdio: 'pipe' });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const waitFor = async (pattern: RegExp, ms = WAIT_MS): Promise<RegExpExecArray> => {
      const deadline = Date.now() + ms;
      for (;;) {
        const match = pattern.exec(output);
        if (match !== null) return match;
        if (Date.now() > deadline || child.exitCode !== null) throw new Error(`Waited for ${pattern}; the child said: ${output}`);
        await sleep(10);
      }
    };
    const clients: grpc.Client[] = [];
    try {
      const ready = await waitFor(/ready http=(\d+) grpc=(\d+)/);
      const httpPort = Number(ready[1]);
      const grpcTarget = `127.0.0.1:${ready[2]}`;

      // Two idle kept-alive connections.
      const agent = new Agent({ keepAlive: true, maxSockets: 2 });
      const idle: Array<Promise<void>> = [];
      await Promise.all(
        [0, 1].map(
          () =>
            new Promise<void>((resolve, reject) => {
              const req = request({ host: '127.0.0.1', port: httpPort, path: '/ok', agent }, (res) => {
                idle.push(new Promise<void>((done) => res.socket.once('close', () => done())));
                res.resume();
                res.on('end', resolve);
              });
              req.on('error', reject);
              req.end();
            }),
        ),
      );

      // 200 HTTP requests in flight.
      const connections = await Promise.all(Array.from({ length: CONNECTIONS }, () => rawConnection(httpPort)));
      connections.forEach(({ socket }, c) => {
        let requests = '';
        for (let i = 0; i < PER_CONNECTION; i++) requests += `GET /work/${c}-${i} HTTP/1.1\r\nHost: t\r\n\r\n`;
        socket.write(requests);
      });
      // Five gRPC calls in flight.
      const client = itemsClient(grpcTarget);
      clients.push(client);
      const calls = Array.from({ length: GRPC_CALLS }, (_, i) => getItem(client, `g${i}`));

      await waitFor(/inflight http=200 grpc=5/);
      child.stdin.write('close\n');
      await waitFor(/closing/);

      // New work is refused while the old drains.
      expect(await tryConnect(httpPort)).toBe('ECONNREFUSED');
      const late = itemsClient(grpcTarget);
      clients.push(late);
      const getWithDeadline = late.Get.bind(late) as unknown as (request: { id: string }, metadata: grpc.Metadata, options: grpc.CallOptions, callback: (err: grpc.ServiceError | null) => void) => void;
      await expect(
        new Promise<void>((resolve, reject) => getWithDeadline({ id: 'late' }, new grpc.Metadata(), { deadline: Date.now() + WAIT_MS }, (err) => (err ? reject(err) : resolve()))),
      ).rejects.toMatchObject({ code: grpc.status.UNAVAILABLE });

      // Every call in flight got its real answer.
      expect(await Promise.all(calls)).toEqual(Array.from({ length: GRPC_CALLS }, (_, i) => ({ id: `g${i}`, owner: 'drained' })));
      for (const [c, connection] of connections.entries()) {
        await within(connection.closed, WAIT_MS, undefined);
        const text = connection.text();
        const statuses = [...text.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]));
        expect(statuses).toEqual(Array<number>(PER_CONNECTION).fill(200));
        const ids = [...text.matchAll(/\{"id":"([^"]+)"\}/g)].map((m) => m[1]);
        expect(ids).toEqual(Array.from({ length: PER_CONNECTION }, (_, i) => `${c}-${i}`));
      }
      // Kept-alive connections were closed by the server.
      expect(await within(Promise.all(idle), WAIT_MS, 'still open')).not.toBe('still open');
      agent.destroy();

      // And the process ends on its own.
      expect(await within(exited, WAIT_MS, 'still running')).toBe(0);
      expect(output).toContain('closed');
      expect(output).not.toContain('log:');
    } finally {
      for (const c of clients) c.close();
      if (child.exitCode === null) child.kill();
    }
  }, 10 * WAIT_MS);
});
