import type { ZodDef, ZodNode } from './zod4.js';

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

/** The ranges zod gives its number formats (`z.int()` is `safeint`): a schema's bounds and its OpenAPI constraints start from them. */
export const NUMBER_FORMAT_RANGES: Readonly<Record<string, readonly [number, number]>> = {
  safeint: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
  int32: [INT32_MIN, INT32_MAX],
  uint32: [0, 2 ** 32 - 1],
  float32: [-3.4028234663852886e38, 3.4028234663852886e38],
  float64: [-Number.MAX_VALUE, Number.MAX_VALUE],
};

/** The checks of a schema's definition: the definition itself when it is a check (a format schema such as `z.int()`), then each of its `checks`. */
export function checksOf(node: ZodNode): ZodDef[] {
  const def = node._zod.def;
  const checks: ZodDef[] = typeof def.check === 'string' ? [def] : [];
  if (Array.isArray(def.checks)) {
    for (const check of def.checks as unknown[]) {
      const checkDef = (check as Partial<ZodNode> | null)?._zod?.def;
      if (checkDef !== undefined) checks.push(checkDef);
    }
  }
  return checks;
}

/**
 * The scalar a zod number maps to: `float` without an integer check; with one (`.int()`, `z.int()`,
 * `z.int32()`, `z.uint32()`), `int32` when its bounds — the format's range narrowed by `.min()` /
 * `.max()` / `.gt()` / `.lt()` — lie inside ±2^31, else `int`. Read off the definition's checks (a
 * format schema such as `z.int()` is its own first check), then the bag third-party checks fill.
 */
export function numberKind(node: ZodNode): 'float' | 'int' | 'int32' {
  const def = node._zod.def;
  const checks = checksOf(node);
  let isInt = def.type === 'int';
  let min = -Infinity;
  let max = Infinity;
  for (const check of checks) {
    const { value, inclusive } = check as { value?: unknown; inclusive?: unknown };
    if (check.check === 'number_format' && typeof check.format === 'string') {
      if (check.format.includes('int')) isInt = true;
      const range = NUMBER_FORMAT_RANGES[check.format];
      if (range !== undefined) [min, max] = [Math.max(min, range[0]), Math.min(max, range[1])];
    } else if (check.check === 'greater_than' && typeof value === 'number') {
      // Integer bounds: `> 1.5` and `>= 2` both start at 2.
      min = Math.max(min, inclusive === true ? Math.ceil(value) : Math.floor(value) + 1);
    } else if (check.check === 'less_than' && typeof value === 'number') {
      max = Math.min(max, inclusive === true ? Math.floor(value) : Math.ceil(value) - 1);
    }
  }
  const bag = node._zod.bag ?? {};
  if (typeof bag.format === 'string' && bag.format.includes('int')) isInt = true;
  if (typeof bag.minimum === 'number') min = Math.max(min, Math.ceil(bag.minimum));
  if (typeof bag.maximum === 'number') max = Math.min(max, Math.floor(bag.maximum));
  if (!isInt) return 'float';
  return min >= INT32_MIN && max <= INT32_MAX ? 'int32' : 'int';
}
