import { Application } from '@fw/core';
import type { PluginHost } from '@fw/core/plugin';
import { createGraphQLHandler, graphqlPlugin } from '../src/index.js';
import { gql, schema, serve } from './helpers.js';

const rootValue = {
  hello: () => 'hi',
  boom: () => {
    throw new Error('disk full\nFAKE LOG LINE');
  },
};

/** Registers a plugin that only hands its host to `use`. */
function withHost(app: Application, use: (host: PluginHost) => void): void {
  app.register({ name: 'probe', setup: use });
}

describe('logging', () => {
  it("goes to the app's logger when the GraphQL config has no onLog", async () => {
    const logged: string[] = [];
    const served = await serve({ schema, rootValue }, undefined, { onLog: (message) => logged.push(message) });
    try {
      const res = await gql(served.endpoint, { query: '{ boom }' });
      expect(res.body.errors[0].message).toBe('Internal server error');
      expect(logged).toEqual(['GraphQL error at boom: disk full\\nFAKE LOG LINE']);
    } finally {
      await served.close();
    }
  });

  it('gives a custom onLog the message with its control characters escaped', async () => {
    const logged: Array<{ message: string; error: unknown }> = [];
    const appLogged: string[] = [];
    const served = await serve({ schema, rootValue, onLog: (message, error) => logged.push({ message, error }) }, undefined, {
      onLog: (message) => appLogged.push(message),
    });
    try {
      await gql(served.endpoint, { query: '{ boom }' });
      expect(logged).toHaveLength(1);
      expect(logged[0]!.message).toBe('GraphQL error at boom: disk full\\nFAKE LOG LINE');
      expect(logged[0]!.error).toBeInstanceOf(Error);
      expect(appLogged).toEqual([]);
    } finally {
      await served.close();
    }
  });

  it("goes to stderr as one escaped entry for a standalone handler without onLog", async () => {
    const stderr = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    const app = new Application({ onLog: () => undefined });
    withHost(app, (host) => host.claimPath('/api/graphql', createGraphQLHandler({ schema, rootValue }), { protocol: 'graphql' }));
    const { url } = await app.listen(0, '127.0.0.1');
    try {
      const res = await gql(`${url}/api/graphql`, { query: '{ boom }' });
      expect(res.body.errors[0].message).toBe('Internal server error');
      expect(stderr).toHaveBeenCalledTimes(1);
      const [entry, ...rest] = stderr.mock.calls[0]!;
      expect(rest).toEqual([]);
      expect(entry).toMatch(/^GraphQL error at boom: disk full\\nFAKE LOG LINE Error: disk full\\nFAKE LOG LINE\n {4}at /);
    } finally {
      stderr.mockRestore();
      await app.close();
    }
  });
});

describe('the error guard around the app middleware', () => {
  it("is the GraphQL path's own: no wrapper of the app, so REST requests and gRPC calls (which run the wrappers) never pass it", () => {
    const app = new Application();
    app.register(graphqlPlugin({ schema }));
    let wrappers: PluginHost['wrappers'] = () => [];
    withHost(app, (host) => {
      wrappers = () => host.wrappers();
    });
    expect(wrappers()).toEqual([]);
  });
});
