import * as stable from '@opentelemetry/semantic-conventions';
import * as incubating from '@opentelemetry/semantic-conventions/incubating';
import * as semconv from './semconv.js';

describe('semantic convention names', () => {
  it.each([
    ['ATTR_HTTP_REQUEST_METHOD', stable.ATTR_HTTP_REQUEST_METHOD],
    ['ATTR_HTTP_RESPONSE_STATUS_CODE', stable.ATTR_HTTP_RESPONSE_STATUS_CODE],
    ['ATTR_HTTP_ROUTE', stable.ATTR_HTTP_ROUTE],
    ['ATTR_URL_PATH', stable.ATTR_URL_PATH],
    ['ATTR_URL_SCHEME', stable.ATTR_URL_SCHEME],
    ['ATTR_USER_AGENT_ORIGINAL', stable.ATTR_USER_AGENT_ORIGINAL],
    ['ATTR_CLIENT_ADDRESS', stable.ATTR_CLIENT_ADDRESS],
    ['ATTR_ERROR_TYPE', stable.ATTR_ERROR_TYPE],
    ['ATTR_SERVICE_NAME', stable.ATTR_SERVICE_NAME],
    ['ATTR_RPC_SYSTEM', incubating.ATTR_RPC_SYSTEM],
    ['ATTR_RPC_SERVICE', incubating.ATTR_RPC_SERVICE],
    ['ATTR_RPC_METHOD', incubating.ATTR_RPC_METHOD],
    ['ATTR_RPC_GRPC_STATUS_CODE', incubating.ATTR_RPC_GRPC_STATUS_CODE],
    ['RPC_SYSTEM_VALUE_GRPC', incubating.RPC_SYSTEM_VALUE_GRPC],
    ['ATTR_GRAPHQL_OPERATION_TYPE', incubating.ATTR_GRAPHQL_OPERATION_TYPE],
    ['ATTR_GRAPHQL_OPERATION_NAME', incubating.ATTR_GRAPHQL_OPERATION_NAME],
  ] as const)('%s is the name @opentelemetry/semantic-conventions gives it', (name, expected) => {
    expect(semconv[name]).toBe(expected);
  });
});

describe('span names', () => {
  it('names HTTP spans by method and route template, or by method alone', () => {
    expect(semconv.httpSpanName('GET', '/users/:id')).toBe('GET /users/:id');
    expect(semconv.httpSpanName('DELETE', undefined)).toBe('DELETE');
  });

  it('names GraphQL spans by operation type and name, else by type, else the fallback', () => {
    expect(semconv.graphqlSpanName('query', 'GetUser', 'POST /graphql')).toBe('query GetUser');
    expect(semconv.graphqlSpanName('mutation', undefined, 'POST /graphql')).toBe('mutation');
    expect(semconv.graphqlSpanName('subscription', '', 'POST /graphql')).toBe('subscription');
    expect(semconv.graphqlSpanName(undefined, 'GetUser', 'POST /graphql')).toBe('POST /graphql');
  });

  it('names gRPC spans <package>.<Service>/<Method>', () => {
    expect(semconv.grpcSpanName('users.v1.UserService', 'GetUser')).toBe('users.v1.UserService/GetUser');
  });

  it('treats 5xx as server errors and 4xx as the client’s', () => {
    expect([399, 404, 499, 500, 503].map(semconv.isHttpServerError)).toEqual([false, false, false, true, true]);
  });

  it('marks only server-side gRPC codes as errors', () => {
    expect([...semconv.GRPC_SERVER_ERROR_CODES].sort((a, b) => a - b)).toEqual([2, 4, 12, 13, 14, 15]);
  });
});
