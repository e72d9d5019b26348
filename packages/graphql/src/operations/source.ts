import { type InputOrigin, type Operation, type RequestContext, type StreamEvent, type TypeShape } from '@fw/core';
import { runOperation, runStreamOperation, typeNames } from '@fw/core/plugin';
import { defaultFieldResolver, type GraphQLFieldResolver, type GraphQLObjectType, type GraphQLSchema } from 'graphql';
import { buildOperationSchema, type OperationSchema } from './schema.js';
import { argumentsOf } from './types.js';

/** A graphql-js field resolver with no particular source, context or arguments. */
export type FieldResolver = GraphQLFieldResolver<unknown, unknown, Record<string, unknown>>;

/** What the endpoint serves now. */
export interface ServedSchema {
  readonly schema: GraphQLSchema;
  /**
   * The root value of one request: `rootValue` (the configured one) carrying that request's fw
   * context, which the operation fields read. Undefined when no operation is served (the root
   * value is then the configured one).
   */
  readonly rootFor: ((ctx: RequestContext, rootValue: unknown) => unknown) | undefined;
}

/** Where the endpoint gets its schema, asked once per request. */
export interface SchemaSource {
  /** The schema to serve now; throws when there is none. */
  current(): ServedSchema;
}

/** A source that is one schema and never changes (`createGraphQLHandler`, or no operations). */
export function fixedSource(schema: GraphQLSchema): SchemaSource {
  const served: ServedSchema = { schema, rootFor: undefined };
  return { current: () => served };
}

/**
 * Operation field errors name the argument path: `input.title`, `input.author.name` under one
 * `input` argument; the argument itself (`id`, `filter.genre`) when the arguments are flat.
 */
const ARGUMENT_ORIGIN: InputOrigin = () => 'input';

/**
 * The schema of a GraphQL plugin serving operations: the configured schema, extended with the
 * operations that name GraphQL; rebuilt when the app's operation list changes, at the next request
 * or `getSchema()`.
 */
export class OperationSchemas implements SchemaSource {
  readonly #user: GraphQLSchema | undefined;
  readonly #operations: () => readonly Operation[];
  /** The app's list the current schema was made for (compared by identity). */
  #seen: readonly Operation[] | undefined;
  #built: { readonly ops: readonly Operation[]; readonly served: ServedSchema } | undefined;
  /** Built by the last `check()`, reused when that list is the one registered. */
  #checked: { readonly ops: readonly Operation[]; readonly built: OperationSchema } | undefined;

  constructor(user: GraphQLSchema | undefined, operations: () => readonly Operation[]) {
    this.#user = user;
    this.#operations = operations;
  }

  /**
   * Checks that `op` can join the served operations (for `host.onOperation`, before it is
   * registered): its types map, and no name clashes with another operation or the user's schema.
   * Any operation is checked for the names of its schemas, which every protocol shares: one that
   * GraphQL does not serve can still use an unnamed schema of one it serves.
   */
  check(op: Operation): void {
    const registered = this.#operations();
    const all = registered.includes(op) ? registered : [...registered, op];
    const names = typeNames(all);
    if (op.graphql === undefined) return;
    this.#checked = { ops: graphqlOperations(all), built: buildOperationSchema(this.#user, graphqlOperations(all), names) };
  }

