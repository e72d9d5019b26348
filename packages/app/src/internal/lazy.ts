// The root entry's functions and classes of the other fw packages: each is this package's own
// object, and the package that implements it is loaded (synchronously, see optional.ts) the first
// time it is used, so `import '@fw/app'` costs a REST-only app no more than `@fw/core` does.

type AnyFunction = (...args: never[]) => unknown;
/** A class, its constructor possibly private (`GrpcContext`). */
type AnyClass = { prototype: unknown };

/**
 * A function with `name` that calls the package's function of that name, loading the package on
 * the first call. `forward` lists properties of the real function (a `configure` method, route
 * meta) read through, so they too are the package's own.
 */
export function lazyFunction<F extends AnyFunction>(name: string, load: () => F, forward: ReadonlyArray<string | symbol> = []): F {
  const call = function (this: unknown, ...args: unknown[]): unknown {
    return Reflect.apply(load(), this, args);
  };
  Object.defineProperty(call, 'name', { value: name });
  for (const key of forward) Object.defineProperty(call, key, { get: () => (load() as unknown as Record<string | symbol, unknown>)[key], enumerable: true });
  return call as unknown as F;
}

/**
 * A class that loads the package on first use: `new`, `instanceof`, `extends` and static members
 * all reach the package's class, so an instance made here is an instance of the package's class
 * (what its code checks) and an error the package throws is an instance of this one.
 */
export function lazyClass<C extends AnyClass>(name: string, load: () => C): C {
  const real = load as unknown as () => new (...args: unknown[]) => object;
  // A plain function as the target: constructible, and its `prototype` is writable, so `get` may
  // answer with the real class's prototype (a proxy may not change a non-writable property).
  const target = { [name]: function () {} }[name]!;
  const proxy: object = new Proxy(target, {
    construct: (_target, args, newTarget) => Reflect.construct(real(), args, newTarget === proxy ? real() : (newTarget as new () => object)),
    apply: (_target, thisArg, args) => Reflect.apply(real(), thisArg, args) as unknown,
    get: (_target, key) => Reflect.get(real(), key) as unknown,
    set: (_target, key, value) => Reflect.set(real(), key, value),
    has: (_target, key) => Reflect.has(real(), key),
  });
  return proxy as C;
}
