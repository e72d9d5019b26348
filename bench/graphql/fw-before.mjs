// GraphQL suite, A/B: fw's GraphQL plugin as built before the execution changes (a copy of its dist
// in graphql/before/, its GraphiQL files left out), on @fw/app's Application with the shared schema and root value, defaults
// otherwise. graphql/before/ is not committed: fill it with packages/graphql/dist/index.js of a build of
// the commit to compare against (git worktree add /tmp/fw-ref <ref>, install, build, copy). Then load
// it beside the current build for same-run before/after figures:
//   cd bench && node http/run.mjs --suite graphql --add fw-before=graphql/fw-before.mjs
import { Application } from '@fw/app/core';
import { graphqlPlugin } from './before/index.js';
import { GRAPHQL_SCENARIOS, schema, rootValue } from '../http/servers/graphql-schema.mjs';
import { announce } from '../http/servers/ready.mjs';

const app = new Application();
// The GraphiQL files are not copied (the POST scenarios never reach them): playground off.
app.register(graphqlPlugin({ schema, rootValue, playground: false }));
const { port } = await app.listen(0, '127.0.0.1');
announce(port, GRAPHQL_SCENARIOS);
