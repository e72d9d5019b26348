import { HTTPError, ValidationError } from '@fw/core';
import { connectErrorJson, grpcWebTrailers, wireError } from './errors.js';

describe('errors on the wire', () => {
  const quiet = (): void => undefined;

  it('percent-encodes grpc-message outside printable ASCII, and % itself', () => {
    const trailers = grpcWebTrailers(wireError(new HTTPError(404, 'Café 100% gone\n'), quiet, '/x'));
    expect(trailers).toEqual({ 'grpc-status': '5', 'grpc-message': 'Caf%C3%A9 100%25 gone%0A' });
    expect(decodeURIComponent(trailers['grpc-message']!)).toBe('Café 100% gone\n');
  });

  it('masks an unexposed server fault and logs it once', () => {
    const logged: string[] = [];
    const error = wireError(new Error('secret'), (message) => logged.push(message), '/pkg.S/M');
    expect(error).toMatchObject({ code: 'internal', message: 'Internal server error' });
    expect(logged).toHaveLength(1);
    expect(logged[0]).toContain('/pkg.S/M');
  });

  it('carries a validation failure as a google.rpc.BadRequest, with its JSON as debug', () => {
    const thrown = new ValidationError([{ field: 'body.title', message: 'Too short', code: 'too_small' }], 'Invalid input');
    const body = connectErrorJson(wireError(thrown, quiet, '/x'));
    expect(body).toMatchObject({ code: 'invalid_argument', details: [{ type: 'google.rpc.BadRequest', debug: { fieldViolations: [{ field: 'body.title', description: 'Too short' }] } }] });
    const value = (body.details as Array<{ value: string }>)[0]!.value;
    expect(value).not.toMatch(/=$/);
    expect(Buffer.from(value, 'base64').includes(Buffer.from('body.title'))).toBe(true);
  });
});
