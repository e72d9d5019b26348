import { readFileSync } from 'node:fs';
import { createRequire, isBuiltin } from 'node:module';
import { dirname, sep } from 'node:path';
import { compileFunction } from 'node:vm';
import type { JitModule } from './executor.js';

/**
 * The packages that generate code with `new Function`: graphql-jit (the operation, its variable
 * parser, its resolve infos), fast-json-stringify (the serializer) and generate-function.
 */
const GENERATORS = new Set(['graphql-jit', 'fast-json-stringify', 'generate-function']);

/** The names a CommonJS module's code sees, and `Function`, which these modules get from the loader. */
const MODULE_SCOPE = ['exports', 'require', 'module', '__filename', '__dirname', 'Function'];

/**
 * What `new Function(...params, body)` makes (global scope, sloppy mode), compiled by
 * `vm.compileFunction`, which does not keep the source in V8's eval cache: `new Function` does
 * until the function's bytecode ages out, which let some 100 KB per compiled operation outlive the
 * compiled budget (up to 160 MB after 2,000 compilations in a measurement on Node 20).
 */
function compiledFunction(...parts: unknown[]): unknown {
  const body = parts.length === 0 ? '' : String(parts[parts.length - 1]);
  const params = parts
    .slice(0, -1)
    .flatMap((part) => String(part).split(','))
    .map((param) => param.trim())
    .filter((param) => param !== '');
  return compileFunction(body, params);
}
// `value instanceof Function`, in that code, stays true of functions.
compiledFunction.prototype = Function.prototype;

/** The package a resolved file belongs to: the name after its last `node_modules`. */
function packageOf(file: string): string | undefined {
  const at = file.lastIndexOf(`${sep}node_modules${sep}`);
  if (at === -1) return undefined;
  const [scope, name] = file.slice(at + 14).split(sep);
  return scope?.startsWith('@') === true ? `${scope}/${name ?? ''}` : scope;
}

/**
 * graphql-jit, loaded so that its code (and that of the generators it uses) compiles what it
 * generates through `vm.compileFunction`. Each of their CommonJS modules is compiled by this loader
 * with `Function` bound, in its own scope only, to `compiledFunction`; every other module (graphql
 * itself, lodash, node's) comes from `require` as usual, so graphql-jit shares the app's graphql.
 * Nothing global changes. Throws when graphql-jit cannot be found or read (a bundle without it).
 */
export function loadJit(): JitModule {
  const loaded = new Map<string, { exports: unknown }>();
  const load = (file: string): unknown => {
    const known = loaded.get(file);
    if (known !== undefined) return known.exports;
    const module = { exports: {} as unknown };
    loaded.set(file, module);
    const resolve = createRequire(file).resolve;
    const local = (id: string): unknown => {
      // Resolved by node from the requiring file; loaded by that path through this module's
      // `require` (node's, or jest's registry under jest), so there is one graphql.
      const resolved = resolve(id);
      if (!isBuiltin(resolved) && resolved.endsWith('.js') && GENERATORS.has(packageOf(resolved) ?? '')) return load(resolved);
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- a CommonJS module's own require
      return require(resolved) as unknown;
    };
    local.resolve = resolve;
    const run = compileFunction(readFileSync(file, 'utf8'), MODULE_SCOPE, { filename: file });
    run.call(module.exports, module.exports, local, module, file, dirname(file), compiledFunction);
    return module.exports;
  };
  const jit = load(createRequire(__filename).resolve('graphql-jit')) as Partial<JitModule>;
  if (typeof jit.compileQuery !== 'function') throw new TypeError('graphql-jit has no compileQuery');
  return jit as JitModule;
}