  current(): ServedSchema {
    const all = this.#operations();
    if (all !== this.#seen || this.#built === undefined) {
      const ops = graphqlOperations(all);
      if (this.#built === undefined || !sameList(ops, this.#built.ops)) this.#built = { ops, served: this.#serve(ops) };
      this.#seen = all;
    }
    return this.#built.served;
  }

  #serve(ops: readonly Operation[]): ServedSchema {
    if (ops.length === 0) {
      if (this.#user === undefined) {
        throw new Error(
          'GraphQL is enabled without a schema and no operation names graphql: pass { schema } to the GraphQL configuration, or register an operation with graphql: { type: "query" } (app.operation(op)).',
        );
      }
      return { schema: this.#user, rootFor: undefined };
    }
    const checked = this.#checked;
    const built = checked !== undefined && sameList(ops, checked.ops) ? checked.built : buildOperationSchema(this.#user, ops, typeNames(this.#operations()));
    this.#checked = undefined;
    if (built.schema.getQueryType() == null) {
      throw new Error(
        `GraphQL is enabled without a schema and no operation is a query (only mutations or subscriptions: ${ops.map((op) => `"${op.name}"`).join(', ')}): GraphQL needs a query type, so give an operation graphql: { type: "query" } or pass { schema }.`,
      );
    }
    return { schema: built.schema, rootFor: withResolvers(built, this.#user) };
  }
}

function graphqlOperations(all: readonly Operation[]): readonly Operation[] {
  return all.filter((op) => op.graphql !== undefined);
}

function sameList(a: readonly Operation[], b: readonly Operation[]): boolean {
  return a.length === b.length && a.every((op, i) => op === b[i]);
}

/** The fw context of a request's root value (`requestRoot`). */
const CONTEXT = Symbol('fw.graphql.context');
/** The configured root value, which a request's root value inherits from. */
const USER_ROOT = Symbol('fw.graphql.rootValue');

interface RequestRoot {
  readonly [CONTEXT]: RequestContext;
  readonly [USER_ROOT]: unknown;
}

/**
 * The root value of one request: an object inheriting the configured root value's properties
 * (when it is an object or a function), with the request's fw context and the configured root
 * value under symbols (neither enumerable by name nor serialized).
 */
function requestRoot(ctx: RequestContext, rootValue: unknown): unknown {
  const root = Object.create(rootValue !== null && (typeof rootValue === 'object' || typeof rootValue === 'function') ? rootValue : null) as Record<symbol, unknown>;
  root[CONTEXT] = ctx;
  root[USER_ROOT] = rootValue;
  return root;
}

function isRequestRoot(source: unknown): source is RequestRoot {
  return source !== null && typeof source === 'object' && Object.prototype.hasOwnProperty.call(source, CONTEXT);
}

/**
 * Gives the root fields of a schema serving operations their resolvers, once per built schema:
 * an operation field runs its operation with the fw context of the request's root value
 * (`requestRoot`); the user's own root fields get the configured root value as their source, as
 * when no operation is served (a root value's methods keep it as `this`). No per-request field
 * resolver: the resolvers' `contextValue` stays whatever the user's `context` gives, and documents
 * stay compilable by graphql-jit, which passes the root value to root fields as graphql-js does.
 */
function withResolvers({ schema, queries, mutations, subscriptions }: OperationSchema, user: GraphQLSchema | undefined): (ctx: RequestContext, rootValue: unknown) => unknown {
  const roots: Array<[GraphQLObjectType | null | undefined, ReadonlyMap<string, Operation>, GraphQLObjectType | null | undefined]> = [
    [schema.getQueryType(), queries, user?.getQueryType()],
    [schema.getMutationType(), mutations, user?.getMutationType()],
  ];
  for (const [type, operations, own] of roots) {
    // The user's type itself is never changed (graphql's extendSchema makes new root types).
    if (type == null || type === own) continue;
    for (const field of Object.values(type.getFields())) {
      const op = operations.get(field.name);
      if (op !== undefined) {
        field.resolve = (source, args: Record<string, unknown>) => {
          if (!isRequestRoot(source)) throw new Error(`Operation "${op.name}" was executed without the fw request context`);
          return runOperation(op, source[CONTEXT], inputOf(op, args), originOf(op));
        };
      } else {
        const resolve: FieldResolver = field.resolve ?? defaultFieldResolver;
        field.resolve = (source, args: Record<string, unknown>, contextValue, info) => resolve(isRequestRoot(source) ? source[USER_ROOT] : source, args, contextValue, info);
      }
    }
  }
  const subscription = schema.getSubscriptionType();
  if (subscription != null && subscription !== user?.getSubscriptionType()) {
    for (const field of Object.values(subscription.getFields())) {
      const op = subscriptions.get(field.name);
      if (op !== undefined) {
        // A streaming operation's events are the subscription's source stream: the operation opens
        // (middleware, validation) before the first event, and graphql-js returns the iterator
        // when the client leaves, which runs the handler's finally. Each event's data is the field.
        field.subscribe = (source, args: Record<string, unknown>) => {
          if (!isRequestRoot(source)) throw new Error(`Operation "${op.name}" was subscribed to without the fw request context`);
          return runStreamOperation(op, source[CONTEXT], inputOf(op, args), originOf(op));
        };
        field.resolve = (event: StreamEvent<unknown>) => event.data;
      } else {
        // The user's own subscription fields open their streams with the configured root value.
        const subscribe: FieldResolver = field.subscribe ?? defaultFieldResolver;
        field.subscribe = (source, args: Record<string, unknown>, contextValue, info) => subscribe(isRequestRoot(source) ? source[USER_ROOT] : source, args, contextValue, info);
      }
    }
  }
  return requestRoot;
}

/** The operation's raw input from a root field's arguments: the flat arguments themselves, or the `input` argument. */
function inputOf(op: Operation, args: Record<string, unknown>): unknown {
  if (argumentsOf(op) === 'flat') return nullsAsAbsent(op.input, args);
  return args.input == null ? {} : nullsAsAbsent(op.input, args.input);
}

/** How field errors are named: by the argument itself when the arguments are flat, else `input.<path>`. */
function originOf(op: Operation): InputOrigin | undefined {
  return argumentsOf(op) === 'flat' ? undefined : ARGUMENT_ORIGIN;
}

/**
 * The GraphQL arguments as the operation's raw input: an explicit `null` for a field that may be
 * left out but is not nullable in the operation's schema (`.optional()` without `.nullable()`)
 * is left out, as GraphQL's type for it (nullable) says both mean the same.
 */
export function nullsAsAbsent(shape: TypeShape, value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  switch (shape.kind) {
    case 'nullable':
      return nullsAsAbsent(shape.of, value);
    case 'list':
      return Array.isArray(value) ? value.map((item: unknown) => nullsAsAbsent(shape.of, item)) : value;
    case 'object': {
      if (Array.isArray(value)) return value;
      const input = value as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      for (const key of Object.keys(input)) out[key] = input[key];
      for (const field of shape.fields) {
        if (!(field.name in out)) continue;
        const item = out[field.name];
        if (item === null && field.optional && field.type.kind !== 'nullable') delete out[field.name];
        else out[field.name] = nullsAsAbsent(field.type, item);
      }
      return out;
    }
    default:
      return value;
  }
}
