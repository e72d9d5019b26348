// The scale-out test environment's configurations, written per run: HAProxy in front of the fw
// instances (HTTP/1.1 and gRPC over h2c, each server checked on GET /readyz) and Prometheus
// scraping every instance. Everything binds 127.0.0.1 on the ports the caller chose (free ones).
'use strict';

/**
 * @typedef {{ name: string, http: number, grpc: number }} Instance  an fw instance: its HTTP and gRPC ports
 */

/**
 * HAProxy's configuration: `httpPort` (REST, GraphQL) and `grpcPort` (gRPC, h2c) balanced round
 * robin over `instances`, each taken out at its first failed readiness check (`checkInterval` ms
 * apart) and back at its first passed one; the stats page (CSV at `/stats;csv`) on `statsPort`.
 * No retries: a request that reaches an instance at the wrong moment is a failure the tests see.
 * @param {{ httpPort: number, grpcPort: number, statsPort: number, instances: Instance[], checkInterval?: number }} options
 * @returns {string}
 */
function haproxyConfig({ httpPort, grpcPort, statsPort, instances, checkInterval = 250 }) {
  const servers = (proto) =>
    instances
      .map((i) => `  server ${i.name} 127.0.0.1:${proto === 'h2' ? i.grpc : i.http}${proto === 'h2' ? ' proto h2 check-proto h1' : ''} check port ${i.http}`)
      .join('\n');
  return `global
  maxconn 4096

defaults
  mode http
  timeout connect 2s
  timeout client 30s
  timeout server 30s
  timeout http-keep-alive 10s
  retries 0
  option httpchk GET /readyz
  http-check expect status 200
  default-server inter ${checkInterval}ms fall 1 rise 1

frontend http
  bind 127.0.0.1:${httpPort}
  default_backend fw_http

frontend grpc
  bind 127.0.0.1:${grpcPort} proto h2
  default_backend fw_grpc

backend fw_http
  balance roundrobin
${servers('http')}

backend fw_grpc
  balance roundrobin
${servers('h2')}

listen stats
  bind 127.0.0.1:${statsPort}
  stats enable
  stats uri /stats
  stats refresh 1s
`;
}

/**
 * Prometheus's configuration: one job, `fw`, scraping `GET /metrics` of every instance every
 * `interval` seconds.
 * @param {{ instances: Instance[], interval?: number }} options
 * @returns {string}
 */
function prometheusConfig({ instances, interval = 1 }) {
  return `global:
  scrape_interval: ${interval}s
  scrape_timeout: ${interval}s
  evaluation_interval: ${interval}s
scrape_configs:
  - job_name: fw
    metrics_path: /metrics
    static_configs:
      - targets: [${instances.map((i) => `'127.0.0.1:${i.http}'`).join(', ')}]
`;
}

module.exports = { haproxyConfig, prometheusConfig };
