import {
  GraphQLInterfaceType,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLSchema,
  GraphQLUnionType,
  TypeInfo,
  BREAK,
  execute,
  getNamedType,
  isAbstractType,
  isInterfaceType,
  isIntrospectionType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  isSpecifiedScalarType,
  isUnionType,
  visit,
  visitWithTypeInfo,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type GraphQLFieldConfigMap,
  type GraphQLFieldResolver,
  type GraphQLNamedType,
  type GraphQLType,
  type OperationDefinitionNode,
} from 'graphql';
import type { compileQuery } from 'graphql-jit';

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
}

/** An operation is compiled on this execution: a document sent once is never compiled. */
export const COMPILE_ON_RUN = 2;

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
}

/**
 * The executor. `jit` is graphql-jit's module, undefined when it is not installed (or not loaded
 * yet: `setJit` supplies it later).
 */
export function createExecutor(jit?: JitModule): Executor & { setJit(module: JitModule | undefined): void } {
  let compile = jit?.compileQuery;
  const copies = new WeakMap<GraphQLSchema, GraphQLSchema>();

  const compilePlan = (plan: OperationPlan, args: ExecutionArgs): CompiledRun | null => {
    if (compile === undefined || !jitRunsLikeExecute(args.schema, args.document)) return null;
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
      return null;
    }
    if (!('query' in compiled) || typeof compiled.query !== 'function') return null;
    if (typeof compiled.stringify === 'function') plan.stringify = compiled.stringify;
    return compiled.query as CompiledRun;
  };

  return {
    setJit(module) {
      compile = module?.compileQuery;
    },
    run(plan, args) {
      if (plan === undefined || args.fieldResolver != null || compile === undefined) return execute(args);
      let compiled = plan.compiled;
      if (compiled === undefined) {
        plan.runs += 1;
        if (plan.runs < COMPILE_ON_RUN) return execute(args);
        compiled = plan.compiled = compilePlan(plan, args);
      }
      if (compiled === null) return execute(args);
      const result = compiled(args.rootValue, args.contextValue, args.variableValues);
      // Variables that do not coerce (the only result without `data`, and never a promise): run
      // again by graphql-js for its error messages, which a custom scalar's own message is part of.
      if (!isPromiseLike(result) && !('data' in result)) return execute(args);
      return result;
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
  };
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

/**
 * Whether graphql-jit runs `document` as graphql-js would. It resolves abstract types
 * synchronously only (a `resolveType` or `isTypeOf` returning a promise fails there), keeps only
 * the message of what a custom scalar's `serialize` throws (so it could not be masked), and the
 * introspection meta-fields are left to graphql-js; documents selecting any of them are executed
 * by graphql-js.
 */
export function jitRunsLikeExecute(schema: GraphQLSchema, document: DocumentNode): boolean {
  const typeInfo = new TypeInfo(schema);
  let supported = true;
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      Field(node) {
        const name = node.name.value;
        const type = typeInfo.getType();
        const named = type == null ? undefined : getNamedType(type);
        if (name === '__schema' || name === '__type' || (named !== undefined && (isAbstractType(named) || (isScalarType(named) && !isSpecifiedScalarType(named))))) {
          supported = false;
          return BREAK;
        }
        return undefined;
      },
    }),
  );
  return supported;
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
 * would otherwise answer differently. Input types, enums, scalars, directives and the
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
      out[name] = { ...field, type: wrap(field.type), ...(resolve && field.resolve === undefined ? { resolve: defaultResolverFor(name) } : {}) };
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
