import { serverAudits } from 'graphql-http';
import { schema, serve, type Served } from './helpers.js';

// graphql-http's GraphQL-over-HTTP audit suite, one test per audit, against a live server with
// the default configuration (global middleware included, as a real app has).
let served: Served;

beforeAll(async () => {
  served = await serve({ schema, rootValue: { hello: () => 'world' } }, (app) => {
    app.use(async (ctx, next) => {
      ctx.setHeader('x-seen-by-middleware', '1');
      await next();
    });
  });
});

afterAll(() => served.close());

describe('graphql-http server audits', () => {
  for (const audit of serverAudits({ url: () => served.endpoint })) {
    it(`${audit.id} ${audit.name}`, async () => {
      const result = await audit.fn();
      if (result.status !== 'ok') {
        throw new Error(`${result.status}: ${result.reason}${'response' in result ? ` (status ${result.response.status})` : ''}`);
      }
    });
  }
});
