import { mkdir, mkdtemp, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Application } from '@fw/core';
import { grpcPlugin, validateGrpcConfig } from '../src/index.js';
import { PROTO, unary } from './helpers.js';
import { operation, t } from './fixtures/operation.js';
import { generatedClient, startOperations } from './operations-helpers.js';

const echo = (service = 'shop.Echo', name = 'say') =>
  operation<{ text: string }, unknown>({
    name,
    input: t.object({ text: t.string() }),
    output: t.object({ text: t.string() }),
    grpc: { service },
    handler: (input) => ({ text: input.text.toUpperCase() }),
  });

describe('gRPC config for apps that serve operations', () => {
  it('accepts grpc: true and a config with neither services nor a proto', () => {
    expect(() => validateGrpcConfig(true, 'node-http')).not.toThrow();
    expect(() => validateGrpcConfig({ port: 0 })).not.toThrow();
    expect(() => validateGrpcConfig({ protoPath: PROTO })).not.toThrow();
  });

  it('still needs a proto for hand-written services, and a string protoOut', () => {
    expect(() => validateGrpcConfig({ services: { 'fwtest.Echo': {} } })).toThrow('give `protoPath` (your .proto file) or `packageDefinition`');
    expect(() => validateGrpcConfig({ protoOut: 42 as unknown as string })).toThrow('`protoOut` must be a directory path, got 42');
  });

  it('fails listen() with a clear error when there is nothing to serve', async () => {
    const app = new Application();
    app.register(grpcPlugin({ port: 0, host: '127.0.0.1' }));
    await expect(app.listen(0, '127.0.0.1')).rejects.toThrow('gRPC: nothing to serve. Give `services` (with `protoPath`) in the gRPC config, or register operations');
  });

  it('serves operations with no gRPC config at all, registered before or after the plugin', async () => {
    const app = new Application();
    app.operation(echo('shop.Echo', 'say'));
    const plugin = grpcPlugin(true);
    app.register(plugin);
    app.operation(echo('shop.Echo', 'shout'));
    // `true` binds the default port: listen on a free one through a config instead.
    const other = new Application();
    other.operation(echo('shop.Echo', 'say'));
    const served = grpcPlugin({ port: 0, host: '127.0.0.1' });
    other.register(served);
    await other.listen(0, '127.0.0.1');
    const client = generatedClient(served.generateProtos(), 'shop.Echo', served.address!.target);
    try {
      expect((await unary(client, 'Say', { text: 'hi' })).reply).toEqual({ text: 'HI' });
    } finally {
      client.close();
      await other.close();
    }
    expect(plugin.generateProtos().map((f) => f.file)).toEqual(['shop/shop.proto']);
    expect(plugin.generateProtos()[0]!.text).toContain('rpc Say(SayRequest) returns (SayResponse);\n  rpc Shout(ShoutRequest) returns (ShoutResponse);');
  });

  it('refuses an operation registered after listen()', async () => {
    const server = await startOperations([echo()]);
    try {
      expect(() => server.app.operation(echo('shop.Echo', 'late'))).toThrow(
        'Operation "late" names gRPC service "shop.Echo", but the gRPC server is already running: register gRPC operations before listen()',
      );
      // Operations without gRPC are none of its business.
      expect(() => server.app.operation(operation({ name: 'restOnly', input: t.object({}), output: t.string(), handler: () => '' }))).not.toThrow();
    } finally {
      await server.app.close();
    }
  });

  it('refuses at app.operation() an operation that cannot map to proto, naming it and the path', () => {
    const app = new Application();
    app.register(grpcPlugin({ port: 0 }));
    const bad = operation({ name: 'tags', input: t.object({ tags: t.list(t.nullable(t.string())) }), output: t.string(), grpc: { service: 'shop.Tags' }, handler: () => '' });
    expect(() => app.operation(bad)).toThrow('Operation "tags": input.tags[]: a list (repeated field) of nullable values cannot map to proto');
  });

  it('refuses an operation whose service or types the hand-written proto already defines', () => {
    const app = new Application();
    app.register(grpcPlugin({ port: 0, protoPath: PROTO, services: { 'fwtest.Echo': { Unary: () => ({}) } } }));
    expect(() => app.operation(echo('fwtest.Echo', 'say'))).toThrow('"fwtest.Echo" (the service of operation "say") is generated for operations, but your own .proto already defines it');
    const clash = operation({ name: 'ping', input: t.object({}, 'EchoRequest'), output: t.object({}), grpc: { service: 'fwtest.Ping' }, handler: () => ({}) });
    expect(() => app.operation(clash)).toThrow('"fwtest.EchoRequest" (the type of operation "ping" at input) is generated for operations, but your own .proto already defines it');
  });

  it('refuses two operations on the same method', () => {
    const app = new Application();
    app.register(grpcPlugin({ port: 0 }));
    app.operation(echo('shop.Echo', 'say'));
    const twin = operation({ name: 'speak', input: t.object({}), output: t.object({}), grpc: { service: 'shop.Echo', method: 'Say' }, handler: () => ({}) });
    expect(() => app.operation(twin)).toThrow('Operation "speak": grpc: the method shop.Echo/Say is already served by operation "say"');
  });
});

