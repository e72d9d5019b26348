// start() as a function: the calling process is the primary, with the same workers as `fw start`.
import { start, type StartedApp } from '@fw/app';
import { APP, freePort, httpGet } from './scale-out/support.js';

jest.setTimeout(60_000);

describe('start()', () => {
  let running: StartedApp | undefined;

  afterAll(async () => {
    await running?.stop();
  });

  it('runs the module in N workers, replaces them one at a time with restart(), sums their metrics, and stops with 0', async () => {
    const grpcPort = await freePort();
    const env = { GRPC_PORT: String(grpcPort), METRICS: '1', SHUTDOWN_DELAY: '200' };
    running = await start({ module: APP, workers: 2, port: 0, host: '127.0.0.1', env, onLog: () => undefined });
    expect(running.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    // The loopback is already an address to open.
    expect(running.localUrl).toBe(running.url);
    expect(running.grpc?.port).toBe(grpcPort);
    expect(running.reusePort).toBe(false);
    const before = running.pids;
    expect(before).toHaveLength(2);
    for (let i = 0; i < 4; i++) expect((await httpGet(`${running.url}/pid`)).status).toBe(200);
    expect(await running.metrics()).toMatch(/^http_server_request_duration_seconds_count\{.*http_route="\/pid".*\} 4$/m);
    await running.restart();
    expect(running.pids).toHaveLength(2);
    for (const pid of running.pids) expect(before).not.toContain(pid);
    expect(await running.stop()).toBe(0);
    running = undefined;
  });
});
