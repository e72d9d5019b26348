import type { Operation } from '@fw/core';
import { byName, type TypeNames } from '@fw/core/plugin';
import {
  GraphQLDeprecatedDirective,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLSchema,
  Kind,
  OperationTypeNode,
  astFromValue,
  extendSchema,
  isEnumType,
  isInputObjectType,
  isIntrospectionType,
  isScalarType,
  isSpecifiedScalarType,
  validateSchema,
  type ConstDirectiveNode,
  type ConstValueNode,
  type DefinitionNode,
  type DocumentNode,
  type FieldDefinitionNode,
  type GraphQLNamedType,
  type GraphQLSchemaConfig,
  type GraphQLType,
  type InputValueDefinitionNode,
  type TypeNode,
} from 'graphql';
import { buildOperationTypes, type OperationField } from './types.js';

/** A schema serving operations, and which root fields they are. */
export interface OperationSchema {
  readonly schema: GraphQLSchema;
  /** The operation behind each generated field of the query root type, by field name (a former name too). */
  readonly queries: ReadonlyMap<string, Operation>;
  /** The same for the mutation root type. */
  readonly mutations: ReadonlyMap<string, Operation>;
  /** The same for the subscription root type (streaming operations). */
  readonly subscriptions: ReadonlyMap<string, Operation>;
}

type RootKind = 'query' | 'mutation' | 'subscription';
const ROOT_NAMES: Record<RootKind, string> = { query: 'Query', mutation: 'Mutation', subscription: 'Subscription' };
const ROOT_NODES: Record<RootKind, OperationTypeNode> = { query: OperationTypeNode.QUERY, mutation: OperationTypeNode.MUTATION, subscription: OperationTypeNode.SUBSCRIPTION };

/**
 * The schema that serves `operations`: generated from them alone, or the user's schema with their
 * fields added to its query, mutation and subscription types (each made when it has none) and their
 * types beside its own. A field or type name the user's schema already has is an error naming
 * both. Types are listed by name, so the printed schema does not depend on registration order.
 * A schema with no query type is returned as it is (operations may still be being registered);
 * the caller decides when that is an error. `names` names every object and enum (`typeNames` of
 * all the app's operations).
 */
export function buildOperationSchema(user: GraphQLSchema | undefined, operations: readonly Operation[], names: TypeNames): OperationSchema {
  const generated = buildOperationTypes(operations, names);
  let schema: GraphQLSchema;
  if (user === undefined) {
    const query = rootType('Query', generated.query);
    const mutation = rootType('Mutation', generated.mutation);
    const subscription = rootType('Subscription', generated.subscription);
    schema = withTypesByName({ query, mutation, subscription, types: [...generated.types.values()] });
  } else {
    for (const [name, type] of generated.types) {
      if (user.getType(name) !== undefined) {
        throw new Error(
          `GraphQL operations: the ${kindOf(type)} "${name}" generated for ${generated.origins.get(name)} is already defined by your GraphQL schema: give one of them another name (.meta({ id }) on the operation's schema)`,
        );
      }
    }
    const definitions: DefinitionNode[] = [];
    const roots: Array<{ kind: RootKind; fields: readonly OperationField[]; existing: GraphQLObjectType | null | undefined }> = [
      { kind: 'query', fields: generated.query, existing: user.getQueryType() },
      { kind: 'mutation', fields: generated.mutation, existing: user.getMutationType() },
      { kind: 'subscription', fields: generated.subscription, existing: user.getSubscriptionType() },
    ];
    const added: Partial<Record<RootKind, string>> = {};
    for (const { kind, fields, existing } of roots) {
      if (fields.length === 0) continue;
      const nodes = fields.map(fieldNode);
      if (existing) {
        const own = existing.getFields();
        for (const { name, operation } of fields) {
          if (own[name] !== undefined) {
            throw new Error(`Operation "${operation.name}": the field ${existing.name}.${name} is already defined by your GraphQL schema: rename the operation or the field`);
          }
        }
        definitions.push({ kind: Kind.OBJECT_TYPE_EXTENSION, name: { kind: Kind.NAME, value: existing.name }, fields: nodes });
      } else {
        const name = ROOT_NAMES[kind];
        if (user.getType(name) !== undefined) {
          throw new Error(
            `Operation "${fields[0]!.operation.name}": your GraphQL schema has a type named "${name}" that is not its ${kind} type, so the ${kind} type for operations cannot be made: rename that type`,
          );
        }
        definitions.push({ kind: Kind.OBJECT_TYPE_DEFINITION, name: { kind: Kind.NAME, value: name }, fields: nodes });
        added[kind] = name;
      }
    }
    const { types, ...config } = user.toConfig();
    // The generated types join the user's; graphql's extendSchema then adds the root fields and
    // rebuilds every type that refers to a root type.
    const base = new GraphQLSchema({ ...config, types: [...types, ...generated.types.values()] });
    if (Object.keys(added).length > 0) {
      definitions.push({
        kind: Kind.SCHEMA_EXTENSION,
        operationTypes: (Object.entries(added) as Array<[RootKind, string]>).map(([operation, name]) => ({
          kind: Kind.OPERATION_TYPE_DEFINITION,
          operation: ROOT_NODES[operation],
          type: { kind: Kind.NAMED_TYPE, name: { kind: Kind.NAME, value: name } },
        })),
      });
    }
    const document: DocumentNode = { kind: Kind.DOCUMENT, definitions };
    schema = withTypesByName(extendSchema(base, document).toConfig());
  }
  const errors = validateSchema(schema).filter((error) => !(schema.getQueryType() == null && error.message === 'Query root type must be provided.'));
  if (errors.length > 0) throw new Error(`GraphQL operations: the schema made with them is not valid: ${errors.map((error) => error.message).join('; ')}`);
  return {
    schema,
    queries: new Map(generated.query.map(({ name, operation }) => [name, operation])),
    mutations: new Map(generated.mutation.map(({ name, operation }) => [name, operation])),
    subscriptions: new Map(generated.subscription.map(({ name, operation }) => [name, operation])),
  };
}

