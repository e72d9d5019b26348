import { Application } from '@fw/app/core';
import { openapi } from '@fw/app/openapi';
import { demoVerifier, requireAuth } from '../src/auth.js';
import { DEV_JWT_SECRET } from '../src/config.js';
import { InMemoryRepository, SEED } from '../src/domain/repository.js';
import { Store } from '../src/domain/store.js';
import { LiveEvents } from '../src/live.js';
import { bookstoreOperations } from '../src/operations.js';

// The differential test of packages/openapi (test/operations-shapes.test.ts) on every operation of
// the demo: documented from their type shapes (the default) and from their zod schemas (a convert
// option that converts nothing keeps that path), the documents are the same byte for byte, without
// normalising anything: the demo uses none of the constructs the openapi README lists as documented
// differently. (generated.test.ts checks that schemas/openapi.json is what fw emit writes now.)

it('documents every operation of the demo from its shapes as from its zod schemas', () => {
  const live = new LiveEvents();
  const app = new Application();
  const operations = bookstoreOperations(new Store(new InMemoryRepository(SEED), live.events), requireAuth(demoVerifier(DEV_JWT_SECRET)), live);
  for (const op of operations) app.operation(op);
  const fromShapes = openapi(app);
  const fromSchemas = openapi(app, { convert: () => undefined });
  expect(Object.values(fromShapes.paths).flatMap((item) => Object.keys(item))).toHaveLength(operations.length);
  expect(JSON.stringify(fromShapes, null, 2)).toBe(JSON.stringify(fromSchemas, null, 2));
});
