import type * as GraphQL from 'graphql';

let graphql: typeof GraphQL | undefined;

/**
 * The graphql package, loaded by the first call that needs one of its values rather than with
 * @fw/graphql: `@fw/app` exports this package's functions to every app, and a REST-only app never
 * loads graphql. `require` of the package's own name: node, jest and bundlers all resolve it to the
 * one copy the user's schema is built with (graphql 16 is CommonJS for `import` and `require`).
 */
export function graphqlLib(): typeof GraphQL {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- synchronous on purpose: config checks and plugin factories are synchronous
  return (graphql ??= require('graphql') as typeof GraphQL);
}
