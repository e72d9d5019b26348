import { execFile } from 'node:child_process';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import type { Application } from '@fw/core';
import { generateProtos } from '@fw/grpc';
import { bufBinary, writeBufModule } from '../../../tooling/testing/buf.js';
import { calls, connectApp, OPERATIONS } from './fixtures.js';

// `buf curl`, the Buf CLI's client for Connect, gRPC-Web and gRPC, against the Connect transport
// on a real socket, with the schema compiled by buf from the .proto files fw emits: a client and a
// protobuf compiler nobody on the team wrote. Answers are compared as buf prints them.

jest.setTimeout(60_000);

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

describe('buf curl against the Connect transport', () => {
  let app: Application;
  let baseUrl: string;
  let schema: string;

  beforeAll(async () => {
    schema = await writeBufModule(generateProtos(OPERATIONS), 'fw-buf-curl-');
    app = connectApp();
    const info = await app.listen(0, '127.0.0.1');
    baseUrl = `http://127.0.0.1:${info.port}`;
  });

  afterAll(async () => {
    await app?.close();
    if (schema) await rm(schema, { recursive: true, force: true });
  });

  function curl(protocol: string, method: string, data: unknown, headers: string[] = []): Promise<Run> {
    const args = ['curl', '--schema', schema, '--protocol', protocol, '--data', JSON.stringify(data), ...headers.flatMap((h) => ['-H', h]), `${baseUrl}/bookstore.v1.Catalog/${method}`];
    return new Promise((resolve) => {
      execFile(bufBinary(), args, { timeout: 30_000, env: { ...process.env, BUF_CACHE_DIR: path.join(schema, '.cache') } }, (err, stdout, stderr) =>
        resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : 1, stdout, stderr }),
      );
    });
  }

  /** What buf prints on stderr for a failed call: one JSON object with the code and message. */
  function failure(run: Run): { code: string; message: string } {
    expect(run.code).not.toBe(0);
    const parsed = JSON.parse(run.stderr) as { code: string; message: string };
    return { code: parsed.code, message: parsed.message };
  }

  describe.each(['connect', 'grpcweb'])('with --protocol %s', (protocol) => {
    it('calls a unary method and prints the answer in canonical proto3 JSON', async () => {
      const run = await curl(protocol, 'GetBook', { id: 'b1' });
      expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
      // buf's own JSON printer, from its own descriptors: lowerCamelCase names, the enum by name, an
      // int64 (`z.number().int()`) as a string.
      expect(JSON.parse(run.stdout)).toEqual({ book: { id: 'b1', title: 'Dune', priceCents: '1299', genre: 'GENRE_SCIENCE_FICTION' } });
    });

    it('gets the refusals with their codes: not_found, unauthenticated, permission_denied, invalid_argument', async () => {
      expect(failure(await curl(protocol, 'GetBook', { id: 'missing' }))).toEqual({ code: 'not_found', message: 'No book missing' });
      const add = { title: 'Solaris', priceCents: 900, genre: 'GENRE_SCIENCE_FICTION' };
      expect(failure(await curl(protocol, 'AddBook', add))).toEqual({ code: 'unauthenticated', message: 'Authentication required' });
      expect(failure(await curl(protocol, 'AddBook', add, ['Authorization: Bearer guest']))).toEqual({ code: 'permission_denied', message: 'Admins only' });
      expect(failure(await curl(protocol, 'GetBook', { id: '' }))).toMatchObject({ code: 'invalid_argument' });
      const ok = await curl(protocol, 'AddBook', add, ['Authorization: Bearer admin']);
      expect(JSON.parse(ok.stdout)).toEqual({ book: { id: 'b2', title: 'Solaris', priceCents: '900', genre: 'GENRE_SCIENCE_FICTION' } });
    });

    it('reads a server stream to its end, and an error that ends one with its code', async () => {
      const finished = calls.streamsFinished;
      const run = await curl(protocol, 'Countdown', { from: 3 });
      expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
      // One JSON document per message.
      const messages = run.stdout.trim().split(/\n(?=\{)/).map((text) => JSON.parse(text) as unknown);
      expect(messages).toEqual([{ count: { left: '3' } }, { count: { left: '2' } }, { count: { left: '1' } }]);
      const failed = await curl(protocol, 'Countdown', { from: 2, fail: true });
      expect(failed.stdout.trim().split(/\n(?=\{)/).map((text) => JSON.parse(text) as unknown)).toEqual([{ count: { left: '2' } }, { count: { left: '1' } }]);
      expect(failure(failed)).toEqual({ code: 'failed_precondition', message: 'Out of stock' });
      expect(calls.streamsFinished).toBe(finished + 2);
    });
  });
});
