import { acceptedMediaType } from './negotiation.js';

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
});
