import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import type { GrpcUnaryHandler } from '../src/index.js';
import { client, failure, start, unary, type EchoReply, type EchoRequest, type Started } from './helpers.js';

const Unary: GrpcUnaryHandler<EchoRequest, Partial<EchoReply>> = (call, callback) => callback(null, { message: `secure ${call.request.message}` });

describe('SSL credentials', () => {
  let dir: string;
  let cert: Buffer;
  let server: Started;

  beforeAll(async () => {
    // A throw-away self-signed certificate for 127.0.0.1/localhost, made with the system openssl.
    dir = mkdtempSync(path.join(tmpdir(), 'fw-grpc-ssl-'));
    const keyFile = path.join(dir, 'key.pem');
    const certFile = path.join(dir, 'cert.pem');
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', keyFile, '-out', certFile, '-days', '1', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1'],
      { stdio: 'ignore' },
    );
    cert = readFileSync(certFile);
    const credentials = grpc.ServerCredentials.createSsl(null, [{ private_key: readFileSync(keyFile), cert_chain: cert }], false);
    server = await start({ services: { 'fwtest.Echo': { Unary } }, credentials });
  });

  afterAll(async () => {
    await server.app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves calls over TLS to a client that trusts the certificate', async () => {
    const echo = client(server.target, 'Echo', grpc.credentials.createSsl(cert), { 'grpc.ssl_target_name_override': 'localhost' });
    try {
      expect((await unary(echo, 'Unary', { message: 'hello' })).reply.message).toBe('secure hello');
    } finally {
      echo.close();
    }
  });

  it('refuses a plaintext client', async () => {
    const echo = client(server.target);
    try {
      const err = await failure(unary(echo, 'Unary', { message: 'hello' }, { deadlineMs: 2000 }));
      expect([grpc.status.UNAVAILABLE, grpc.status.DEADLINE_EXCEEDED]).toContain(err.code);
    } finally {
      echo.close();
    }
  });

  it('refuses a TLS client that does not trust the certificate', async () => {
    const echo = client(server.target, 'Echo', grpc.credentials.createSsl(), { 'grpc.ssl_target_name_override': 'localhost' });
    try {
      const err = await failure(unary(echo, 'Unary', { message: 'hello' }, { deadlineMs: 2000 }));
      expect([grpc.status.UNAVAILABLE, grpc.status.DEADLINE_EXCEEDED]).toContain(err.code);
    } finally {
      echo.close();
    }
  });
});
