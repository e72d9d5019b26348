// Why `fw start` cannot serve a module it was given, said so that the fix is plain.
import { join } from 'node:path';
import { fwStart } from './scale-out/support.js';

jest.setTimeout(60_000);

it('says a module that exports nothing but called listen() listened, and exits 1', async () => {
  const main = join(__dirname, 'fixtures', 'listening-main.mjs');
  const failed = await fwStart(['--workers', '1', '--port', '0', '--host', '127.0.0.1'], {}, { app: main }).then(
    () => undefined,
    (err: { code?: number; output?: string }) => err,
  );
  expect(failed?.code).toBe(1);
  expect(failed?.output).toContain(
    `fw: ${main} exports no app: it called listen() while loading instead. Export the app without listening, as the default export or as "app" (keep listen() in another file, e.g. main.ts)\n`,
  );
});
