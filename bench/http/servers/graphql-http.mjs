// GraphQL suite (issue 5), the reference: a bare node:http server around graphql-http's core
// handler (parse and validate on every request, as graphql-http does). Its `use/http` adapter
// answers chunked; here the body is sent with Content-Length like fw's, so the baseline pays no
// transfer-encoding overhead fw does not.
import { createServer } from 'node:http';
import { createHandler } from 'graphql-http';
import { GRAPHQL_SCENARIOS, schema, rootValue } from './graphql-schema.mjs';
import { announce } from './ready.mjs';

const handle = createHandler({ schema, rootValue });

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

const server = createServer(async (req, res) => {
  try {
    if (req.url.split('?')[0] !== '/graphql') {
      res.writeHead(404, { 'content-type': 'text/plain', 'content-length': 9 });
      return res.end('Not Found');
    }
    const text = req.method === 'POST' ? await readBody(req) : undefined;
    const [body, init] = await handle({ method: req.method, url: req.url, headers: req.headers, body: text, raw: req, context: undefined });
    const payload = body ?? '';
    res.writeHead(init.status, { ...init.headers, 'content-length': Buffer.byteLength(payload) });
    res.end(payload);
  } catch (err) {
    console.error(err);
    res.writeHead(500, { 'content-length': 0 });
    res.end();
  }
});

server.listen(0, '127.0.0.1', () => announce(server.address().port, GRAPHQL_SCENARIOS));
