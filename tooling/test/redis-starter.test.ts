/**
 * The throw-away redis-server starter survives a port taken between choosing it and binding it
 * (parallel test workers do that), and never hands out another process's server.
 */
import { createServer, connect, type Server } from 'node:net';
import { startRedis, type RedisServer } from '../testing/redis';

jest.setTimeout(30_000);

/** The process id of the redis answering on `port`. */
function pidOn(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    let answer = '';
    const socket = connect(port, '127.0.0.1', () => socket.write('INFO server\r\n'));
    socket.on('data', (data: Buffer) => {
      answer += data.toString();
      const found = /process_id:(\d+)\r\n/.exec(answer);
      if (found !== null) {
        socket.destroy();
        resolve(Number(found[1]));
      }
    });
    socket.once('error', reject);
  });
}

const started: RedisServer[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((server) => server.stop()));
});

test('a port another redis holds: starts its own on another port', async () => {
  const first = await startRedis();
  started.push(first);
  const second = await startRedis({ firstPort: first.port });
  started.push(second);
  expect(second.port).not.toBe(first.port);
  expect(await pidOn(second.port)).not.toBe(await pidOn(first.port));
});

test('a port some other program holds: starts on another port', async () => {
  const squatter: Server = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => squatter.listen(0, '127.0.0.1', resolve));
  const { port } = squatter.address() as { port: number };
  try {
    const server = await startRedis({ firstPort: port });
    started.push(server);
    expect(server.port).not.toBe(port);
    expect(typeof (await pidOn(server.port))).toBe('number');
  } finally {
    await new Promise<void>((resolve) => squatter.close(() => resolve()));
  }
});
