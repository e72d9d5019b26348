// Starts the gRPC suite's load generator (grpc/load.mjs, bench.Greeter/SayHello) pinned to the
// client core; send() writes one command and awaits its answer. Shared by the gRPC and operations suites.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { pinned } from '../lib/tools.mjs';

export function startGrpcLoadClient(pin) {
  const [cmd, args] = pinned(pin, 'client', process.execPath, [fileURLToPath(new URL('./load.mjs', import.meta.url))]);
  const child = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'inherit'], env: { ...process.env, NODE_ENV: 'production' } });
  const waiting = [];
  createInterface({ input: child.stdout }).on('line', (line) => waiting.shift()?.(JSON.parse(line)));
  child.once('exit', (code) => {
    for (const w of waiting.splice(0)) w({ error: `load generator exited with code ${code}` });
  });
  return {
    send(msg) {
      return new Promise((resolve) => {
        waiting.push(resolve);
        child.stdin.write(`${JSON.stringify(msg)}\n`);
      });
    },
    stop() {
      if (child.exitCode === null) child.stdin.end();
    },
  };
}
