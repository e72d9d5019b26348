// Compression suite, Fastify: the same 10 KB JSON answer behind @fastify/compress with its defaults
// (global; gzip level 6; brotli quality 4; buffered payloads up to its syncThreshold compressed synchronously).
import compress from '@fastify/compress';
import Fastify from 'fastify';
import { announce, CATALOG } from './ready.mjs';

const app = Fastify();
await app.register(compress);
app.get('/catalog', async () => CATALOG);

await app.listen({ port: 0, host: '127.0.0.1' });
announce(app.server.address().port, ['json10k-gzip', 'json10k-br']);
