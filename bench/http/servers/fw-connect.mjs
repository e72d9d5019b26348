// Connect suite, fw: the operation served over Connect on the app's HTTP port (createApp, defaults).
import { createApp } from '@fw/app';
import { getBook } from './connect-shared.mjs';
import { announce } from './ready.mjs';

const app = createApp({ protocols: { connect: true } });
app.operation(getBook);

const { port } = await app.listen(0, '127.0.0.1');
announce(port, ['connect-json', 'connect-proto']);
