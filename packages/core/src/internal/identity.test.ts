import { requestIdentity } from './identity.js';

type Caller = Parameters<typeof requestIdentity>[0];

const caller = (fields: Partial<Caller>): Caller => ({ ip: '203.0.113.1', user: undefined, state: {}, headers: {}, ...fields });

describe('requestIdentity', () => {
  it('is the same for two requests of one user from one address, whatever else differs', () => {
    const a = caller({ user: { id: 'u1', name: 'Ada' }, headers: { authorization: 'Bearer one' } });
    const b = caller({ user: { id: 'u1', name: 'Ada Lovelace' }, headers: { authorization: 'Bearer two' } });
    expect(requestIdentity(a)).toBe(requestIdentity(b));
    expect(requestIdentity(caller({ user: { sub: 's1' } }))).toBe(requestIdentity(caller({ user: { sub: 's1', roles: ['admin'] } })));
    expect(requestIdentity(caller({ user: 'alice' }))).toBe(requestIdentity(caller({ state: { user: 'alice' } })));
  });

  it('tells apart users, addresses, credentials and the anonymous', () => {
    const identities = [
      caller({ user: { id: 'u1' } }),
      caller({ user: { id: 'u2' } }),
      caller({ user: { id: 'u1' }, ip: '198.51.100.7' }),
      caller({ user: { sub: 'u1' } }),
      caller({ user: { name: 'Ada' } }),
      caller({ headers: { authorization: 'Bearer one' } }),
      caller({ headers: { authorization: 'Bearer two' } }),
      caller({}),
      // A separator in a value cannot make one caller look like another.
      caller({ user: '","id","u1' }),
    ].map(requestIdentity);
    expect(new Set(identities).size).toBe(identities.length);
  });

  it('falls back to the credentials for a user that is not JSON', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const withAuth = caller({ user: cyclic, headers: { authorization: 'Bearer one' } });
    expect(requestIdentity(withAuth)).toBe(requestIdentity(caller({ headers: { authorization: 'Bearer one' } })));
  });
});
