// In process, under jest's module registry: importing @fw/app loads every fw package, and those
// require graphql, the gRPC libraries and OpenTelemetry only when an option asks for them, through
// the host's registry. Each library is wrapped in a recording mock that hands out the real module.

import type { createApp as CreateApp } from '@fw/app';
import type * as GraphQLLib from 'graphql';

/** The libraries a REST-only app must not load, and the options that load them. */
const HEAVY = ['graphql', 'graphql-jit', 'graphql-sse', 'graphql-ws', 'ws', '@grpc/grpc-js', '@grpc/proto-loader', '@grpc/reflection', 'grpc-health-check', 'protobufjs', '@opentelemetry/api'];

type Loaded = string[];

/** Records every heavy library the registry loads, then loads a fresh @fw/app. */
async function withRecordedLibraries(run: (createApp: typeof CreateApp, loaded: Loaded) => void): Promise<void> {
  await jest.isolateModulesAsync(async () => {
    const loaded: Loaded = [];
    for (const name of HEAVY) {
      jest.doMock(name, () => {
        loaded.push(name);
        return jest.requireActual(name);
      });
    }
    const { createApp } = await import('@fw/app');
    run(createApp, loaded);
  });
}

describe('createApp under a host module registry', () => {
  afterEach(() => {
    jest.resetModules();
  });

  it('loads none of graphql, the gRPC libraries or OpenTelemetry for a REST-only app, or for options switched off', async () => {
    await withRecordedLibraries((createApp, loaded) => {
      expect(loaded).toEqual([]);
      const app = createApp({ cors: true });
      app.get('/ping', (ctx) => ctx.json({ pong: true }));
      createApp({ protocols: { graphql: false, grpc: false }, observability: { tracing: { enabled: false, serviceName: 'off' }, metrics: { enabled: false } } });
      expect(loaded).toEqual([]);
    });
  });

  it('loads graphql through the registry when protocols.graphql is set, and no gRPC or OpenTelemetry library', async () => {
    await withRecordedLibraries((createApp, loaded) => {
      const { buildSchema } = jest.requireActual<typeof GraphQLLib>('graphql');
      const app = createApp({ protocols: { graphql: { schema: buildSchema('type Query { hello: String }'), path: '/gql' } } });
      expect(loaded).toContain('graphql');
      expect(loaded.filter((name) => name.startsWith('@grpc/') || name.startsWith('@opentelemetry/') || name === 'protobufjs')).toEqual([]);
      expect(app.getProtocolManager()?.getGraphQLPath()).toBe('/gql');
    });
  });

  it('loads the gRPC libraries when protocols.grpc is set, and @opentelemetry/api when tracing is enabled', async () => {
    await withRecordedLibraries((createApp, loaded) => {
      createApp({ protocols: { grpc: true } });
      expect(loaded).toEqual(expect.arrayContaining(['@grpc/grpc-js', '@grpc/proto-loader', 'protobufjs']));
      expect(loaded.filter((name) => name.startsWith('graphql') || name.startsWith('@opentelemetry/'))).toEqual([]);
      const app = createApp({ observability: { tracing: { enabled: true, serviceName: 'on' } } });
      expect(loaded).toContain('@opentelemetry/api');
      expect(app.getPlugin('tracing')).toBeDefined();
    });
  });
});
