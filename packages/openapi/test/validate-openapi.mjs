// Validates the OpenAPI documents given on stdin (a JSON array) with @seriousme/openapi-schema-validator
// and prints one { valid, errors } per document. Runs as its own node process: the validator is an
// ES module that reads its schemas through import.meta.url, which jest's CommonJS transform cannot run.
import { Validator } from '@seriousme/openapi-schema-validator';

let input = '';
for await (const chunk of process.stdin) input += chunk;
const results = [];
for (const document of JSON.parse(input)) {
  const validator = new Validator();
  const result = await validator.validate(document);
  results.push({ valid: result.valid, version: validator.version, errors: result.errors ?? null });
}
process.stdout.write(JSON.stringify(results));
