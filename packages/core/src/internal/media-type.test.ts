import { admittedBodyType, negotiate, parseMediaType } from './media-type.js';

describe('parseMediaType', () => {
  it.each([
    ['application/json', 'application/json', {}],
    ['Application/JSON ; Charset="UTF-8"', 'application/json', { charset: 'UTF-8' }],
    ['text/plain;', 'text/plain', {}],
    ['multipart/form-data; boundary="a \\"b\\" c"', 'multipart/form-data', { boundary: 'a "b" c' }],
    ['application/vnd.api+json;ext=x;;profile=y', 'application/vnd.api+json', { ext: 'x', profile: 'y' }],
  ])('reads %j as %s with its parameters', (value, essence, parameters) => {
    const type = parseMediaType(value);
    expect(type?.essence).toBe(essence);
    expect(Object.fromEntries(type?.parameters ?? [])).toEqual(parameters);
  });

  it.each([
    ['text/plain;application/json'],
    ['text/plain; charset = utf-8'],
    ['application/json; charset="utf-8'],
    ['application/json; charset=utf-8; charset=latin1'],
    ['application'],
    ['/json'],
    ['application/'],
    ['application/json x'],
    [''],
  ])('refuses %j as malformed', (value) => {
    expect(parseMediaType(value)).toBeUndefined();
  });
});

describe('admittedBodyType', () => {
  it.each([
    ['application/json', ['json'], 'json'],
    ['application/json; charset=utf-8', ['json'], 'json'],
    ['APPLICATION/JSON; CHARSET=UTF-8', ['json'], 'json'],
    ['application/merge-patch+json', ['json'], 'json'],
    ['application/json; boundary=x', ['json'], 'json'],
    ['application/x-www-form-urlencoded', ['json', 'form'], 'form'],
    ['application/x-www-form-urlencoded', ['json'], undefined],
    ['application/json', ['form'], undefined],
    ['application/json; charset=latin1', ['json'], undefined],
    ['application/+json', ['json'], undefined],
    ['text/plain;application/json', ['json'], undefined],
    ['text/plain; charset=application/json', ['json'], undefined],
    ['application/x-www-form-urlencoded; x=application/json', ['json'], undefined],
    ['multipart/form-data; boundary=application/json', ['json', 'form'], undefined],
    ['Multipart/Form-Data; boundary="----x"', ['json', 'multipart'], 'multipart'],
    ['multipart/mixed; boundary=x', ['multipart'], undefined],
    ['text/json', ['json'], undefined],
    ['application/jsonp', ['json'], undefined],
    [undefined, ['json', 'form'], undefined],
  ] as const)('admits %j among %j as %s', (contentType, accepts, expected) => {
    expect(admittedBodyType(contentType, accepts)).toBe(expected);
  });
});

describe('negotiate', () => {
  const GRAPHQL = ['application/json', 'application/graphql-response+json', 'text/event-stream'];
  const PAGES = ['text/html', 'application/json'];

  it.each([
    // No preference: the server's.
    [undefined, GRAPHQL, 'application/json'],
    ['', GRAPHQL, 'application/json'],
    ['*/*', GRAPHQL, 'application/json'],
    ['application/*', GRAPHQL, 'application/json'],
    // q=0 is "not acceptable", whatever the order.
    ['application/graphql-response+json, text/event-stream;q=0', GRAPHQL, 'application/graphql-response+json'],
    ['text/event-stream;q=0', GRAPHQL, undefined],
    ['*/*, text/event-stream;q=0', ['text/event-stream'], undefined],
    // The highest q wins, wherever it is listed.
    ['text/event-stream;q=0.5, application/json', GRAPHQL, 'application/json'],
    ['application/json;q=0.5, text/event-stream', GRAPHQL, 'text/event-stream'],
    ['text/event-stream;q=0.9, */*', GRAPHQL, 'application/json'],
    ['*/*;q=0.1, text/*', GRAPHQL, 'text/event-stream'],
    ['application/json;q=0.001, text/event-stream;q=0.002', GRAPHQL, 'text/event-stream'],
    // Equal q: the more specific range, then the one listed first.
    ['*/*, text/event-stream', GRAPHQL, 'text/event-stream'],
    ['text/*, application/json', GRAPHQL, 'application/json'],
    ['application/graphql-response+json, application/json', GRAPHQL, 'application/graphql-response+json'],
    ['application/json, application/graphql-response+json', GRAPHQL, 'application/json'],
    ['text/event-stream, application/json', GRAPHQL, 'text/event-stream'],
    ['application/graphql-response+json, application/graphql+json, application/json, text/event-stream, multipart/mixed', GRAPHQL, 'application/graphql-response+json'],
    // The most specific matching range sets an offer's q.
    ['text/*;q=0.3, text/event-stream;q=0.9, */*;q=0.5', GRAPHQL, 'text/event-stream'],
    ['*/*, application/json;q=0', ['application/json', 'text/event-stream'], 'text/event-stream'],
    ['text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', PAGES, 'text/html'],
    // Case, spaces, a parameter after q.
    ['TEXT/Event-Stream ; Q=1', GRAPHQL, 'text/event-stream'],
    ['application/json; q=0.5; level=1, text/event-stream; q=0.4', GRAPHQL, 'application/json'],
    // Nothing acceptable, or nothing readable.
    ['image/png, text/plain', GRAPHQL, undefined],
    ['nonsense', GRAPHQL, undefined],
    ['*/json', GRAPHQL, undefined],
    ['text/event-stream;q=2', GRAPHQL, undefined],
    ['text/event-stream;q=0.5x, application/json', GRAPHQL, 'application/json'],
    [',,  , text/event-stream', GRAPHQL, 'text/event-stream'],
    ['application/json;foo="a,b", text/event-stream;q=0.1', GRAPHQL, 'text/event-stream'],
  ] as const)('answers Accept %j with %j: %s', (accept, offered, expected) => {
    expect(negotiate(accept, offered)).toBe(expected);
  });

  it("matches a range's parameters against the offer's, values case-insensitively", () => {
    const offered = ['application/json; charset=utf-8', 'application/graphql-response+json; charset=utf-8'];
    expect(negotiate('application/json; charset=UTF-8', offered)).toBe('application/json; charset=utf-8');
    expect(negotiate('application/json; charset=latin1', offered)).toBeUndefined();
    expect(negotiate('application/json; charset=latin1, application/graphql-response+json', offered)).toBe('application/graphql-response+json; charset=utf-8');
    expect(negotiate('application/json; charset=utf-8; q=0, application/json', offered)).toBeUndefined();
  });

  it('refuses to offer a media range or a malformed type', () => {
    expect(() => negotiate('*/*', ['text/*'])).toThrow(TypeError);
    expect(() => negotiate('*/*', ['json'])).toThrow(TypeError);
    expect(negotiate('*/*', [])).toBeUndefined();
  });
});
