import { GraphQLError, execute, type ExecutionArgs, type ExecutionResult, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import type { compileQuery } from 'graphql-jit';
import { compiledFallback, operationWeight } from './compiled-fallback.js';
import { ExecutionAbort, withDefaultResolvers } from './compiled-schema.js';

/** What the executor needs of graphql-jit. */
export interface JitModule {
  readonly compileQuery: typeof compileQuery;
}

/** A compiled operation: graphql-jit's `query` function. */
type CompiledRun = (rootValue: unknown, contextValue: unknown, variables: Record<string, unknown> | null | undefined) => ExecutionResult | Promise<ExecutionResult>;

/** One operation of a cached document, with its compilation state. */
export interface OperationPlan {
  readonly operation: OperationDefinitionNode;
  /** Executions so far, until the operation is compiled (or found not compilable). */
  runs: number;
  /** The compiled operation; null: not compilable, graphql-js runs it; undefined: not tried yet. */
  compiled: CompiledRun | null | undefined;
  /** Writes a compiled result without errors as JSON (fast-json-stringify from the operation's selections). */
  stringify?: (result: ExecutionResult) => string;
  /** Why graphql-js runs the operation (set when it was found not compilable). */
  fallback?: string;
  /** What the compiled operation weighs in the compiled budget (its selections, fragments expanded). */
  weight?: number;
  /** How many times the operation was compiled. */
  compilations?: number;
}

/** An operation is compiled on this execution: a document sent once is never compiled. */
export const COMPILE_ON_RUN = 2;

/**
 * Bounds of what compiled operations retain. graphql-jit's code for an operation grows with its
 * selections, fragments expanded (about 10 KB of heap per selection): an operation weighing more
 * than `maxWeight` is never compiled, and the compiled operations held together weigh at most
 * `maxTotalWeight` and number at most `maxEntries` (least recently used dropped first; a dropped
 * operation runs on graphql-js and may compile again).
 */
export interface CompiledBudget {
  readonly maxEntries: number;
  readonly maxWeight: number;
  readonly maxTotalWeight: number;
}

export const DEFAULT_COMPILED_BUDGET: CompiledBudget = { maxEntries: 200, maxWeight: 500, maxTotalWeight: 2000 };

/** An operation dropped from the compiled budget this many times runs on graphql-js for good (no compile churn). */
const MAX_COMPILATIONS = 3;

function checkBudget(budget: CompiledBudget): void {
  if (!(budget.maxEntries >= 1 && budget.maxWeight <= budget.maxTotalWeight)) throw new RangeError('compiled budget: maxEntries >= 1 and maxWeight <= maxTotalWeight');
}

/** Runs operations: compiled by graphql-jit when the executor has it and `compiledFallback` finds nothing, else graphql-js `execute`. */
export interface Executor {
  /**
   * Executes `args` (the plan's document and operation). `args.fieldResolver` (graphql-js's
   * per-execution resolver, which a compiled operation has no place for) and documents graphql-jit
   * does not run like graphql-js always go to `execute`.
   */
  run(plan: OperationPlan | undefined, args: ExecutionArgs): ExecutionResult | Promise<ExecutionResult>;
  /**
   * The JSON text of `result`, a result without errors that `run` returned for `plan` and `args`:
   * written by the compiled operation's serializer when the operation ran compiled, else by `JSON.stringify`.
   */
  serialize(plan: OperationPlan, args: ExecutionArgs, result: ExecutionResult): string;
  /** Forgets the compiled operation of `plan` (its document left the cache). */
  forget(plan: OperationPlan): void;
  /** Forgets every compiled operation (the document cache was emptied). */
  clear(): void;
  /** The compiled operations held, and their summed weight. */
  readonly compiledCount: number;
  readonly compiledWeight: number;
}

/**
 * The executor. `jit` is graphql-jit's module, or a function that loads it, called once, at the
 * first compilation (undefined, or a load that throws: graphql-js runs everything); without it
 * every operation runs on graphql-js.
 */
export function createExecutor(jit?: JitModule | (() => JitModule | undefined), budget: CompiledBudget = DEFAULT_COMPILED_BUDGET): Executor {
  checkBudget(budget);
  let load = typeof jit === 'function' ? jit : undefined;
  let compile = typeof jit === 'function' ? undefined : jit?.compileQuery;
  const compiler = (): typeof compileQuery | undefined => {
    if (load !== undefined) {
      const loading = load;
      load = undefined;
      try {
        compile = loading()?.compileQuery;
      } catch {
        compile = undefined;
      }
    }
    return compile;
  };
  const copies = new WeakMap<GraphQLSchema, GraphQLSchema>();
  // Compiled plans, least recently used first (a Map keeps insertion order).
  const held = new Map<OperationPlan, number>();
  let newest: OperationPlan | undefined;
  let totalWeight = 0;

  const drop = (plan: OperationPlan): void => {
    const weight = held.get(plan);
    if (weight === undefined) return;
    held.delete(plan);
    totalWeight -= weight;
    if (newest === plan) newest = undefined;
    // Runs on graphql-js again, and compiles again once it is used twice more.
    plan.compiled = undefined;
    plan.stringify = undefined;
    plan.runs = 0;
  };

  const hold = (plan: OperationPlan, weight: number): void => {
    held.set(plan, weight);
    newest = plan;
    totalWeight += weight;
    while (held.size > budget.maxEntries || totalWeight > budget.maxTotalWeight) {
      const oldest = held.keys().next();
      if (oldest.done === true) break;
      drop(oldest.value);
    }
  };

  const compilePlan = (plan: OperationPlan, args: ExecutionArgs): CompiledRun | null => {
    const compile = compiler();
    if (compile === undefined) {
      plan.fallback = 'graphql-jit could not be loaded';
      return null;
    }
    if ((plan.compilations ?? 0) >= MAX_COMPILATIONS) {
      plan.fallback = `it was compiled ${MAX_COMPILATIONS} times and dropped for others each time`;
      return null;
    }
    const weight = operationWeight(args.document, plan.operation);
    if (weight > budget.maxWeight) {
      plan.fallback = `it has ${weight} selections with fragments expanded, more than the ${budget.maxWeight} compiled`;
      return null;
    }
    const fallback = compiledFallback(args.schema, args.document, plan.operation);
    if (fallback !== undefined) {
      plan.fallback = fallback;
      return null;
    }
    let copy = copies.get(args.schema);
    if (copy === undefined) {
      copy = withDefaultResolvers(args.schema);
      copies.set(args.schema, copy);
    }
    const name = plan.operation.name?.value;
    let compiled: ReturnType<typeof compileQuery>;
    try {
      compiled = compile(copy, args.document, name, { customJSONSerializer: true });
    } catch {
      plan.fallback = 'graphql-jit cannot compile it';
      return null;
    }
    if (!('query' in compiled) || typeof compiled.query !== 'function') {
      plan.fallback = 'graphql-jit cannot compile it';
      return null;
    }
    if (typeof compiled.stringify === 'function') plan.stringify = compiled.stringify;
    plan.weight = weight;
    plan.compilations = (plan.compilations ?? 0) + 1;
    hold(plan, weight);
    return compiled.query as CompiledRun;
  };

  return {
    run(plan, args) {
      if (plan === undefined || args.fieldResolver != null || (compile === undefined && load === undefined)) return execute(args);
      let compiled = plan.compiled;
      if (compiled === undefined) {
        plan.runs += 1;
        if (plan.runs < COMPILE_ON_RUN) return execute(args);
        compiled = plan.compiled = compilePlan(plan, args);
      } else if (compiled !== null && plan !== newest) {
        // Most recently used: moved to the end (a repeated operation needs no move).
        const weight = held.get(plan);
        if (weight !== undefined) {
          held.delete(plan);
          held.set(plan, weight);
          newest = plan;
        }
      }
      if (compiled === null) return execute(args);
      const result = compiled(args.rootValue, args.contextValue, args.variableValues);
      if (isPromiseLike(result)) return Promise.resolve(result).then(asExecuteAnswers);
      // Variables that do not coerce (the only result without `data`, and never a promise): run
      // again by graphql-js for its error messages, which a custom scalar's own message is part of.
      if (!('data' in result)) return execute(args);
      return result.errors === undefined ? result : asExecuteAnswers(result);
    },
    serialize(plan, args, result) {
      const stringify = plan.stringify;
      // Only what the compiled operation produced has the shape its serializer was built for.
      if (stringify === undefined || !plan.compiled || args.fieldResolver != null || compile === undefined) return JSON.stringify(result);
      try {
        return stringify(result);
      } catch {
        return JSON.stringify(result);
      }
    },
    forget(plan) {
      drop(plan);
    },
    clear() {
      for (const plan of [...held.keys()]) drop(plan);
    },
    get compiledCount() {
      return held.size;
    },
    get compiledWeight() {
      return totalWeight;
    },
  };
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

/**
 * graphql-jit's message for a null in a non-null field selected twice at one place, which names
 * the field `Type.(a,a)` where graphql-js names it `Type.a`.
 */
const JIT_NON_NULL = /^Cannot return null for non-nullable field ([_A-Za-z]\w*)\.\(([_A-Za-z]\w*)(?:,[_A-Za-z]\w*)*\)\.$/;

/**
 * A compiled result with errors, made what graphql-js answers. The operations compiled select no
 * lists and no non-null field beside another (see `compiledFallback`), so graphql-jit reports the
 * errors graphql-js does; what differs is their order and a few words:
 *
 * - graphql-jit lists the errors of non-null fields after the others. graphql-js lists them in
 *   execution order (depth first, in selection order) when resolvers answer synchronously, which
 *   is the order of the response's keys: the errors are sorted by where their paths are in `data`.
 *   With promises, graphql-js's order is the order they settle in, and may differ (the README says so).
 * - A thrown value whose inspection throws ends graphql-js's execution: data null, the errors
 *   before it and what the inspection threw.
 */
function asExecuteAnswers(result: ExecutionResult): ExecutionResult {
  const raw = result.errors;
  if (raw === undefined || raw.length === 0) return result;
  const data = result.data;
  const sorted = [...raw].sort((a, b) => comparePaths(data, a.path, b.path));
  const errors: GraphQLError[] = [];
  for (const error of sorted) {
    if (error.originalError instanceof ExecutionAbort) return { errors: [...errors, error.originalError.thrown as GraphQLError], data: null };
    const match = error.originalError === undefined ? JIT_NON_NULL.exec(error.message) : null;
    if (match === null) {
      errors.push(error);
    } else {
      const fixed = new GraphQLError(`Cannot return null for non-nullable field ${match[1]}.${match[2]}.`, { path: error.path });
      (fixed as { locations?: unknown }).locations = error.locations;
      errors.push(fixed);
    }
  }
  return { ...result, errors };
}

/**
 * The order of two response paths in `data` (no lists: every segment is a key): at their first
 * difference, the order of the two keys in the object both sit in. A path through a null (the
 * error's own field, or a parent its null reached) has nothing after it to compare.
 */
function comparePaths(data: unknown, a: ReadonlyArray<string | number> | undefined, b: ReadonlyArray<string | number> | undefined): number {
  if (a === undefined || b === undefined) return a === b ? 0 : a === undefined ? -1 : 1;
  let node = data;
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    if (node === null || typeof node !== 'object') return 0;
    if (a[i] !== b[i]) {
      const keys = Object.keys(node);
      return keys.indexOf(String(a[i])) - keys.indexOf(String(b[i]));
    }
    node = (node as Record<string, unknown>)[a[i]!];
  }
  return a.length - b.length;
}
