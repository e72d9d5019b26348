// In process, under jest's module registry: createApp requires @fw/graphql, @fw/grpc and
// @fw/tracing when an option asks for one, not when @fw/app is loaded, and through the host's
// registry (so a mock of one applies). Each mock factory records when the registry runs it.

import type { createApp as CreateApp } from '@fw/app';

type Loaded = string[];

/** Mocks the three protocol packages with recording factories, then loads a fresh @fw/app. */
async function withMockedProtocols(run: (createApp: typeof CreateApp, loaded: Loaded) => void): Promise<void> {
  await jest.isolateModulesAsync(async () => {
    const loaded: Loaded = [];
    const plugin = (name: string) => (config: { path?: string }) => ({ name, path: config.path, setup: () => undefined, getSchema: () => `${name} schema` });
    jest.doMock('@fw/graphql', () => {
      loaded.push('@fw/graphql');
      return { validateGraphQLConfig: () => undefined, graphqlPlugin: plugin('graphql') };
    });
    jest.doMock('@fw/grpc', () => {
      loaded.push('@fw/grpc');
      return { validateGrpcConfig: () => undefined, grpcPlugin: plugin('grpc') };
    });
    jest.doMock('@fw/tracing', () => {
      loaded.push('@fw/tracing');
      return { tracingPlugin: plugin('tracing') };
    });
    const { createApp } = await import('@fw/app');
    run(createApp, loaded);
  });
}

describe('createApp under a host module registry', () => {
  afterEach(() => {
    jest.resetModules();
  });

  it('requires no protocol package for a REST-only app, or for options switched off', async () => {
    await withMockedProtocols((createApp, loaded) => {
      createApp();
      createApp({ protocols: { graphql: false, grpc: false }, observability: { tracing: { enabled: false, serviceName: 'off' } } });
      expect(loaded).toEqual([]);
    });
  });

  it('requires @fw/graphql through the registry when protocols.graphql is set', async () => {
    await withMockedProtocols((createApp, loaded) => {
      const app = createApp({ protocols: { graphql: { schema: {} as never, path: '/gql' } } });
      expect(loaded).toEqual(['@fw/graphql']);
      expect(app.getProtocolManager()?.getGraphQLPath()).toBe('/gql');
      expect(app.getProtocolManager()?.getGraphQLSchema()).toBe('graphql schema');
    });
  });

  it('requires @fw/grpc when protocols.grpc is set, and @fw/tracing when tracing is enabled', async () => {
    await withMockedProtocols((createApp, loaded) => {
      createApp({ protocols: { grpc: { services: {} } } });
      expect(loaded).toEqual(['@fw/grpc']);
      const app = createApp({ observability: { tracing: { enabled: true, serviceName: 'on' } } });
      expect(loaded).toEqual(['@fw/grpc', '@fw/tracing']);
      expect(app.getPlugin('tracing')).toBeDefined();
    });
  });
});
