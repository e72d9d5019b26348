// Starts a benchmark server as its own process (pinned, NODE_ENV=production) and waits for the
// line it prints when ready: {"ready":true,"port":N,"scenarios":["static",...]}.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { pinned } from './tools.mjs';

export async function startServer({ name, file, pin, nodeArgs = [], env = {}, timeoutMs = 20_000 }) {
  const [cmd, args] = pinned(pin, 'server', process.execPath, [...nodeArgs, file]);
  const child = spawn(cmd, args, {
    // stdin stays a pipe: the server exits when it closes, so no server outlives the harness.
    stdio: ['pipe', 'pipe', 'inherit'],
    env: { ...process.env, NODE_ENV: 'production', ...env },
  });
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const ready = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name}: not ready after ${timeoutMs} ms`)), timeoutMs);
    const lines = createInterface({ input: child.stdout });
    lines.on('line', (line) => {
      let msg;
      try {
        msg = JSON.parse(line);
      } catch {
        process.stdout.write(`[${name}] ${line}\n`);
        return;
      }
      if (msg && msg.ready === true) {
        clearTimeout(timer);
        resolve(msg);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${name}: exited with code ${code} before it was ready`));
    });
  });
  return {
    name,
    // taskset execs node in place, so this pid is the server's.
    pid: child.pid,
    port: ready.port,
    scenarios: new Set(ready.scenarios),
    baseUrl: `http://127.0.0.1:${ready.port}`,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.stdin.end();
        child.kill('SIGTERM');
      }
      const killer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(killer);
    },
  };
}
