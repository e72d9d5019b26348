// Middleware suite (issue 3), fw: the bare static route, and the same route in a group behind
// cors() + rateLimit() (default settings but a limit no benchmark reaches: nothing is limited).
import { createApp } from '@fw/app';
import { cors, rateLimit } from '@fw/app/middleware';
import { announce, HELLO, NO_LIMIT } from './ready.mjs';

const app = createApp();
app.get('/json', (ctx) => ctx.json(HELLO));
app.group('/cors', (group) => {
  group.use(cors());
  group.use(rateLimit({ maxRequests: NO_LIMIT }));
  group.get('/json', (ctx) => ctx.json(HELLO));
});

const { port } = await app.listen(0, '127.0.0.1');
announce(port, ['static', 'cors-rl']);
