import {
  GraphQLError,
  GraphQLInterfaceType,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLSchema,
  GraphQLUnionType,
  Kind,
  TypeInfo,
  BREAK,
  execute,
  getNamedType,
  isAbstractType,
  isInputObjectType,
  isInterfaceType,
  isIntrospectionType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  isSpecifiedScalarType,
  isUnionType,
  valueFromAST,
  visit,
  visitWithTypeInfo,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLFieldConfigMap,
  type GraphQLFieldResolver,
  type GraphQLInputType,
  type GraphQLNamedType,
  type GraphQLOutputType,
  type GraphQLType,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValueNode,
} from 'graphql';
import type { compileQuery } from 'graphql-jit';
import { inspect } from './inspect.js';

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

/** Runs operations: compiled by graphql-jit when it is installed and supports them, else graphql-js `execute`. */
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
    const fallback = compiledFallback(args.schema, args.document, plan.operation);
    if (fallback !== undefined) {
      plan.fallback = fallback;
      return null;
    }
    const weight = operationWeight(args.document, plan.operation);
    if (weight > budget.maxWeight) {
      plan.fallback = `it has ${weight} selections with fragments expanded, more than the ${budget.maxWeight} compiled`;
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
      if (isPromiseLike(result)) return Promise.resolve(result).then((settled) => asExecuteAnswers(plan, args, settled));
      // Variables that do not coerce (the only result without `data`, and never a promise): run
      // again by graphql-js for its error messages, which a custom scalar's own message is part of.
      if (!('data' in result)) return execute(args);
      return result.errors === undefined ? result : asExecuteAnswers(plan, args, result);
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
 * Why graphql-jit would not answer `operation` (and the fragments of `document`) as graphql-js
 * does, or undefined when it would. Each reason is a divergence found by the differential test
 * (`test/differential.test.ts`); the document then runs on graphql-js:
 *
 * - `__schema` / `__type`: introspection is left to graphql-js;
 * - a field of an interface or union type: graphql-jit resolves abstract types synchronously only;
 * - a field of an object type with `isTypeOf`: graphql-jit calls it without context and info, and
 *   ignores a promise it returns;
 * - a field of a custom scalar type: graphql-jit keeps only the message of what `serialize` throws;
 * - `@skip` / `@include`: graphql-jit applies a directive on a fragment spread to the fragment's
 *   other uses, orders the response by a skipped selection, counts skipped selections in error
 *   locations and accepts a null for `if` from a nullable variable;
 * - a variable inside a list or input-object literal: graphql-jit passes an absent one as null
 *   (over the field's default);
 * - an argument or variable whose type is or holds a custom scalar (graphql-jit does not call
 *   `parseLiteral` on literals, nor coerce variable defaults), a `@oneOf` input (not enforced) or a
 *   self-referencing input type (its variable compiler recurses without end).
 */
export function compiledFallback(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode): string | undefined {
  const typeInfo = new TypeInfo(schema);
  const unsafe = unsafeInputs(schema);
  let reason: string | undefined;
  const fragments = usedFragments(document, operation);
  const stop = (why: string): typeof BREAK => {
    reason = why;
    return BREAK;
  };
  const visitor = visitWithTypeInfo(typeInfo, {
    Field(node) {
      const name = node.name.value;
      if (name === '__schema' || name === '__type') return stop('it selects __schema or __type');
      const type = typeInfo.getType();
      const named = type == null ? undefined : getNamedType(type);
      if (named === undefined) return undefined;
      if (isAbstractType(named)) return stop(`it selects a field of the abstract type ${named.name}`);
      if (isObjectType(named) && named.isTypeOf != null) return stop(`it selects a field of ${named.name}, which has isTypeOf`);
      if (isScalarType(named) && !isSpecifiedScalarType(named)) return stop(`it selects a field of the custom scalar ${named.name}`);
      return undefined;
    },
    Directive(node) {
      if (node.name.value === 'skip' || node.name.value === 'include') return stop(`it uses @${node.name.value}`);
      return undefined;
    },
    Argument(node) {
      const argument = typeInfo.getArgument();
      // A whole variable is checked where it is defined.
      if (argument != null && node.value.kind !== Kind.VARIABLE) {
        const why = unsafe.literal(argument.type);
        if (why !== undefined) return stop(`the argument "${node.name.value}" ${why}`);
      }
      if (hasNestedVariable(node.value)) return stop(`the argument "${node.name.value}" has a variable inside a list or object`);
      return undefined;
    },
    VariableDefinition(node) {
      const type = typeInfo.getInputType();
      if (type == null) return undefined;
      // graphql-jit copies a default through JSON, after parseLiteral.
      const why = node.defaultValue === undefined ? unsafe.variable(type) : (unsafe.literal(type) ?? (isPlainJson(valueFromAST(node.defaultValue, type)) ? undefined : 'has a default that is not plain JSON'));
      if (why !== undefined) return stop(`the variable "$${node.variable.name.value}" ${why}`);
      return undefined;
    },
  });
  for (const definition of [operation, ...fragments]) {
    visit(definition, visitor);
    if (reason !== undefined) return reason;
  }
  return undefined;
}

/** Whether graphql-jit runs `document` as graphql-js would (every operation of it). */
export function jitRunsLikeExecute(schema: GraphQLSchema, document: DocumentNode): boolean {
  return document.definitions.every((definition) => definition.kind !== Kind.OPERATION_DEFINITION || compiledFallback(schema, document, definition) === undefined);
}

function hasNestedVariable(value: ValueNode): boolean {
  if (value.kind === Kind.LIST) return value.values.some((item) => item.kind === Kind.VARIABLE || hasNestedVariable(item));
  if (value.kind === Kind.OBJECT) return value.fields.some((field) => field.value.kind === Kind.VARIABLE || hasNestedVariable(field.value));
  return false;
}

/** Why graphql-jit would not take an input type: for a literal argument, and for a variable. */
interface InputChecks {
  readonly literal: (type: GraphQLInputType) => string | undefined;
  readonly variable: (type: GraphQLInputType) => string | undefined;
}

const unsafeBySchema = new WeakMap<GraphQLSchema, InputChecks>();

/**
 * For a schema: why an input type is not compiled, else undefined, memoised per named type. Never:
 * a @oneOf input, a self-referencing input, an input field whose default is not plain JSON
 * (graphql-jit copies defaults through JSON). In a literal argument, nor a custom scalar
 * (graphql-jit does not call `parseLiteral`); variables get `parseValue` as in graphql-js.
 */
function unsafeInputs(schema: GraphQLSchema): InputChecks {
  let checks = unsafeBySchema.get(schema);
  if (checks !== undefined) return checks;
  const checker = (scalars: boolean): ((type: GraphQLInputType) => string | undefined) => {
    const known = new Map<string, string | null>();
    const visiting = new Set<string>();
    const named = (type: GraphQLNamedType): string | undefined => {
      const memo = known.get(type.name);
      if (memo !== undefined) return memo ?? undefined;
      let why: string | undefined;
      if (isScalarType(type)) {
        if (scalars && !isSpecifiedScalarType(type)) why = `holds the custom scalar ${type.name}`;
      } else if (isInputObjectType(type)) {
        if (visiting.has(type.name)) return `holds the self-referencing input ${type.name}`;
        if ((type as { isOneOf?: boolean }).isOneOf === true) {
          why = `holds the @oneOf input ${type.name}`;
        } else {
          visiting.add(type.name);
          for (const field of Object.values(type.getFields())) {
            if (field.defaultValue !== undefined && !isPlainJson(field.defaultValue)) {
              why = `holds ${type.name}.${field.name}, whose default is not plain JSON`;
              break;
            }
            why = named(getNamedType(field.type));
            if (why !== undefined) break;
          }
          visiting.delete(type.name);
        }
      }
      // A type inside a cycle being visited is decided when the cycle's first type is.
      if (why === undefined && visiting.size > 0) return undefined;
      known.set(type.name, why ?? null);
      return why;
    };
    return (type) => named(getNamedType(type));
  };
  checks = { literal: checker(true), variable: checker(false) };
  unsafeBySchema.set(schema, checks);
  return checks;
}

/** Whether `value` survives `JSON.parse(JSON.stringify(value))` unchanged: strings, finite numbers, booleans, null, and arrays and plain objects of them. */
function isPlainJson(value: unknown): boolean {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value) && !Object.is(value, -0);
  if (Array.isArray(value)) return value.every(isPlainJson);
  if (typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return false;
  return Object.values(value).every(isPlainJson);
}

/** The fragment definitions `operation` spreads, directly or through other fragments. */
function usedFragments(document: DocumentNode, operation: OperationDefinitionNode): FragmentDefinitionNode[] {
  const all = fragmentMap(document);
  const used = new Map<string, FragmentDefinitionNode>();
  const walk = (set: SelectionSetNode): void => {
    for (const selection of set.selections) {
      if (selection.kind === Kind.FRAGMENT_SPREAD) {
        const name = selection.name.value;
        const fragment = all.get(name);
        if (fragment === undefined || used.has(name)) continue;
        used.set(name, fragment);
        walk(fragment.selectionSet);
      } else if (selection.selectionSet !== undefined) {
        walk(selection.selectionSet);
      }
    }
  };
  walk(operation.selectionSet);
  return [...used.values()];
}

function fragmentMap(document: DocumentNode): Map<string, FragmentDefinitionNode> {
  const map = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) if (definition.kind === Kind.FRAGMENT_DEFINITION) map.set(definition.name.value, definition);
  return map;
}

/** The selections of `operation` with fragments expanded, each fragment measured once. */
export function operationWeight(document: DocumentNode, operation: OperationDefinitionNode): number {
  const fragments = fragmentMap(document);
  const sizes = new Map<string, number>();
  const size = (set: SelectionSetNode): number => {
    let total = 0;
    for (const selection of set.selections) {
      if (selection.kind === Kind.FRAGMENT_SPREAD) {
        const name = selection.name.value;
        let known = sizes.get(name);
        if (known === undefined) {
          // 0 while measuring: validation has refused cycles, this only guards the walk.
          sizes.set(name, 0);
          const fragment = fragments.get(name);
          known = fragment === undefined ? 0 : size(fragment.selectionSet);
          sizes.set(name, known);
        }
        total += known;
      } else {
        total += (selection.kind === Kind.FIELD ? 1 : 0) + (selection.selectionSet === undefined ? 0 : size(selection.selectionSet));
      }
    }
    return total;
  };
  return size(operation.selectionSet);
}

/** An error thrown while turning a thrown value into an Error, which ends graphql-js's execution. */
class ExecutionAbort extends Error {
  constructor(readonly thrown: unknown) {
    super('execution aborted');
  }
}

/**
 * graphql-jit's own messages that graphql-js words differently: it names a field selected twice
 * at one place `Type.(a,a)`, and quotes no field of a list that is not iterable.
 */
const JIT_MESSAGE = /^(Expected Iterable, but did not find one for field|Cannot return null for non-nullable field) ([_A-Za-z]\w*)\.(?:\(([_A-Za-z]\w*)(?:,[_A-Za-z]\w*)*\)|([_A-Za-z]\w*))\.$/;

function graphqlJsMessage(message: string): string | undefined {
  const match = JIT_MESSAGE.exec(message);
  if (match === null) return undefined;
  const field = `${match[2]}.${match[3] ?? match[4]}`;
  return match[1]!.startsWith('Expected') ? `${match[1]} "${field}".` : `${match[1]} ${field}.`;
}

/**
 * A compiled result with errors, made what graphql-js answers: its messages, its errors in
 * execution order (depth first, in selection order) and without the errors of fields graphql-js
 * never executes (those after a non-null failure inside the subtree the failure nulls). This is
 * graphql-js's answer when resolvers answer synchronously; with promises, which errors graphql-js
 * still reports beside a non-null failure, and their order, depend on when the promises settle.
 * A thrown value whose inspection throws ends the execution with data null, as in graphql-js.
 */
function asExecuteAnswers(plan: OperationPlan, args: ExecutionArgs, result: ExecutionResult): ExecutionResult {
  const raw = result.errors;
  if (raw === undefined || raw.length === 0) return result;
  const errors = raw.map((error) => {
    const message = error.originalError === undefined && error.path !== undefined ? graphqlJsMessage(error.message) : undefined;
    if (message === undefined || message === error.message) return error;
    const fixed = new GraphQLError(message, { path: error.path });
    (fixed as { locations?: unknown }).locations = error.locations;
    return fixed;
  });
  const order = errorOrder(args.schema, args.document, plan.operation);
  const described = errors.map((error) => ({ error, where: error.path === undefined ? undefined : order(error.path) }));
  described.sort((a, b) => comparePositions(a.where?.position, b.where?.position));
  const kept: GraphQLError[] = [];
  const aborted: Array<ReadonlyArray<string | number>> = [];
  let data = result.data;
  for (const { error, where } of described) {
    const path = error.path;
    // In execution order, the errors under an aborted subtree follow each other: once one is not
    // under the latest aborted subtree, no later one is.
    while (path !== undefined && aborted.length > 0 && !isPrefix(aborted[aborted.length - 1]!, path)) aborted.pop();
    if (path !== undefined && aborted.length > 0) continue;
    if (error.originalError instanceof ExecutionAbort) {
      kept.push(error.originalError.thrown as GraphQLError);
      data = null;
      break;
    }
    kept.push(error);
    if (path !== undefined && where !== undefined && !where.nullable) {
      aborted.push(path.slice(0, where.nullablePrefix));
    }
  }
  return data === null ? { errors: kept, data: null } : { ...result, errors: kept };
}

function isPrefix(prefix: ReadonlyArray<string | number>, path: ReadonlyArray<string | number>): boolean {
  if (prefix.length > path.length) return false;
  for (let i = 0; i < prefix.length; i++) if (prefix[i] !== path[i]) return false;
  return true;
}

function comparePositions(a: readonly number[] | undefined, b: readonly number[] | undefined): number {
  if (a === undefined || b === undefined) return a === b ? 0 : a === undefined ? -1 : 1;
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

/** Where a response path sits: its execution order, whether it may be null, and the longest prefix that may. */
interface PathPlace {
  readonly position: number[];
  readonly nullable: boolean;
  readonly nullablePrefix: number;
}

/**
 * For an operation without `@skip`/`@include` and without abstract types (what is compiled): the
 * place of a response path. Keys are ordered as graphql-js collects them (first occurrence, fragments
 * expanded where they are spread).
 */
function errorOrder(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode): (path: ReadonlyArray<string | number>) => PathPlace | undefined {
  const fragments = fragmentMap(document);
  const root = schema.getRootType(operation.operation);
  const collect = (sets: readonly SelectionSetNode[]): Map<string, FieldNode[]> => {
    const keys = new Map<string, FieldNode[]>();
    const seen = new Set<string>();
    const walk = (set: SelectionSetNode): void => {
      for (const selection of set.selections) {
        if (selection.kind === Kind.FIELD) {
          const key = selection.alias?.value ?? selection.name.value;
          const nodes = keys.get(key);
          if (nodes === undefined) keys.set(key, [selection]);
          else nodes.push(selection);
        } else if (selection.kind === Kind.INLINE_FRAGMENT) {
          walk(selection.selectionSet);
        } else {
          const name = selection.name.value;
          if (seen.has(name)) continue;
          seen.add(name);
          const fragment = fragments.get(name);
          if (fragment !== undefined) walk(fragment.selectionSet);
        }
      }
    };
    for (const set of sets) walk(set);
    return keys;
  };
  // The keys at each place (list indices aside): a response with many errors collects each place once.
  const places = new Map<string, { keys: Map<string, FieldNode[]>; order: Map<string, number> }>();
  return (path) => {
    if (root == null) return undefined;
    let type: GraphQLOutputType = root;
    let sets: SelectionSetNode[] = [operation.selectionSet];
    let place = '';
    const position: number[] = [];
    let nullable = true;
    let nullablePrefix = 0;
    for (let i = 0; i < path.length; i++) {
      const segment = path[i]!;
      let fieldType: GraphQLOutputType;
      if (typeof segment === 'number') {
        if (!isListType(type)) return undefined;
        position.push(segment);
        fieldType = type.ofType as GraphQLOutputType;
      } else {
        if (!isObjectType(type)) return undefined;
        let collected = places.get(place);
        if (collected === undefined) {
          const keys = collect(sets);
          collected = { keys, order: new Map([...keys.keys()].map((key, index) => [key, index])) };
          places.set(place, collected);
        }
        const nodes = collected.keys.get(segment);
        if (nodes === undefined) return undefined;
        position.push(collected.order.get(segment)!);
        place += `.${segment}`;
        const name = nodes[0]!.name.value;
        const field: { type: GraphQLOutputType } | undefined = name === '__typename' ? undefined : (type as GraphQLObjectType).getFields()[name];
        fieldType = field === undefined ? new GraphQLNonNull(schema.getType('String') as GraphQLNamedType & GraphQLOutputType) : field.type;
        sets = nodes.flatMap((node) => (node.selectionSet === undefined ? [] : [node.selectionSet]));
      }
      nullable = !isNonNullType(fieldType);
      if (nullable) nullablePrefix = i + 1;
      type = isNonNullType(fieldType) ? (fieldType.ofType as GraphQLOutputType) : fieldType;
    }
    return { position, nullable, nullablePrefix };
  };
}

/**
 * graphql-js's treatment of what a resolver throws or rejects with, for the compiled run (which
 * keeps a thrown value as it is): a value that is not an Error becomes
 * `Error('Unexpected error value: <inspect(value)>')`, so it is masked as graphql-js's is.
 */
function asThrown(value: unknown): Error {
  if (value instanceof Error) return value;
  let message: string;
  try {
    message = `Unexpected error value: ${inspect(value)}`;
  } catch (err) {
    // graphql-js's execution ends with what inspecting the value threw.
    throw new ExecutionAbort(err);
  }
  const error = new Error(message);
  error.name = 'NonErrorThrown';
  return error;
}

const rethrow = (value: unknown): never => {
  throw asThrown(value);
};

/**
 * A field's resolver, with its arguments in the order the field defines them (as graphql-js
 * passes them; graphql-jit puts literals before variables) and what it throws (or rejects with)
 * made an Error as graphql-js makes it.
 */
function withThrownAsErrors(resolve: GraphQLFieldResolver<unknown, unknown>, argNames: readonly string[]): GraphQLFieldResolver<unknown, unknown> {
  const ordered = argNames.length > 1;
  return (source, args, contextValue, info) => {
    let value: unknown;
    try {
      value = resolve(source, ordered ? inDefinitionOrder(args as Record<string, unknown>, argNames) : args, contextValue, info);
    } catch (err) {
      throw asThrown(err);
    }
    return isPromiseLike(value) ? Promise.resolve(value).then(undefined, rethrow) : value;
  };
}

/** `args` with its keys in the order of `names` (the same object when they already are). */
function inDefinitionOrder(args: Record<string, unknown>, names: readonly string[]): Record<string, unknown> {
  const keys = Object.keys(args);
  let at = 0;
  let sorted = true;
  for (const name of names) {
    if (at < keys.length && keys[at] === name) at += 1;
    else if (name in args) {
      sorted = false;
      break;
    }
  }
  if (sorted && at === keys.length) return args;
  const out: Record<string, unknown> = {};
  for (const name of names) if (name in args) out[name] = args[name];
  for (const key of keys) if (!(key in out)) out[key] = args[key];
  return out;
}

/**
 * graphql-js's default resolver for one field: the source's property, called with
 * `(args, context, info)` when it is a function (the root value's functions among them).
 */
function defaultResolverFor(fieldName: string): GraphQLFieldResolver<unknown, unknown> {
  return (source, args, contextValue, info) => {
    if (source === null || (typeof source !== 'object' && typeof source !== 'function')) return undefined;
    const property = (source as Record<string, unknown>)[fieldName];
    if (typeof property === 'function') return (source as Record<string, (...a: unknown[]) => unknown>)[fieldName]!(args, contextValue, info);
    return property;
  };
}

/**
 * A copy of `schema` whose fields without a resolver get graphql-js's default resolution:
 * graphql-jit reads a property without calling it, so a root value or source object with methods
 * would otherwise answer differently. Every resolver of the copy turns a thrown value that is not
 * an Error into graphql-js's Error for it. Input types, enums, scalars, directives and the
 * introspection types are shared with the original.
 */
export function withDefaultResolvers(schema: GraphQLSchema): GraphQLSchema {
  const copies = new Map<string, GraphQLNamedType>();
  const named = (type: GraphQLNamedType): GraphQLNamedType => copies.get(type.name) ?? type;
  const wrap = <T extends GraphQLType>(type: T): T => {
    if (isListType(type)) return new GraphQLList(wrap(type.ofType)) as T;
    if (isNonNullType(type)) return new GraphQLNonNull(wrap(type.ofType)) as T;
    return named(type as GraphQLNamedType) as T;
  };
  const fieldsOf = (fields: GraphQLFieldConfigMap<unknown, unknown>, resolve: boolean): GraphQLFieldConfigMap<unknown, unknown> => {
    const out: GraphQLFieldConfigMap<unknown, unknown> = {};
    for (const [name, field] of Object.entries(fields)) {
      out[name] = { ...field, type: wrap(field.type), ...(resolve ? { resolve: withThrownAsErrors(field.resolve ?? defaultResolverFor(name), Object.keys(field.args ?? {})) } : {}) };
    }
    return out;
  };
  for (const type of Object.values(schema.getTypeMap())) {
    if (isIntrospectionType(type)) continue;
    if (isObjectType(type)) {
      const config = type.toConfig();
      copies.set(
        type.name,
        new GraphQLObjectType({ ...config, fields: () => fieldsOf(config.fields, true), interfaces: () => config.interfaces.map((i) => named(i) as GraphQLInterfaceType) }),
      );
    } else if (isInterfaceType(type)) {
      const config = type.toConfig();
      copies.set(
        type.name,
        new GraphQLInterfaceType({ ...config, fields: () => fieldsOf(config.fields, false), interfaces: () => config.interfaces.map((i) => named(i) as GraphQLInterfaceType) }),
      );
    } else if (isUnionType(type)) {
      const config = type.toConfig();
      copies.set(type.name, new GraphQLUnionType({ ...config, types: () => config.types.map((t) => named(t) as GraphQLObjectType) }));
    }
  }
  const config = schema.toConfig();
  const root = (type: GraphQLObjectType | null | undefined): GraphQLObjectType | undefined => (type == null ? undefined : (named(type) as GraphQLObjectType));
  return new GraphQLSchema({
    ...config,
    query: root(config.query),
    mutation: root(config.mutation),
    subscription: root(config.subscription),
    types: config.types.map(named),
    assumeValid: true,
  });
}
