import { execFile } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { readConfig } from '../src/config.js';

// dist/app.js, the module `fw start` serves: a worker given no port (`fw start dist/app.js`, no
// --port and no PORT for the primary to pass on) calls listen() without one, which must bind the
// demo's PORT (3000 by default) and HOST, not a random port.

/** A port free on the loopback now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Loads dist/app.js in a child process as a worker does, listens without a port, and says where. */
function listenWithoutPort(env: Record<string, string>): Promise<{ port: number; host: string }> {
  const module = pathToFileURL(join(__dirname, '..', 'dist', 'app.js')).href;
  const script = `const { default: build } = await import(${JSON.stringify(module)});
const app = build();
const { port, host } = await app.listen();
console.log(JSON.stringify({ port, host }));
await app.close();
process.exit(0);`;
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--input-type=module', '-e', script], { env: { ...process.env, GRPC_PORT: '0', LOG_REQUESTS: '0', ...env }, timeout: 20_000 }, (err, stdout, stderr) =>
      err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(JSON.parse(stdout) as { port: number; host: string }),
    );
  });
}

describe('the app module', () => {
  it('listens on PORT and HOST when listen() is given none, as an fw start worker does', async () => {
    const port = await freePort();
    expect(await listenWithoutPort({ PORT: String(port), HOST: '127.0.0.1' })).toEqual({ port, host: '127.0.0.1' });
  });

  it('reads PORT 3000 when it is not set, as the README says', () => {
    // Not bound here: 3000 may be taken on this machine. The test above shows listen() uses it.
    expect(readConfig({})).toMatchObject({ port: 3000, host: '127.0.0.1' });
  });
});
