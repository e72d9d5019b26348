import { isHTTPError, type InputOrigin, type Operation, type RequestContext } from '@fw/core';
import { runOperation } from '@fw/core/plugin';
import { defaultFieldResolver, type GraphQLFieldResolver, type GraphQLObjectType, type GraphQLSchema } from 'graphql';
import { markUserInputError } from '../internal/errors.js';
import { buildOperationSchema, type OperationSchema } from './schema.js';

/** A graphql-js field resolver with no particular source, context or arguments. */
export type FieldResolver = GraphQLFieldResolver<unknown, unknown, Record<string, unknown>>;

/** What the endpoint serves now. */
export interface ServedSchema {
  readonly schema: GraphQLSchema;
  /**
   * The field resolver of one request (graphql's `fieldResolver`): it runs operation fields with
   * that request's fw context and resolves every other field as graphql would. Undefined when no
   * operation is served.
   */
  readonly resolverFor: ((ctx: RequestContext) => FieldResolver) | undefined;
}

/** Where the endpoint gets its schema, asked once per request. */
export interface SchemaSource {
  /** The schema to serve now; throws when there is none. */
  current(): ServedSchema;
}

/** A source that is one schema and never changes (`createGraphQLHandler`, or no operations). */
export function fixedSource(schema: GraphQLSchema): SchemaSource {
  const served: ServedSchema = { schema, resolverFor: undefined };
  return { current: () => served };
}

/** Operation field errors name the argument path: `input.title`, `input.author.name`. */
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
   */
  check(op: Operation): void {
    if (op.graphql === undefined) return;
    const all = this.#operations();
    const ops = graphqlOperations(all.includes(op) ? all : [...all, op]);
    this.#checked = { ops, built: buildOperationSchema(this.#user, ops) };
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
      return { schema: this.#user, resolverFor: undefined };
    }
    const checked = this.#checked;
    const built = checked !== undefined && sameList(ops, checked.ops) ? checked.built : buildOperationSchema(this.#user, ops);
    this.#checked = undefined;
    if (built.schema.getQueryType() == null) {
      throw new Error(
        `GraphQL is enabled without a schema and no operation is a query (only mutations: ${ops.map((op) => `"${op.name}"`).join(', ')}): GraphQL needs a query type, so give an operation graphql: { type: "query" } or pass { schema }.`,
      );
    }
    return { schema: built.schema, resolverFor: resolverFactory(built) };
  }
}

function graphqlOperations(all: readonly Operation[]): readonly Operation[] {
  return all.filter((op) => op.graphql !== undefined);
}

function sameList(a: readonly Operation[], b: readonly Operation[]): boolean {
  return a.length === b.length && a.every((op, i) => op === b[i]);
}

/**
 * The per-request resolver of a schema serving operations. The fw context reaches operation fields
 * through graphql's per-execution `fieldResolver` (a closure over the request's context), so the
 * resolvers' `contextValue` stays whatever the user's `context` gives, and `rootValue` stays theirs.
 */
function resolverFactory({ schema, queries, mutations }: OperationSchema): (ctx: RequestContext) => FieldResolver {
  const queryType: GraphQLObjectType | null | undefined = schema.getQueryType();
  const mutationType: GraphQLObjectType | null | undefined = schema.getMutationType();
  return (ctx) => (source, args, contextValue, info) => {
    const parent = info.parentType;
    const op = parent === queryType ? queries.get(info.fieldName) : parent === mutationType ? mutations.get(info.fieldName) : undefined;
    if (op === undefined) return defaultFieldResolver(source, args, contextValue, info);
    return resolveOperation(op, ctx, args.input ?? {});
  };
}

function resolveOperation(op: Operation, ctx: RequestContext, raw: unknown): Promise<unknown> {
  return runOperation(op, ctx, raw, ARGUMENT_ORIGIN).catch((err: unknown) => {
    // The operation's input validation (or a handler's field errors): BAD_USER_INPUT, as graphql
    // names argument values it refuses.
    if (isHTTPError(err) && err.statusCode === 400 && Array.isArray((err.details as { errors?: unknown } | undefined)?.errors)) markUserInputError(err);
    throw err;
  });
}
