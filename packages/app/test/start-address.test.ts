// What `fw start` prints about where it serves: the address bound, and beside it one a person can
// open when that is every interface (`http://0.0.0.0:3000` is no page a browser can load).
import { freePort, fwStart, httpGet, stopChild, type Started } from './scale-out/support.js';

jest.setTimeout(60_000);

describe('fw start on every interface', () => {
  let running: Started | undefined;

  afterAll(async () => {
    await stopChild(running?.child, 'SIGTERM');
  });

  it('prints the address bound, then http://localhost:<port> to open, which answers', async () => {
    running = await fwStart(['--workers', '1', '--port', '0', '--host', '0.0.0.0'], { GRPC_PORT: String(await freePort()), SHUTDOWN_DELAY: '0' });
    expect(running.url).toMatch(/^http:\/\/0\.0\.0\.0:\d+$/);
    const port = new URL(running.url).port;
    const line = running.output().split('\n').find((text) => text.includes('workers serving'));
    expect(line).toMatch(new RegExp(`^fw: 1 workers serving http://0\\.0\\.0\\.0:${port}, gRPC on \\S+ \\(primary \\d+\\) — open http://localhost:${port}$`));
    expect((await httpGet(`http://localhost:${port}/pid`)).status).toBe(200);
  });
});
