// The servers the HTTP benchmark loads, each a file started as its own process.
// `role` marks the references the ratios are taken against.
export const servers = [
  { name: 'fw', label: 'fw (@fw/app createApp)', file: 'servers/fw.mjs' },
  { name: 'raw', label: 'raw node:http', file: 'servers/raw.mjs', role: 'raw' },
  { name: 'fastify', label: 'Fastify', file: 'servers/fastify.mjs', role: 'fastify' },
  { name: 'hono', label: 'Hono (@hono/node-server)', file: 'servers/hono.mjs' },
  { name: 'koa', label: 'Koa + @koa/router', file: 'servers/koa.mjs' },
];
