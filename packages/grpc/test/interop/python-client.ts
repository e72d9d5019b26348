// Runs the Python (grpcio, gRPC's C core) interop client: finds a Python that has grpcio and
// grpcio-tools, generates its stubs from the interop .proto files into a temporary directory, and
// runs the cases in one child process, reading one JSON line per case.
import { execFile, spawnSync } from 'node:child_process';
import path from 'node:path';
import { PROTO_DIR } from './test-service.js';

const CLIENT = path.join(__dirname, 'python', 'interop_client.py');
const PROTOS = ['empty.proto', 'messages.proto', 'test.proto'];

/** The interpreters tried, in order: `FW_INTEROP_PYTHON` alone when set; else `python3`, then Debian's, which `setup-services.sh` installs grpcio for. */
export function pythonCandidates(env: NodeJS.ProcessEnv = process.env): string[] {
  const chosen = env['FW_INTEROP_PYTHON'];
  return chosen !== undefined && chosen !== '' ? [chosen] : ['python3', '/usr/bin/python3'];
}

/** A Python with grpcio and grpcio-tools, and their versions; or why there is none. */
export type PythonFound = { python: string; versions: string } | { missing: string };

/** Looks for a Python that imports `grpc` and `grpc_tools.protoc` (synchronously: before any server runs). */
export function findPython(candidates = pythonCandidates()): PythonFound {
  const probe = 'import grpc, grpc_tools.protoc, google.protobuf as p; print("grpcio " + grpc.__version__ + ", protobuf " + p.__version__)';
  for (const python of candidates) {
    const run = spawnSync(python, ['-c', probe], { encoding: 'utf8', timeout: 15_000 });
    if (run.status === 0) return { python, versions: run.stdout.trim() };
  }
  return { missing: `no Python with grpcio and grpcio-tools (tried ${candidates.join(', ')}; bash tooling/scripts/setup-services.sh installs them, FW_INTEROP_PYTHON picks another)` };
}

function run(file: string, args: string[], timeout: number): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    // Asynchronous: the servers under test run in this process and must keep answering.
    execFile(file, args, { encoding: 'utf8', timeout, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : null;
      resolve({ code, stdout, stderr: error !== null && code === null ? `${stderr}\n${error.message}` : stderr });
    });
  });
}

/** Generates the Python modules of the interop protos into `dir` with grpc_tools.protoc. */
export async function generateStubs(python: string, dir: string): Promise<void> {
  const { code, stderr } = await run(python, ['-m', 'grpc_tools.protoc', `-I${PROTO_DIR}`, `--python_out=${dir}`, `--grpc_python_out=${dir}`, ...PROTOS], 30_000);
  if (code !== 0) throw new Error(`grpc_tools.protoc failed (${code}): ${stderr}`);
}

/** One case's outcome on the Python client. */
export interface PythonResult {
  ok: boolean;
  error?: string;
  trace?: string;
}

/** Runs `cases` against the server at 127.0.0.1:`port`; the outcome of each case by name. */
export async function runPythonCases(python: string, stubs: string, port: number, cases: readonly string[]): Promise<Map<string, PythonResult>> {
  const args = [CLIENT, '--stubs', stubs, '--server_host', '127.0.0.1', '--server_port', String(port), '--test_cases', cases.join(',')];
  const { code, stdout, stderr } = await run(python, args, 40_000);
  const results = new Map<string, PythonResult>();
  for (const line of stdout.split('\n')) {
    if (!line.startsWith('{')) continue;
    const { case: name, ...result } = JSON.parse(line) as PythonResult & { case: string };
    results.set(name, result);
  }
  // A client that died mid-way (or never started) fails every case it did not report.
  for (const name of cases) {
    if (!results.has(name)) results.set(name, { ok: false, error: `the Python client exited (${code}) without reporting it: ${stderr.trim()}` });
  }
  return results;
}
