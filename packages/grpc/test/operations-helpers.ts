import * as grpc from '@grpc/grpc-js';
import { fromJSON, type Options } from '@grpc/proto-loader';
import protobuf from 'protobufjs';
import { Application, type ApplicationConfig, type Operation } from '@fw/core';
import { grpcPlugin, type GeneratedProto, type GrpcConfig, type GrpcPlugin } from '../src/index.js';

/** How the test clients load generated protos: no defaults, so what is absent on the wire is absent here. */
export const CLIENT_OPTIONS: Options = { keepCase: true, longs: Number, enums: String, defaults: false, oneofs: false };

/** A grpc-js client of one generated service, loaded from the generated files as a client in another program would. */
export function generatedClient(files: readonly GeneratedProto[], service: string, target: string, options: Options = CLIENT_OPTIONS): grpc.Client {
  const file = files.find((f) => service.startsWith(`${protobuf.parse(f.text).package ?? ''}.`));
  if (file === undefined) throw new Error(`no generated file defines ${service}`);
  const definition = fromJSON(protobuf.parse(file.text, new protobuf.Root(), { keepCase: true }).root.toJSON(), options);
  let constructor: unknown = grpc.loadPackageDefinition(definition);
  for (const part of service.split('.')) constructor = (constructor as Record<string, unknown>)[part];
  return new (constructor as grpc.ServiceClientConstructor)(target, grpc.credentials.createInsecure());
}

/** A running app serving operations over gRPC. */
export interface StartedOperations {
  app: Application;
  grpc: GrpcPlugin;
  target: string;
  /** The app's HTTP address (`http://127.0.0.1:<port>`), where operations with `rest` are served. */
  url: string;
  logs: Array<{ message: string; error: unknown }>;
}

/** An app with the operations registered and the gRPC plugin listening on free ports of 127.0.0.1. */
export async function startOperations(
  operations: readonly Operation[],
  config: Partial<GrpcConfig> = {},
  prepare?: (app: Application) => void,
  appConfig: ApplicationConfig = {},
): Promise<StartedOperations> {
  const logs: StartedOperations['logs'] = [];
  const app = new Application(appConfig);
  const plugin = grpcPlugin({ port: 0, host: '127.0.0.1', onLog: (message, error) => logs.push({ message, error }), ...config });
  app.register(plugin);
  for (const op of operations) app.operation(op);
  prepare?.(app);
  const { url } = await app.listen(0, '127.0.0.1');
  return { app, grpc: plugin, target: plugin.address!.target, url, logs };
}

/** The messages of google/rpc/status.proto and error_details.proto a client decodes rich errors with. */
export const richErrorRoot = protobuf.parse(`
syntax = "proto3";
package google.rpc;
message Any { string type_url = 1; bytes value = 2; }
message Status { int32 code = 1; string message = 2; repeated Any details = 3; }
message BadRequest {
  message FieldViolation { string field = 1; string description = 2; }
  repeated FieldViolation field_violations = 1;
}
`, { keepCase: true }).root;

/** Decodes `grpc-status-details-bin` into the status and its BadRequest violations. */
export function decodeRichStatus(bytes: Uint8Array): { code: number; message: string; typeUrls: string[]; violations: Array<{ field: string; description: string }> } {
  const status = richErrorRoot.lookupType('google.rpc.Status').toObject(richErrorRoot.lookupType('google.rpc.Status').decode(bytes), { defaults: true }) as {
    code: number;
    message: string;
    details: Array<{ type_url: string; value: Uint8Array }>;
  };
  const BadRequest = richErrorRoot.lookupType('google.rpc.BadRequest');
  const bad = status.details.find((d) => d.type_url === 'type.googleapis.com/google.rpc.BadRequest');
  const violations = bad === undefined ? [] : (BadRequest.toObject(BadRequest.decode(bad.value), { defaults: true }) as { field_violations: Array<{ field: string; description: string }> }).field_violations;
  return { code: status.code, message: status.message, typeUrls: status.details.map((d) => d.type_url), violations };
}
