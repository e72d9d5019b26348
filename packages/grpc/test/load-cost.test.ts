import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

// @fw/app exports this package's classes and functions to every app, those without gRPC included:
// importing the built package, making its errors and reading its status table must load none of
// the gRPC libraries; checking a config (an app that configures gRPC) and the plugin do.

const LIBRARIES = /[\\/]node_modules[\\/](@grpc[\\/][^\\/]+|grpc-health-check|protobufjs)[\\/]/;

/** The libraries in a fresh process's require cache after `body` ran (`fw` is the built package). */
function librariesAfter(body: string): string[] {
  const script = `
    const fw = require('@fw/grpc');
    ${body}
    const names = Object.keys(require.cache).map((file) => (${LIBRARIES.toString()}.exec(file) || [])[1]).filter(Boolean);
    process.stdout.write(JSON.stringify([...new Set(names)].sort()));`;
  return JSON.parse(execFileSync(process.execPath, ['-e', script], { cwd: join(__dirname, '..'), encoding: 'utf8' })) as string[];
}

describe('loading @fw/grpc', () => {
  it('loads no gRPC library, and its classes and status table need none', () => {
    const body = `
      const error = new fw.GrpcError(fw.GRPC_STATUS.NOT_FOUND, 'gone');
      if (!(error instanceof Error) || fw.grpcStatusOf({ statusCode: 404 }) !== 5 || fw.httpStatusFromGrpc(16) !== 401) throw new Error('values');
      fw.validateGrpcConfig(false, fw.GRPC_ADAPTER);`;
    expect(librariesAfter(body)).toEqual([]);
  });

  it('loads grpc-js with a config check, and the proto loader and protobufjs with the plugin', () => {
    expect(librariesAfter(`fw.validateGrpcConfig({}, fw.GRPC_ADAPTER);`)).toEqual(['@grpc/grpc-js']);
    expect(librariesAfter(`fw.grpcPlugin({});`)).toEqual(expect.arrayContaining(['@grpc/grpc-js', '@grpc/proto-loader', 'protobufjs']));
  });
});
