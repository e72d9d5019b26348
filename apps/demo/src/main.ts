import { readConfig } from './config.js';
import { startDemo } from './server.js';

const config = readConfig();
const demo = await startDemo(config);
const pid = process.pid;
const delay = config.shutdownDelay > 0 ? `not ready for ${config.shutdownDelay / 1000} s, then ` : '';

console.log(`
fw demo bookstore is up — one app, three protocols (PID ${pid})
  REST      ${demo.restUrl}/api/v1/books   (v2: ${demo.restUrl}/api/v2/books)
  GraphQL   ${demo.graphqlUrl}   (open it in a browser for the playground)
  gRPC      ${demo.grpcTarget}   (service bookstore.Catalog, proto: apps/demo/proto/bookstore/bookstore.proto)
  Live      ${demo.restUrl}/api/v1/orders/events (token) and /api/v1/books/events as server-sent events,
            GraphQL subscriptions orderEvents/stockEvents, gRPC streams Catalog/OrderEvents and StockEvents
  API docs  ${demo.restUrl}/docs   (OpenAPI: ${demo.restUrl}/openapi.json)
  Metrics   ${demo.metricsUrl}   (Prometheus text; health: ${demo.restUrl}/livez and /readyz)

  Admin token (write routes, e.g. POST /api/v1/books):
    ${demo.adminToken}
  Customer token (orders):
    ${demo.customerToken}

  Try: curl ${demo.restUrl}/api/v2/books?genre=fiction
       curl -H "authorization: Bearer <token>" ${demo.restUrl}/api/v1/me
       curl -N ${demo.restUrl}/api/v1/books/events   (then restock or order a book)
  Tour of all three protocols: npx -y pnpm@10.34.9 demo:tour   (tracing exporter: ${config.tracingExporter}; set TRACING_EXPORTER=console|otlp)
  Stop with Ctrl+C here, or kill ${pid} from another terminal: ${delay}in-flight requests finish (Ctrl+C twice exits at once).
`);
console.log(`READY ${JSON.stringify({ rest: demo.restUrl, graphql: demo.graphqlUrl, grpc: demo.grpcTarget, metrics: demo.metricsUrl, pid, adminToken: demo.adminToken, customerToken: demo.customerToken })}`);
// SIGINT and SIGTERM are the app's own (createApp's shutdown): it says what it does, drains, runs
// the demo's beforeExit (which prints "demo stopped") and exits 0; a second signal exits at once.
