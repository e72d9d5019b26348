#!/usr/bin/env node
/**
 * The `fw` command: `fw emit <app-module> [--out dir]` writes the app's schema.graphql, .proto
 * files and openapi.json. Exits once done: whatever the app module left open (a database pool)
 * does not keep it running.
 */
import { runCli } from '../emit-cli.js';

const code = await runCli(process.argv.slice(2), {
  cwd: process.cwd(),
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
});
// Exit once both streams are flushed (a piped stdout is written asynchronously).
process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
