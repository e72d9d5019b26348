import type * as grpc from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { Application } from '@fw/core';
import { grpcPlugin, validateGrpcConfig, type GrpcConfig } from '../src/index.js';
import { PROTO } from './helpers.js';

const noop = (): void => undefined;
const base = (services: GrpcConfig['services']): GrpcConfig => ({ protoPath: PROTO, services });

describe('validateGrpcConfig', () => {
  it('accepts a valid config on the node-http adapter, or with the default adapter', () => {
    expect(() => validateGrpcConfig(base({ 'fwtest.Echo': { Unary: noop } }), 'node-http')).not.toThrow();
    expect(() => validateGrpcConfig(base({ 'fwtest.Echo': { Unary: noop } }))).not.toThrow();
  });

  it("accepts handlers typed with grpc-js's own handler types", () => {
    const Unary: grpc.handleUnaryCall<{ message: string }, { message: string }> = (call, callback) => callback(null, { message: call.request.message });
    const Bidi: grpc.handleBidiStreamingCall<{ message: string }, { message: string }> = (call) => call.end();
    expect(() => validateGrpcConfig(base({ 'fwtest.Echo': { Unary, Bidi } }))).not.toThrow();
  });

  it('accepts gRPC turned off', () => {
    expect(() => validateGrpcConfig(false, 'bun')).not.toThrow();
    expect(() => validateGrpcConfig(undefined, 'bun')).not.toThrow();
  });

  it('rejects gRPC on any adapter other than node-http, saying gRPC requires it', () => {
    expect(() => validateGrpcConfig(base({ 'fwtest.Echo': {} }), 'uws')).toThrow(
      'gRPC requires the HTTP adapter "node-http", but adapter.type is "uws"',
    );
  });

  it('accepts grpc: true and a config without services: operations may name gRPC services', () => {
    expect(() => validateGrpcConfig(true, 'node-http')).not.toThrow();
    expect(() => validateGrpcConfig({ protoPath: PROTO })).not.toThrow();
  });

  it('rejects services that are empty or not an object', () => {
    expect(() => validateGrpcConfig(base({}))).toThrow('`services` is empty: name at least one "<package>.<Service>" to serve, or leave `services` out when operations are served');
    expect(() => validateGrpcConfig(base([] as unknown as GrpcConfig['services']))).toThrow('`services` must be an object');
    expect(() => validateGrpcConfig(base(null as unknown as GrpcConfig['services']))).toThrow('`services` must be an object');
  });

  it('rejects a config that gives no proto', () => {
    expect(() => validateGrpcConfig({ services: { 'fwtest.Echo': {} } })).toThrow('give `protoPath` (your .proto file) or `packageDefinition`');
  });

  it('reports a proto that cannot be loaded, keeping the cause', () => {
    let caught: Error | undefined;
    try {
      validateGrpcConfig({ protoPath: '/nowhere/missing.proto', services: { 'fwtest.Echo': {} } });
    } catch (err) {
      caught = err as Error;
    }
    expect(caught?.message).toContain('could not load protoPath "/nowhere/missing.proto"');
    expect(String((caught?.cause as Error | undefined)?.message)).toMatch(/ENOENT|no such file/);
  });

  it('names a service the proto does not define, listing the defined ones', () => {
    expect(() => validateGrpcConfig(base({ 'fwtest.Nope': {} }))).toThrow(`service "fwtest.Nope" is not defined in "${PROTO}". Defined services: fwtest.Echo, fwtest.Admin`);
  });

  it('suggests the full name for a service given without its package', () => {
    expect(() => validateGrpcConfig(base({ Echo: {} }))).toThrow('Did you mean "fwtest.Echo"?');
  });

  it('rejects a message type given as a service', () => {
    expect(() => validateGrpcConfig(base({ 'fwtest.EchoRequest': {} }))).toThrow('"fwtest.EchoRequest" in');
  });

  it('names a method the proto does not declare, listing the declared ones', () => {
    expect(() => validateGrpcConfig(base({ 'fwtest.Admin': { Shout: noop } }))).toThrow(
      `method "Shout" of service "fwtest.Admin" is not declared in "${PROTO}". Declared methods: WhoAmI`,
    );
  });

  it('accepts the camelCase method name but not both spellings', () => {
    expect(() => validateGrpcConfig(base({ 'fwtest.Echo': { unaryAsync: noop } }))).not.toThrow();
    expect(() => validateGrpcConfig(base({ 'fwtest.Echo': { UnaryAsync: noop, unaryAsync: noop } }))).toThrow('implemented twice');
  });

  it('names an implementation that is not a function', () => {
    expect(() => validateGrpcConfig(base({ 'fwtest.Echo': { Unary: 'nope' as unknown as () => void } }))).toThrow(
      'services["fwtest.Echo"].Unary must be a function, got string',
    );
  });

  it('names a resource limit given a value it cannot use', () => {
    const echo = { 'fwtest.Echo': { Unary: noop } };
    expect(() => validateGrpcConfig({ ...base(echo), maxConcurrentStreams: 0 })).toThrow('`maxConcurrentStreams` must be a positive integer, got 0');
    expect(() => validateGrpcConfig({ ...base(echo), maxConnectionAge: 1.5 })).toThrow('`maxConnectionAge` must be a positive integer (ms)');
    expect(() => validateGrpcConfig({ ...base(echo), maxMetadataSize: -1 })).toThrow('`maxMetadataSize` must be a positive integer (bytes)');
    expect(() => validateGrpcConfig({ ...base(echo), maxHealthWatches: { total: 0 } })).toThrow('`maxHealthWatches.total` must be a positive integer');
    expect(() => validateGrpcConfig({ ...base(echo), maxHealthWatches: 5 as unknown as GrpcConfig['maxHealthWatches'] })).toThrow('`maxHealthWatches` must be an object');
  });

  it('accepts an already loaded package definition', () => {
    const packageDefinition = loadSync(PROTO);
    expect(() => validateGrpcConfig({ packageDefinition, services: { 'fwtest.Admin': { WhoAmI: noop } } })).not.toThrow();
    expect(() => validateGrpcConfig({ packageDefinition, services: { 'fwtest.Gone': {} } })).toThrow('service "fwtest.Gone" is not defined in the packageDefinition');
    expect(() => validateGrpcConfig({ packageDefinition, protoPath: PROTO, services: { 'fwtest.Admin': {} } })).toThrow('not both');
  });

  it.each([
    [{ port: 70000 }, '`port` must be an integer from 0 to 65535'],
    [{ port: 1.5 }, '`port` must be an integer'],
    [{ host: '' }, '`host` must be a non-empty string'],
    [{ closeTimeout: -1 }, '`closeTimeout` must be a number of milliseconds'],
    [{ maxReceiveMessageLength: 0 }, '`maxReceiveMessageLength` must be a positive integer'],
    [{ maxSendMessageLength: 'big' }, '`maxSendMessageLength` must be a positive integer'],
    [{ health: 'yes' }, '`health` must be a boolean'],
    [{ middleware: 'all' }, "`middleware` must be 'global' or an array"],
    [{ middleware: [noop, 42] }, 'middleware at position 1 must be a function'],
  ])('rejects a bad option value %p', (options, message) => {
    expect(() => validateGrpcConfig({ ...base({ 'fwtest.Echo': {} }), ...(options as Partial<GrpcConfig>) })).toThrow(message);
  });
});

