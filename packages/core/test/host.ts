import type { Application } from '../src/index.js';
import type { PluginHost } from '../src/plugin.js';

let probes = 0;

/** The plugin host of `app`, as a plugin's `setup` receives it (tests use it in place of a plugin). */
export function hostOf(app: Application): PluginHost {
  let host: PluginHost | undefined;
  app.register({ name: `test-probe-${++probes}`, setup: (given) => void (host = given) });
  return host!;
}
