import { checkOptions } from '@fw/core/plugin';
import { CONNECT_OPTION_NAMES } from '../options.js';
import type { ConnectConfig } from '../types.js';

/** The options that belong to hand-written `services`. */
const SERVICE_OPTIONS = ['protoPath', 'packageDefinition', 'loaderOptions', 'middleware'] as const;

/** Checks the options' names and values once, when the plugin is made. */
export function checkConnectConfig(config: ConnectConfig): ConnectConfig {
  if (config === null || typeof config !== 'object') throw new TypeError('connectPlugin: the config must be an object (or true)');
  checkOptions(config, CONNECT_OPTION_NAMES, { owner: 'connectPlugin' });
  const { protoOut, maxMessageBytes, compressMinBytes, onLog } = config;
  if (protoOut !== undefined && (typeof protoOut !== 'string' || protoOut === '')) throw new TypeError('connectPlugin: protoOut must be a directory path');
  if (maxMessageBytes !== undefined && !(Number.isInteger(maxMessageBytes) && maxMessageBytes > 0)) {
    throw new TypeError(`connectPlugin: maxMessageBytes must be a positive integer (bytes), got ${JSON.stringify(maxMessageBytes)}`);
  }
  if (compressMinBytes !== undefined && compressMinBytes !== false && !(Number.isInteger(compressMinBytes) && compressMinBytes >= 0)) {
    throw new TypeError(`connectPlugin: compressMinBytes must be an integer ≥ 0 or false, got ${JSON.stringify(compressMinBytes)}`);
  }
  if (onLog !== undefined && typeof onLog !== 'function') throw new TypeError('connectPlugin: onLog must be a function');
  if (config.services === undefined) {
    const given = SERVICE_OPTIONS.filter((name) => config[name] !== undefined);
    if (given.length > 0) throw new TypeError(`connectPlugin: ${given.join(', ')} ${given.length === 1 ? 'is' : 'are'} for hand-written \`services\`: give services too, or leave ${given.length === 1 ? 'it' : 'them'} out`);
  }
  return config;
}
