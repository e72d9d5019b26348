import { parseArgs } from 'node:util';
import { StartError } from './errors.js';
import { start } from './primary.js';

/** The usage text of `fw start`. */
export const START_USAGE = `Usage: fw start <app-module> [options]

Serves the app the module exports (default export or "app": the app, a function returning it, or a
promise of it; the module must not call listen()) in worker processes that share its HTTP and gRPC
ports (node:cluster).

Options:
  --workers <n>   worker processes (default: the number of cores, os.availableParallelism())
  --port <port>   the HTTP port (default: PORT, else the app's port option)
  --host <host>   the interface to bind (default: HOST, else the app's host option)
  -h, --help      show this text

Signals: SIGHUP replaces the workers one at a time (each new one ready before an old one drains);
if a new one cannot start, the old ones keep serving; a SIGHUP during a restart runs one more round
after it (any number of them: one round), so every worker ends on the newest code. SIGTERM or
SIGINT shut every worker down in order (not ready, the shutdown delay, the drain, the flush) and
exit 0; a second one kills them at once. A worker that dies is restarted.
`;

/** What `fw start` writes to. */
export interface StartIO {
  cwd: string;
  out(text: string): void;
  err(text: string): void;
}

/**
 * Runs `fw start <args>`: resolves to undefined once the workers serve (the process then runs
 * until a signal), or to an exit code when it cannot start (1) or printed its help (0).
 */
export async function runStart(args: readonly string[], io: StartIO): Promise<number | undefined> {
  let values: { workers?: string; port?: string; host?: string; help?: boolean };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: [...args],
      allowPositionals: true,
      strict: true,
      options: { workers: { type: 'string' }, port: { type: 'string' }, host: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    }));
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    const unknown = /^Unknown option '([^']+)'/.exec(message);
    io.err(`fw: ${unknown === null ? message : `unknown option ${unknown[1]}`}\n\n${START_USAGE}`);
    return 1;
  }
  if (values.help === true) {
    io.out(START_USAGE);
    return 0;
  }
  try {
    if (positionals.length !== 1) throw new StartError(`start takes one app module, got ${positionals.length}\n\n${START_USAGE}`);
    const workers = values.workers === undefined ? undefined : wholeNumber('--workers', values.workers);
    const port = values.port === undefined ? undefined : wholeNumber('--port', values.port);
    const running = await start({
      module: positionals[0]!,
      cwd: io.cwd,
      signals: true,
      onLog: (message) => io.err(`fw: ${message}\n`),
      ...(workers === undefined ? {} : { workers }),
      ...(port === undefined ? {} : { port }),
      ...(values.host === undefined ? {} : { host: values.host }),
    });
    const grpc = running.grpc === undefined ? '' : `, gRPC on ${running.grpc.host}:${running.grpc.port}`;
    // What was bound first (scripts read it), then where a person can open it when that differs.
    const open = running.localUrl === running.url ? '' : ` — open ${running.localUrl}`;
    io.out(`fw: ${running.pids.length} workers serving ${running.url}${grpc} (primary ${process.pid})${open}\n`);
    return undefined;
  } catch (err) {
    io.err(`fw: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
}

function wholeNumber(option: string, text: string): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(value)) throw new StartError(`${option} takes a whole number, got "${text}"`);
  return value;
}
