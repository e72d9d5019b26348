import type { LogTarget } from '../types.js';

/** FORCE_COLOR values that turn colours on (node: 16, 256 and 16 million colours); any other turns them off. */
const FORCE_ON = new Set(['', '1', '2', '3', 'true']);

/**
 * Whether `logger()` colours by default, decided as node's `tty.WriteStream#getColorDepth` does:
 * `FORCE_COLOR` first (`''`, `1`, `2`, `3`, `true` on, even without a TTY; any other value off),
 * then `NODE_DISABLE_COLORS`, `NO_COLOR` (any value, even empty) and `TERM=dumb` turn them off;
 * otherwise only a TTY is coloured, asking its own `hasColors()` when it has one.
 */
export function useColors(target: LogTarget, env: Readonly<Record<string, string | undefined>>): boolean {
  const force = env.FORCE_COLOR;
  if (force !== undefined) return FORCE_ON.has(force);
  if (env.NODE_DISABLE_COLORS !== undefined || env.NO_COLOR !== undefined || env.TERM === 'dumb') return false;
  if (typeof target === 'function' || target.isTTY !== true) return false;
  if (typeof target.hasColors !== 'function') return true;
  try {
    return target.hasColors(env) === true;
  } catch {
    return false;
  }
}
