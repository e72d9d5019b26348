// Raw node:http: the physical limit of the REST path. It has no middleware, so /mw/json is
// answered like /json (the mw3 ratio to raw shows the whole cost of the middleware).
import { createServer } from 'node:http';
import { announce, HELLO } from './ready.mjs';

function sendJson(res, data) {
  const body = JSON.stringify(data);
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

const server = createServer((req, res) => {
  const url = req.url;
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  if (req.method === 'GET') {
    if (path === '/json' || path === '/mw/json') return sendJson(res, HELLO);
    if (path.startsWith('/users/')) {
      const id = path.slice(7);
      if (id !== '' && id.indexOf('/') === -1) return sendJson(res, { id });
    }
  }
  res.writeHead(404, { 'content-type': 'text/plain', 'content-length': 9 });
  res.end('Not Found');
});

server.listen(0, '127.0.0.1', () => announce(server.address().port, ['static', 'param', 'mw3']));
