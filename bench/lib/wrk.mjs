// Runs wrk once and parses its report.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pinned } from './tools.mjs';

let scriptDir;

/** A wrk Lua script for requests that are not a plain GET (method, headers, body), or undefined. */
function requestScript(request) {
  const { method = 'GET', headers = {}, body } = request;
  if (method === 'GET' && Object.keys(headers).length === 0 && body === undefined) return undefined;
  scriptDir ??= mkdtempSync(join(tmpdir(), 'fw-bench-wrk-'));
  const lines = [`wrk.method = ${JSON.stringify(method)}`];
  for (const [k, v] of Object.entries(headers)) lines.push(`wrk.headers[${JSON.stringify(k)}] = ${JSON.stringify(String(v))}`);
  // Bytes (a binary message) as Lua decimal escapes; text as a JSON string literal, which Lua reads alike.
  if (body instanceof Uint8Array) lines.push(`wrk.body = "${Array.from(body, (b) => `\\${b}`).join('')}"`);
  else if (body !== undefined) lines.push(`wrk.body = ${JSON.stringify(typeof body === 'string' ? body : JSON.stringify(body))}`);
  const file = join(scriptDir, `req-${Math.random().toString(36).slice(2)}.lua`);
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

/** Removes the temporary Lua scripts. */
export function cleanupWrk() {
  if (scriptDir) rmSync(scriptDir, { recursive: true, force: true });
  scriptDir = undefined;
}

const UNITS = { us: 1e-3, ms: 1, s: 1000, m: 60000 };
function toMs(text) {
  const m = /^([\d.]+)(us|ms|s|m)$/.exec(text);
  return m ? Number(m[1]) * UNITS[m[2]] : NaN;
}

/** Parses wrk's text report (with --latency). */
export function parseWrk(out) {
  const num = (re) => {
    const m = re.exec(out);
    return m ? Number(m[1]) : 0;
  };
  const done = /(\d+) requests in ([\d.]+)(us|ms|s|m)/.exec(out);
  if (!done) throw new Error(`Could not parse wrk output:\n${out}`);
  const sock = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  const pct = (p) => {
    const m = new RegExp(`^\\s+${p}%\\s+(\\S+)`, 'm').exec(out);
    return m ? toMs(m[1]) : NaN;
  };
  return {
    requests: Number(done[1]),
    seconds: toMs(`${done[2]}${done[3]}`) / 1000,
    rps: num(/Requests\/sec:\s+([\d.]+)/),
    // wrk counts responses with a status >= 400 here ("Non-2xx or 3xx responses").
    non2xx: num(/Non-2xx or 3xx responses: (\d+)/),
    socketErrors: sock ? sock.slice(1).reduce((a, b) => a + Number(b), 0) : 0,
    latencyMs: { p50: pct(50), p90: pct(90), p99: pct(99) },
  };
}

/** Loads `url` with wrk for `duration` seconds; resolves to the parsed report. */
export function runWrk({ url, request = {}, duration, connections, threads, pin }) {
  const script = requestScript(request);
  const args = [`-t${threads}`, `-c${connections}`, `-d${duration}s`, '--latency', ...(script ? ['-s', script] : []), url];
  const [cmd, fullArgs] = pinned(pin, 'client', 'wrk', args);
  return new Promise((resolve, reject) => {
    execFile(cmd, fullArgs, { encoding: 'utf8', timeout: (duration + 30) * 1000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`wrk failed: ${err.message}\n${stderr}`, { cause: err }));
      else {
        try {
          resolve(parseWrk(stdout));
        } catch (e) {
          reject(e);
        }
      }
    });
  });
}