describe('protoOut and the generated files', () => {
  let dir: string;

  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'fw-grpc-protos-'));
  });

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads field numbers from protoOut at listen(), and never writes there; a file where generation put it before (shop.proto) still counts', async () => {
    // A previous generation, before files were laid out by package directory, in which `text` had number 7.
    const previous = [
      'syntax = "proto3";',
      'package shop;',
      'service Echo { rpc Say(SayInput) returns (SayOutput); }',
      'message SayInput { string text = 7; reserved 1 to 6; }',
      'message SayOutput { string text = 3; }',
      '',
    ].join('\n');
    await writeFile(path.join(dir, 'shop.proto'), previous);
    const server = await startOperations([echo()], { protoOut: dir });
    // A client built from the committed file talks to the server.
    const client = generatedClient([{ file: 'shop.proto', text: previous }], 'shop.Echo', server.target);
    try {
      expect((await unary(client, 'Say', { text: 'numbers kept' })).reply).toEqual({ text: 'NUMBERS KEPT' });
      expect(await readFile(path.join(dir, 'shop.proto'), 'utf8')).toBe(previous);
      // The committed file is not what generation gives now: listen() says so.
      expect(server.logs.map((l) => l.message)).toEqual([
        `gRPC: shop/shop.proto in protoOut (${dir}) is missing or out of date with the operations: write and commit it (\`fw emit\`, or the plugin's writeProtos()), so that the field numbers in use now stay reserved`,
      ]);
    } finally {
      client.close();
      await server.app.close();
    }
  });

  it('says nothing at listen() when protoOut holds what generation gives', async () => {
    const app = new Application();
    const logs: string[] = [];
    const plugin = grpcPlugin({ port: 0, host: '127.0.0.1', protoOut: dir, onLog: (message) => logs.push(message) });
    app.register(plugin);
    app.operation(echo());
    await plugin.writeProtos();
    await app.listen(0, '127.0.0.1');
    await app.close();
    expect(logs).toEqual([]);
  });

  it('fails listen() naming the file when the previous proto cannot be read', async () => {
    await writeFile(path.join(dir, 'shop.proto'), 'syntax = "proto3"; message {');
    const app = new Application();
    app.register(grpcPlugin({ port: 0, host: '127.0.0.1', protoOut: dir }));
    app.operation(echo());
    await expect(app.listen(0, '127.0.0.1')).rejects.toThrow('Could not read the field numbers of the previous shop.proto');
  });

  it('writeProtos() writes each file once, only when its content changed, and returns the paths', async () => {
    const app = new Application();
    const plugin = grpcPlugin({ port: 0, protoOut: dir });
    app.register(plugin);
    app.operation(echo('shop.v1.Echo'));
    const paths = await plugin.writeProtos();
    expect(paths).toEqual([path.join(dir, 'shop', 'v1', 'shop.proto')]);
    const text = await readFile(paths[0]!, 'utf8');
    expect(text).toBe(plugin.generateProtos()[0]!.text);
    // Unchanged content is not written again: the file keeps the modification time set here.
    const past = new Date('2001-02-03T04:05:06Z');
    await utimes(paths[0]!, past, past);
    await expect(plugin.writeProtos()).resolves.toEqual(paths);
    expect((await stat(paths[0]!)).mtime).toEqual(past);
    // A changed operation rewrites it.
    app.operation(echo('shop.v1.Echo', 'shout'));
    await plugin.writeProtos();
    expect((await stat(paths[0]!)).mtime).not.toEqual(past);
    expect(await readFile(paths[0]!, 'utf8')).toContain('rpc Shout(ShoutRequest) returns (ShoutResponse);');
  });

  it('writeProtos(dir) numbers from the files in dir; without a dir or protoOut it rejects', async () => {
    const app = new Application();
    const plugin = grpcPlugin({ port: 0 });
    app.register(plugin);
    app.operation(echo());
    await mkdir(dir, { recursive: true });
    await mkdir(path.join(dir, 'shop'));
    await writeFile(path.join(dir, 'shop', 'shop.proto'), 'syntax = "proto3"; package shop; service Echo { rpc Say(SayRequest) returns (SayResponse); } message SayRequest { string text = 4; } message SayResponse {}');
    await plugin.writeProtos(dir);
    expect(await readFile(path.join(dir, 'shop', 'shop.proto'), 'utf8')).toContain('message SayRequest {\n  optional string text = 4;\n}');
    await expect(plugin.writeProtos()).rejects.toThrow('writeProtos: give a directory, or set `protoOut` in the gRPC config');
  });

  it('generateProtos() needs the plugin registered on an application', () => {
    expect(() => grpcPlugin({ port: 0 }).generateProtos()).toThrow('generateProtos: register the gRPC plugin on an application first');
  });
});