describe('validateGrpcConfig and unknown keys', () => {
  it('refuses a misspelt option instead of serving on the default port, naming the one meant and every accepted key', () => {
    expect(() => validateGrpcConfig({ ...base({ 'fwtest.Echo': {} }), prot: 50052 } as GrpcConfig)).toThrow(
      /^gRPC config: unknown option "prot"; did you mean "port"\? The accepted options are: port, host, services, credentials, protoPath/,
    );
  });

  it("refuses middlewares: 'global', which would leave authentication off for gRPC calls", () => {
    expect(() => validateGrpcConfig({ ...base({ 'fwtest.Echo': {} }), middlewares: 'global' } as GrpcConfig)).toThrow('unknown option "middlewares"; did you mean "middleware"?');
  });

  it('refuses an unknown key inside maxHealthWatches', () => {
    expect(() => validateGrpcConfig({ ...base({ 'fwtest.Echo': {} }), maxHealthWatches: { totl: 5 } } as unknown as GrpcConfig)).toThrow(
      'unknown option "maxHealthWatches.totl"; did you mean "total"? The accepted keys of maxHealthWatches are: perConnection, total',
    );
  });

  it("names 'global' for a misspelt middleware mode", () => {
    expect(() => validateGrpcConfig({ ...base({ 'fwtest.Echo': {} }), middleware: 'globall' } as unknown as GrpcConfig)).toThrow(
      "`middleware` must be 'global' or an array of middleware functions, got \"globall\"",
    );
  });

  it('lists nothing when the key is far from every accepted one', () => {
    expect(() => validateGrpcConfig({ ...base({ 'fwtest.Echo': {} }), colour: 'blue' } as GrpcConfig)).toThrow(/unknown option "colour"; the accepted options are: /);
  });
});

describe('grpcPlugin', () => {
  it('checks the config when it is created, before anything listens', () => {
    expect(() => grpcPlugin(base({ 'fwtest.Nope': {} }))).toThrow('service "fwtest.Nope" is not defined');
  });

  it('registers under the name grpc, once per application', () => {
    const plugin = grpcPlugin({ ...base({ 'fwtest.Echo': {} }), port: 0 });
    const app = new Application();
    app.register(plugin);
    expect(app.getPlugin('grpc')).toBe(plugin);
    expect(() => new Application().register(plugin)).toThrow('already registered on an application');
    expect(plugin.address).toBeUndefined();
  });
});
