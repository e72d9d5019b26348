// What an editor does with a consumer file, timed in this fresh process: TypeScript's language
// service (what tsserver runs) over the project, then the semantic diagnostics of the consumer file
// alone (the squiggles when it opens) and the completions after `client.` at its first call.
// Prints one JSON line: { diagnosticsMs, completionsMs, entries, errors }.
//   node editor/language-service.mjs <project dir>
import { readFileSync, existsSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const require = createRequire(import.meta.url);
const ts = require('typescript');
const dir = process.argv[2];
const config = ts.parseJsonConfigFileContent(JSON.parse(readFileSync(join(dir, 'tsconfig.json'), 'utf8')), ts.sys, dir);
const files = new Map(readdirSync(dir).filter((f) => f.endsWith('.ts')).map((f) => [join(dir, f), readFileSync(join(dir, f), 'utf8')]));
const host = {
  getScriptFileNames: () => config.fileNames,
  getScriptVersion: () => '1',
  getScriptSnapshot: (file) => {
    const text = files.get(file) ?? (existsSync(file) ? readFileSync(file, 'utf8') : undefined);
    return text === undefined ? undefined : ts.ScriptSnapshot.fromString(text);
  },
  getCurrentDirectory: () => dir,
  getCompilationSettings: () => config.options,
  getDefaultLibFileName: (options) => ts.getDefaultLibFilePath(options),
  fileExists: ts.sys.fileExists,
  readFile: ts.sys.readFile,
  readDirectory: ts.sys.readDirectory,
  directoryExists: ts.sys.directoryExists,
  getDirectories: ts.sys.getDirectories,
  realpath: ts.sys.realpath,
};
const service = ts.createLanguageService(host, ts.createDocumentRegistry());
const consumer = join(dir, 'consumer.ts');
const text = files.get(consumer);
let t0 = performance.now();
const diagnostics = service.getSemanticDiagnostics(consumer);
const diagnosticsMs = performance.now() - t0;
// Completions where a user types the next call: after the first `client.` of the file.
const at = text.indexOf('client.', text.indexOf('export async function')) + 'client.'.length;
t0 = performance.now();
const completions = service.getCompletionsAtPosition(consumer, at, {});
const completionsMs = performance.now() - t0;
console.log(JSON.stringify({ diagnosticsMs, completionsMs, entries: completions?.entries.length ?? 0, errors: diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n')).slice(0, 3) }));
