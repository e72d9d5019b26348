// expect-type style helpers: `Expect<Equal<A, B>>` fails to compile unless A and B are identical.

/** True when A and B are the same type (not merely assignable either way). */
export type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

/** Compiles only when given `true`. */
export type Expect<T extends true> = T;

/** Compiles only when `value` is assignable to `T`. */
export function expectAssignable<T>(value: T): T {
  return value;
}
