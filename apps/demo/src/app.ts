import type { App } from '@fw/app';
import { readConfig } from './config.js';
import { InMemoryRepository, SEED } from './domain/repository.js';
import { LiveEvents } from './live.js';
import { buildDemoApp } from './server.js';
import { Store } from './domain/store.js';

/**
 * The demo application, built without listening, with the settings of the environment (HOST,
 * GRPC_PORT, REDIS_URL, ...; see config.ts). `fw start dist/app.js --workers N` (the container's
 * command) makes one per worker and listens; `fw emit dist/app.js` (the `emit` script) writes the
 * schemas it serves — schemas/schema.graphql, schemas/openapi.json and
 * proto/bookstore/bookstore.proto — from it (they do not depend on the settings).
 */
export default function demoApp(): App {
  const live = new LiveEvents();
  return buildDemoApp(new Store(new InMemoryRepository(SEED), live.events), live, readConfig());
}
