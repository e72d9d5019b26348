// Finding and installing the external tools the HTTP benchmark uses: wrk and taskset.
import { execFileSync, spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';

export function onPath(cmd) {
  return spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;
}

/** Makes sure wrk is installed: installs the Debian package when missing and we are root with apt-get. */
export function ensureWrk() {
  if (onPath('wrk')) return;
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!root || !onPath('apt-get')) {
    throw new Error('wrk is not installed. Install it (Debian/Ubuntu: sudo apt-get install -y wrk; macOS: brew install wrk) and run again.');
  }
  console.log('wrk is missing: installing the Debian package (apt-get update && apt-get install -y wrk)…');
  execFileSync('sh', ['-c', 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk'], { stdio: 'inherit' });
  if (!onPath('wrk')) throw new Error('apt-get did not install wrk');
}

/**
 * How to pin the server and the load generator: with taskset and two or more cores, server on
 * `serverCpu`, wrk on `clientCpu`; otherwise unpinned (with a warning).
 */
export function pinning({ serverCpu, clientCpu }) {
  if (!onPath('taskset')) return { pinned: false, why: 'taskset not found' };
  if (availableParallelism() < 2) return { pinned: false, why: 'fewer than 2 cores' };
  return { pinned: true, serverCpu: String(serverCpu), clientCpu: String(clientCpu) };
}

/** Prefixes a command with `taskset -c <cpu>` when pinning. */
export function pinned(pin, which, cmd, args) {
  if (!pin.pinned) return [cmd, args];
  return ['taskset', ['-c', which === 'server' ? pin.serverCpu : pin.clientCpu, cmd, ...args]];
}
