// Compression suite, fw: a 10 KB JSON answer, with compress() installed globally (defaults: br at quality 4, gzip level 6).
import { createApp } from '@fw/app';
import { compress } from '@fw/app/middleware';
import { announce, CATALOG } from './ready.mjs';

const app = createApp();
app.use(compress());
app.get('/catalog', (ctx) => ctx.json(CATALOG));

const { port } = await app.listen(0, '127.0.0.1');
announce(port, ['json10k-gzip', 'json10k-br']);