function rootType(name: string, fields: readonly OperationField[]): GraphQLObjectType | undefined {
  if (fields.length === 0) return undefined;
  return new GraphQLObjectType({ name, fields: Object.fromEntries(fields.map((field) => [field.name, field.config])) });
}

/**
 * The schema with its named types in name order: graphql lists a schema's types in the order it
 * collects them (the given list first), and printSchema and introspection follow that order.
 */
function withTypesByName(config: GraphQLSchemaConfig): GraphQLSchema {
  const named = new Map<string, GraphQLNamedType>();
  const add = (type: GraphQLNamedType | null | undefined): void => {
    if (type != null && !isIntrospectionType(type) && !isSpecifiedScalarType(type)) named.set(type.name, type);
  };
  config.types?.forEach(add);
  add(config.query);
  add(config.mutation);
  add(config.subscription);
  const types = [...named.values()].sort(byName);
  return new GraphQLSchema({ ...config, types });
}

function kindOf(type: GraphQLNamedType): string {
  if (isEnumType(type)) return 'enum';
  if (isInputObjectType(type)) return 'input type';
  if (isScalarType(type)) return 'scalar';
  return 'type';
}

/** The AST of an operation's root field, for extendSchema. */
function fieldNode({ name, config }: OperationField): FieldDefinitionNode {
  const args = Object.entries(config.args ?? {}).map(([name, arg]): InputValueDefinitionNode => {
    const value = arg.defaultValue === undefined ? undefined : astFromValue(arg.defaultValue, arg.type);
    return {
      kind: Kind.INPUT_VALUE_DEFINITION,
      name: { kind: Kind.NAME, value: name },
      type: typeNode(arg.type),
      ...(arg.description != null ? { description: { kind: Kind.STRING, value: arg.description } } : {}),
      ...(value != null ? { defaultValue: value as ConstValueNode } : {}),
      ...(arg.deprecationReason != null ? { directives: [deprecatedNode(arg.deprecationReason)] } : {}),
    };
  });
  return {
    kind: Kind.FIELD_DEFINITION,
    name: { kind: Kind.NAME, value: name },
    ...(config.description != null ? { description: { kind: Kind.STRING, value: config.description } } : {}),
    arguments: args,
    type: typeNode(config.type),
    ...(config.deprecationReason != null ? { directives: [deprecatedNode(config.deprecationReason)] } : {}),
  };
}

/** `@deprecated(reason: "...")`. */
function deprecatedNode(reason: string): ConstDirectiveNode {
  return {
    kind: Kind.DIRECTIVE,
    name: { kind: Kind.NAME, value: GraphQLDeprecatedDirective.name },
    arguments: [{ kind: Kind.ARGUMENT, name: { kind: Kind.NAME, value: 'reason' }, value: { kind: Kind.STRING, value: reason } }],
  };
}

function typeNode(type: GraphQLType): TypeNode {
  if (type instanceof GraphQLNonNull) return { kind: Kind.NON_NULL_TYPE, type: typeNode(type.ofType as GraphQLType) as Exclude<TypeNode, { kind: Kind.NON_NULL_TYPE }> };
  if (type instanceof GraphQLList) return { kind: Kind.LIST_TYPE, type: typeNode(type.ofType) };
  return { kind: Kind.NAMED_TYPE, name: { kind: Kind.NAME, value: type.name } };
}

