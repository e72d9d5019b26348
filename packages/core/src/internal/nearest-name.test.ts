import { nearestName } from './nearest-name.js';

describe('nearestName', () => {
  const known = ['exporter', 'enabled', 'endpoint', 'port', 'middleware', 'introspection'];

  it.each([
    ['exprter', 'exporter'],
    ['enabeld', 'enabled'],
    ['prot', 'port'],
    ['middlewares', 'middleware'],
    ['introspecton', 'introspection'],
    ['PORT', 'port'],
    ['Exporter', 'exporter'],
  ])('takes %s for %s', (typed, meant) => {
    expect(nearestName(typed, known)).toBe(meant);
  });

  it('names nothing for a key more than two edits from every known one', () => {
    expect(nearestName('schema', known)).toBeUndefined();
    expect(nearestName('', known)).toBeUndefined();
    expect(nearestName('anything', [])).toBeUndefined();
  });

  it('takes the closest, and the first of equally close ones', () => {
    expect(nearestName('pot', ['post', 'port'])).toBe('post');
    expect(nearestName('hots', ['host', 'hosts'])).toBe('hosts');
  });
});
