import { ERROR_CODE_STATUS, HTTPError, type ErrorCode } from '@fw/core';
import { GRPC_STATUS, GRPC_STATUS_OF_CODE } from '@fw/grpc';
import { CONNECT_CODE_OF_CODE, CONNECT_HTTP_STATUS, connectCodeOf, GRPC_WEB_STATUS, type ConnectCode } from './code.js';

// Connect's column of the one error table: each code is the name of the gRPC status the gRPC
// column gives (snake_case; CANCELLED spelt `canceled`, as Connect spells it), and each Connect
// code has the HTTP status of the Connect specification's table.

const SPEC_STATUS: Readonly<Record<ConnectCode, number>> = {
  canceled: 499,
  unknown: 500,
  invalid_argument: 400,
  deadline_exceeded: 504,
  not_found: 404,
  already_exists: 409,
  permission_denied: 403,
  resource_exhausted: 429,
  failed_precondition: 400,
  aborted: 409,
  out_of_range: 400,
  unimplemented: 501,
  internal: 500,
  unavailable: 503,
  data_loss: 500,
  unauthenticated: 401,
};

const nameOfStatus = new Map<number, string>(Object.entries(GRPC_STATUS).map(([name, value]) => [value, name]));

describe('the Connect column of the error table', () => {
  it.each(Object.keys(ERROR_CODE_STATUS) as ErrorCode[])('maps %s to the gRPC status of the gRPC column, by name', (code) => {
    const grpcName = nameOfStatus.get(GRPC_STATUS_OF_CODE[code])!;
    const expected = grpcName === 'CANCELLED' ? 'canceled' : grpcName.toLowerCase();
    expect(CONNECT_CODE_OF_CODE[code]).toBe(expected);
    expect(GRPC_WEB_STATUS[CONNECT_CODE_OF_CODE[code]]).toBe(GRPC_STATUS_OF_CODE[code]);
  });

  it('gives each Connect code the HTTP status of the Connect specification', () => {
    expect(CONNECT_HTTP_STATUS).toEqual(SPEC_STATUS);
  });

  it('reads an error’s own code first, else its status’s', () => {
    expect(connectCodeOf(new HTTPError(409, 'Taken'))).toBe('already_exists');
    expect(connectCodeOf(new HTTPError(409, 'Lost a race', undefined, { code: 'aborted' }))).toBe('aborted');
    expect(connectCodeOf(new HTTPError(413))).toBe('resource_exhausted');
    expect(connectCodeOf({ statusCode: 418 })).toBe('internal');
  });
});
