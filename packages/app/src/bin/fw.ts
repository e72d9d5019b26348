#!/usr/bin/env node
/**
 * The `fw` command: `fw emit <app-module> [--out dir]` writes the app's schema.graphql, .proto
 * files and openapi.json, and exits once done (whatever the app module left open does not keep it
 * running). `fw start <app-module> --workers N` serves the app in N worker processes until a signal;
 * a worker it forks runs this file too, and serves.
 */
import cluster from 'node:cluster';
import { runCli } from '../emit-cli.js';
import { runStart } from '../start/cli.js';
import { runWorker } from '../start/worker.js';

const io = {
  cwd: process.cwd(),
  out: (text: string) => void process.stdout.write(text),
  err: (text: string) => void process.stderr.write(text),
};
const args = process.argv.slice(2);

/** Exits once both streams are flushed (a piped stdout is written asynchronously). */
const exit = (code: number): void => void process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));

if (cluster.isWorker && process.env.FW_START_WORKER === '1') {
  await runWorker();
} else if (args[0] === 'start') {
  const code = await runStart(args.slice(1), io);
  if (code !== undefined) exit(code);
} else {
  exit(await runCli(args, io));
}
