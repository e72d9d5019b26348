import { Application } from '@fw/core';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createGunzip } from 'node:zlib';
import { compress } from './index.js';

// compress() on the wire: curl and undici (Node's fetch) decode what it sends to the bytes of the
// uncompressed answer; a streamed answer reaches the client while the handler is still writing.

const run = promisify(execFile);
const BIG = JSON.stringify({ items: Array.from({ length: 300 }, (_, i) => ({ id: i, name: `item-${i}`, price: i * 1.25 })) });

describe('compress() over a socket', () => {
  const app = new Application({ onLog: () => undefined });
  let url = '';
  let dir = '';
  let releaseStream: (() => void) | undefined;
  const streamEnded: { aborted?: boolean; writes: number } = { writes: 0 };
  let streamDone: Promise<void> = Promise.resolve();

  beforeAll(async () => {
    app.use(compress());
    app.get('/big', (ctx) => ctx.json(JSON.parse(BIG)));
    app.get('/stream', async (ctx) => {
      ctx.res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
      ctx.res.write('first line\n');
      // Written only once the client has seen the first line: a buffering compressor would hang here.
      await new Promise<void>((resolve) => (releaseStream = resolve));
      ctx.res.end('last line\n');
    });
    app.get('/endless', async (ctx) => {
      let finish!: () => void;
      streamDone = new Promise((resolve) => (finish = resolve));
      ctx.res.writeHead(200, { 'content-type': 'application/x-ndjson' });
      while (!ctx.signal.aborted) {
        ctx.res.write(`${JSON.stringify({ n: streamEnded.writes++ })}\n`);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      streamEnded.aborted = true;
      finish();
    });
    url = (await app.listen(0, '127.0.0.1')).url;
    dir = mkdtempSync(join(tmpdir(), 'fw-compress-'));
  });
  afterAll(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it.each(['gzip', 'br'])('curl --compressed decodes %s to the uncompressed answer, on one kept-alive connection', async (coding) => {
    const headers = join(dir, `${coding}.txt`);
    const { stdout } = await run('curl', ['-sS', '--compressed', '-H', `Accept-Encoding: ${coding}`, '-D', headers, '-w', '\n%{size_download} %{num_connects}\n', `${url}/big`, `${url}/big`]);
    const lines = stdout.split('\n');
    const [downloaded, connects] = lines[3]!.split(' ').map(Number);
    expect(lines[0] === BIG).toBe(true);
    expect(lines[2] === BIG).toBe(true);
    // The second request reused the connection (num_connects 0), and went over the wire compressed.
    expect(connects).toBe(0);
    expect(downloaded).toBeLessThan(BIG.length / 3);
    const head = readFileSync(headers, 'utf8').toLowerCase();
    expect(head).toContain(`content-encoding: ${coding}`);
    expect(head).toContain('vary: accept-encoding');
    expect(head).not.toContain('content-length');
  });

  it.each(['gzip', 'br'])('undici (fetch) decodes %s to the uncompressed answer', async (coding) => {
    const res = await fetch(`${url}/big`, { headers: { 'accept-encoding': coding } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-encoding')).toBe(coding);
    expect(await res.text()).toBe(BIG);
  });

  it('sends what a streamed answer wrote before the handler finishes', async () => {
    const text = await new Promise<string>((resolve, reject) => {
      const req = request(`${url}/stream`, { headers: { 'accept-encoding': 'gzip' }, agent: false }, (res) => {
        expect(res.headers['content-encoding']).toBe('gzip');
        const gunzip = createGunzip();
        let seen = '';
        gunzip.on('data', (chunk: Buffer) => {
          seen += chunk.toString();
          // The first line arrived while the handler still waits for us.
          if (seen === 'first line\n') releaseStream!();
        });
        gunzip.on('end', () => resolve(seen));
        gunzip.on('error', reject);
        res.pipe(gunzip);
      });
      req.on('error', reject);
      req.end();
    });
    expect(text).toBe('first line\nlast line\n');
  });

  it('stops a streamed answer when the client leaves, and serves the next one', async () => {
    await new Promise<void>((resolve, reject) => {
      const req = request(`${url}/endless`, { headers: { 'accept-encoding': 'br' }, agent: false }, (res) => {
        res.once('data', () => {
          req.destroy();
          resolve();
        });
      });
      req.on('error', (err: NodeJS.ErrnoException) => (err.code === 'ECONNRESET' ? undefined : reject(err)));
      req.end();
    });
    await streamDone;
    expect(streamEnded.aborted).toBe(true);
    const res = await fetch(`${url}/big`, { headers: { 'accept-encoding': 'gzip' } });
    expect(await res.text()).toBe(BIG);
  });
});
