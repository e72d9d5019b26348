// Connect suite, the reference: @connectrpc/connect-node's connectNodeAdapter on node:http, serving
// the same proto with a plain handler (no validation, no middleware: the least a server can do).
import { createServer } from 'node:http';
import { connectNodeAdapter } from '@connectrpc/connect-node';
import { BOOK, catalogService } from './connect-shared.mjs';
import { announce } from './ready.mjs';

const service = catalogService();
const handler = connectNodeAdapter({
  routes(router) {
    router.service(service, { getBook: (request) => ({ book: { ...BOOK, id: request.id } }) });
  },
});
const server = createServer(handler);
server.listen(0, '127.0.0.1', () => announce(server.address().port, ['connect-json', 'connect-proto']));
