import { HTTPError, ValidationError } from '@fw/core';
import { markClientGone } from '@fw/core/plugin';
import { GraphQLError, locatedError } from 'graphql';
import { createErrorFormatter, withoutSuggestion } from './errors.js';

describe('withoutSuggestion', () => {
  it.each([
    ['Cannot query field "helo" on type "Query". Did you mean "hello"?', 'Cannot query field "helo" on type "Query".'],
    ['Unknown argument "nme" on field "Query.hello". Did you mean "name" or "names"?', 'Unknown argument "nme" on field "Query.hello".'],
    ['Unknown type "Usr". Did you mean "User", "Users", or "UserInput"?', 'Unknown type "Usr".'],
    ['Value "FICTON" does not exist in "Genre" enum. Did you mean the enum value "FICTION"?', 'Value "FICTON" does not exist in "Genre" enum.'],
    ['Cannot query field "x" on type "Node". Did you mean to use an inline fragment on "Book"?', 'Cannot query field "x" on type "Node".'],
  ])('drops the hint of %j', (message, expected) => {
    expect(withoutSuggestion(message)).toBe(expected);
  });

  it('leaves messages without a hint, or with the words only inside quoted input, alone', () => {
    expect(withoutSuggestion('Syntax Error: Unexpected "}".')).toBe('Syntax Error: Unexpected "}".');
    const quoted = 'Variable "$q" got invalid value " Did you mean \\"x\\"?"; Expected type "Int".';
    expect(withoutSuggestion(quoted)).toBe(quoted);
    expect(withoutSuggestion('Did you mean "x"? is what the user typed?')).toBe('Did you mean "x"? is what the user typed?');
  });
});

describe('createErrorFormatter', () => {
  const logged: string[] = [];
  const format = createErrorFormatter({ maskErrors: true, onLog: (message) => void logged.push(message) });
  const json = (error: Readonly<GraphQLError | Error>): unknown => JSON.parse(JSON.stringify(format(error)));

  it('masks and logs an error that is not a GraphQL error (one graphql-js execution threw itself)', () => {
    logged.length = 0;
    expect(json(new Error('db password is hunter2'))).toEqual({ message: 'Internal server error', extensions: { code: 'INTERNAL_SERVER_ERROR', status: 500 } });
    expect(logged).toEqual(['GraphQL error: db password is hunter2']);
  });

  it("does not log a resolver error caused by its client's leaving, also when graphql-js wrapped a thrown non-Error", () => {
    logged.length = 0;
    const reason = markClientGone(new Error('The client closed the connection'));
    const aborted = Object.assign(new Error('The operation was aborted', { cause: reason }), { name: 'AbortError' });
    // What a resolver's rejection with an error of another realm (node's own AbortError in a vm context) becomes.
    const foreign = { name: 'AbortError', code: 'ABORT_ERR', cause: reason };
    for (const thrown of [aborted, foreign]) {
      expect((format(locatedError(thrown, undefined, ['slow'])) as GraphQLError).extensions).toMatchObject({ code: 'INTERNAL_SERVER_ERROR' });
    }
    expect(logged).toEqual([]);
    format(locatedError(new Error('db down'), undefined, ['slow']));
    expect(logged).toEqual(['GraphQL error at slow: db down']);
  });

  it('keeps the message of an HTTPError that may be shown', () => {
    expect(format(new HTTPError(404, 'gone')).message).toBe('gone');
  });

  it('names a ValidationError BAD_USER_INPUT by its class, and another 400 with the same details BAD_REQUEST', () => {
    const errors = [{ field: 'input.title', message: 'Too short' }];
    const at = (original: Error): unknown => json(new GraphQLError(original.message, { path: ['addBook'], originalError: original }));
    expect(at(new ValidationError(errors))).toEqual({ message: 'Validation failed', path: ['addBook'], extensions: { code: 'BAD_USER_INPUT', status: 400, details: { errors } } });
    expect(at(new HTTPError(400, 'Validation failed', { errors }))).toEqual({ message: 'Validation failed', path: ['addBook'], extensions: { code: 'BAD_REQUEST', status: 400, details: { errors } } });
  });

  it("gives a resolver's HTTPError the extensions.code of its own code, keeping its status", () => {
    const at = (original: Error): unknown => json(new GraphQLError(original.message, { path: ['order'], originalError: original }));
    expect(at(new HTTPError(409, 'Not enough stock', undefined, { code: 'failed_precondition' }))).toEqual({
      message: 'Not enough stock',
      path: ['order'],
      extensions: { code: 'FAILED_PRECONDITION', status: 409 },
    });
    expect(at(new HTTPError(409, 'Taken'))).toEqual({ message: 'Taken', path: ['order'], extensions: { code: 'CONFLICT', status: 409 } });
  });

  it('masks a resolver error whose statusCode getter throws', () => {
    const thrown = Object.assign(new Error('secret'), {});
    Object.defineProperty(thrown, 'statusCode', {
      get() {
        throw new Error('getter secret');
      },
    });
    const error = new GraphQLError('secret', { path: ['x'], originalError: thrown });
    expect(json(error)).toEqual({ message: 'Internal server error', path: ['x'], extensions: { code: 'INTERNAL_SERVER_ERROR', status: 500 } });
  });
});
