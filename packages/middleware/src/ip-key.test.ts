import { SocketAddress } from 'node:net';
import { clientIpKey, DEFAULT_IPV6_SUBNET } from './index.js';

describe('clientIpKey()', () => {
  it('keys IPv6 addresses by their /56 by default', () => {
    expect(DEFAULT_IPV6_SUBNET).toBe(56);
    const a = clientIpKey('2001:db8:0:1200::1');
    expect(clientIpKey('2001:db8:0:12ff:ffff:ffff:ffff:ffff')).toBe(a);
    expect(clientIpKey('2001:db8:0:1234:5678:9abc:def0:1')).toBe(a);
    expect(a).toBe('2001:db8:0:1200::/56');
    expect(clientIpKey('2001:db8:0:1300::1')).not.toBe(a);
    expect(clientIpKey('2001:db8:1:1200::1')).not.toBe(a);
  });

  it('gives one key to every spelling of an address: compressed, expanded, upper case, zone id, brackets', () => {
    const spellings = [
      '2001:db8::abcd:1',
      '2001:0DB8:0000:0000:0000:0000:ABCD:0001',
      '2001:db8:0:0:0:0:abcd:1',
      '2001:DB8::ABCD:1',
      '2001:db8::abcd:1%eth0',
      '[2001:db8::abcd:1]',
      '[2001:db8::abcd:1]:8443',
    ];
    for (const subnet of [56, 64, false] as const) {
      const keys = new Set(spellings.map((ip) => clientIpKey(ip, subnet)));
      expect([...keys]).toEqual([subnet === false ? '2001:db8::abcd:1' : `2001:db8::/${subnet}`]);
    }
  });

  it('turns IPv4-mapped IPv6 addresses into the IPv4 address', () => {
    expect(clientIpKey('::ffff:203.0.113.9')).toBe('203.0.113.9');
    expect(clientIpKey('::FFFF:cb00:7109')).toBe('203.0.113.9');
    expect(clientIpKey('0:0:0:0:0:ffff:203.0.113.9', false)).toBe('203.0.113.9');
    expect(clientIpKey('203.0.113.9')).toBe('203.0.113.9');
  });

  it('keys by other prefix lengths, or by the full address with false', () => {
    expect(clientIpKey('2001:db8:0:1234:5678::1', 64)).toBe('2001:db8:0:1234::/64');
    expect(clientIpKey('2001:db8:0:1234:5678::1', 48)).toBe('2001:db8::/48');
    expect(clientIpKey('2001:db8:0:1234:5678::1', 60)).toBe('2001:db8:0:1230::/60');
    expect(clientIpKey('2001:db8:0:1234:5678::1', 128)).toBe('2001:db8:0:1234:5678::1');
    expect(clientIpKey('2001:db8:0:1234:5678::1', false)).toBe('2001:db8:0:1234:5678::1');
    expect(clientIpKey('::1')).toBe('::/56');
    expect(clientIpKey('::1', false)).toBe('::1');
  });

  it('leaves IPv4 addresses and strings that are not addresses as they are', () => {
    expect(clientIpKey('127.0.0.1')).toBe('127.0.0.1');
    expect(clientIpKey('')).toBe('');
    expect(clientIpKey('unknown')).toBe('unknown');
    expect(clientIpKey('not:an:address')).toBe('not:an:address');
  });

  it('rejects a prefix length that is not a whole number from 1 to 128', () => {
    expect(() => clientIpKey('::1', 0)).toThrow(/ipv6Subnet/);
    expect(() => clientIpKey('::1', 129)).toThrow(/ipv6Subnet/);
    expect(() => clientIpKey('::1', 56.5)).toThrow(/ipv6Subnet/);
  });
});

describe('clientIpKey() spelling', () => {
  it("writes full addresses exactly as node's SocketAddress (inet_ntop) does", () => {
    // Deterministic pseudo-random groups, many of them zero so that every `::` placement occurs.
    let seed = 12345;
    const random = (): number => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed;
    };
    for (let n = 0; n < 2000; n++) {
      const groups = Array.from({ length: 8 }, () => (random() % 3 === 0 ? random() & 0xffff : 0));
      // inet_ntop writes these two ranges with a dotted IPv4 tail; they are covered above.
      if (groups.slice(0, 5).every((g) => g === 0) && (groups[5] === 0xffff || groups[5] === 0)) continue;
      const expanded = groups.map((g) => g.toString(16).toUpperCase().padStart(4, '0')).join(':');
      expect(clientIpKey(expanded, false)).toBe(new SocketAddress({ address: expanded, family: 'ipv6' }).address);
    }
  });
});
