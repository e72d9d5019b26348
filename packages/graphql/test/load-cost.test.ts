import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

// @fw/app exports this package's functions to every app, REST-only ones included: importing the
// built package must load none of the GraphQL libraries; the first call that needs them does.

const LIBRARIES = /[\\/]node_modules[\\/](graphql|graphql-jit|graphql-ws|graphql-sse|ws)[\\/]/;

/** The libraries in a fresh process's require cache after `body` ran (`fw` is the built package). */
function librariesAfter(body: string): string[] {
  const script = `
    const fw = require('@fw/graphql');
    ${body}
    const names = Object.keys(require.cache).map((file) => (${LIBRARIES.toString()}.exec(file) || [])[1]).filter(Boolean);
    process.stdout.write(JSON.stringify([...new Set(names)].sort()));`;
  return JSON.parse(execFileSync(process.execPath, ['-e', script], { cwd: join(__dirname, '..'), encoding: 'utf8' })) as string[];
}

describe('loading @fw/graphql', () => {
  it('loads no GraphQL library, and exports every name', () => {
    expect(librariesAfter(`if (typeof fw.graphqlPlugin !== 'function' || !fw.GRAPHQL_CODE_OF_CODE.not_found) throw new Error('exports');`)).toEqual([]);
  });

  it('gives the error table without graphql', () => {
    expect(librariesAfter(`if (fw.graphqlErrorCode(404) !== 'NOT_FOUND') throw new Error('code');`)).toEqual([]);
  });

  it('loads graphql with the first function that needs it', () => {
    expect(librariesAfter(`fw.findSchemaChanges('type Query { a: Int }', 'type Query { a: Int }');`)).toContain('graphql');
  });
});
