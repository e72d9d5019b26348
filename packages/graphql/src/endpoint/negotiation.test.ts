import { acceptedMediaType, responseTypeOf } from './negotiation.js';

describe('acceptedMediaType', () => {
  it('answers each Accept header on its own when headers alternate', () => {
    expect(acceptedMediaType('application/json')).toBe('application/json');
    expect(acceptedMediaType('application/json')).toBe('application/json');
    expect(acceptedMediaType('text/html')).toBeUndefined();
    expect(acceptedMediaType('text/html')).toBeUndefined();
    expect(acceptedMediaType('application/graphql-response+json, application/json')).toBe('application/graphql-response+json');
    expect(acceptedMediaType('application/json; charset=latin1')).toBeUndefined();
    expect(acceptedMediaType('application/json')).toBe('application/json');
    expect(acceptedMediaType(undefined)).toBe('application/json');
  });

  it('weighs the types by their q-values, and refuses a type listed with q=0', () => {
    expect(acceptedMediaType('application/json;q=0.5, application/graphql-response+json')).toBe('application/graphql-response+json');
    expect(acceptedMediaType('application/graphql-response+json;q=0, */*')).toBe('application/json');
    expect(acceptedMediaType('application/json;q=0')).toBeUndefined();
  });
});

describe('responseTypeOf', () => {
  it.each([
    ['text/event-stream', true, false, 'text/event-stream'],
    ['text/event-stream', false, false, undefined],
    ['application/graphql-response+json, text/event-stream;q=0', true, false, 'application/graphql-response+json'],
    ['text/event-stream;q=0.5, application/json', true, false, 'application/json'],
    ['application/json;q=0.5, text/event-stream', true, false, 'text/event-stream'],
    ['text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', true, true, 'text/html'],
    ['text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', true, false, 'application/json'],
    ['application/json, text/html', true, true, 'application/json'],
    ['*/*', true, true, 'application/json'],
    [undefined, true, true, 'application/json'],
  ] as const)('answers Accept %j (stream offered: %s, page offered: %s) with %s', (accept, stream, page, expected) => {
    expect(responseTypeOf(accept, stream, page)).toBe(expected);
  });
});
