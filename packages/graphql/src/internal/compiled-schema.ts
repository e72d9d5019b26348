import {
  GraphQLInterfaceType,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLSchema,
  GraphQLUnionType,
  isInterfaceType,
  isIntrospectionType,
  isListType,
  isNonNullType,
  isObjectType,
  isUnionType,
  type GraphQLFieldConfigMap,
  type GraphQLFieldResolver,
  type GraphQLNamedType,
  type GraphQLType,
} from 'graphql';
import { inspect } from './inspect.js';

/** An error thrown while turning a thrown value into an Error, which ends graphql-js's execution. */
export class ExecutionAbort extends Error {
  constructor(readonly thrown: unknown) {
    super('execution aborted');
  }
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
function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}
