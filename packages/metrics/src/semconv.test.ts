import * as stable from '@opentelemetry/semantic-conventions';
import * as incubating from '@opentelemetry/semantic-conventions/incubating';
import * as semconv from './semconv.js';

describe('semantic convention names', () => {
  it.each([
    ['METRIC_HTTP_SERVER_REQUEST_DURATION', stable.METRIC_HTTP_SERVER_REQUEST_DURATION],
    ['METRIC_HTTP_SERVER_ACTIVE_REQUESTS', incubating.METRIC_HTTP_SERVER_ACTIVE_REQUESTS],
    ['METRIC_RPC_SERVER_CALL_DURATION', stable.METRIC_RPC_SERVER_CALL_DURATION],
    ['ATTR_HTTP_REQUEST_METHOD', stable.ATTR_HTTP_REQUEST_METHOD],
    ['ATTR_HTTP_RESPONSE_STATUS_CODE', stable.ATTR_HTTP_RESPONSE_STATUS_CODE],
    ['ATTR_HTTP_ROUTE', stable.ATTR_HTTP_ROUTE],
    ['ATTR_URL_SCHEME', stable.ATTR_URL_SCHEME],
    ['ATTR_ERROR_TYPE', stable.ATTR_ERROR_TYPE],
    ['ATTR_RPC_SYSTEM_NAME', stable.ATTR_RPC_SYSTEM_NAME],
    ['ATTR_RPC_METHOD', stable.ATTR_RPC_METHOD],
    ['ATTR_RPC_STATUS_CODE', stable.ATTR_RPC_STATUS_CODE],
    ['RPC_SYSTEM_NAME_VALUE_GRPC', stable.RPC_SYSTEM_NAME_VALUE_GRPC],
    ['HTTP_METHOD_OTHER', stable.HTTP_REQUEST_METHOD_VALUE_OTHER],
    ['ATTR_GRAPHQL_OPERATION_TYPE', incubating.ATTR_GRAPHQL_OPERATION_TYPE],
    ['ATTR_GRAPHQL_OPERATION_NAME', incubating.ATTR_GRAPHQL_OPERATION_NAME],
  ] as const)('%s is the name @opentelemetry/semantic-conventions gives it', (name, expected) => {
    expect(semconv[name]).toBe(expected);
  });

  it('knows exactly the HTTP methods semantic conventions enumerate', () => {
    const known = Object.entries(stable)
      .filter(([key]) => key.startsWith('HTTP_REQUEST_METHOD_VALUE_') && key !== 'HTTP_REQUEST_METHOD_VALUE_OTHER')
      .map(([, value]) => value as string)
      .sort();
    expect([...semconv.KNOWN_HTTP_METHODS].sort()).toEqual(known);
  });

  it('uses the bucket boundaries advised for HTTP and RPC server durations', () => {
    expect(semconv.DURATION_BUCKETS).toEqual([0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10]);
  });
});
