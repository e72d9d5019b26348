import { isIPv6 } from 'node:net';

/** Prefix length IPv6 clients are keyed by when `ipv6Subnet` is not given (one customer site). */
export const DEFAULT_IPV6_SUBNET = 56;

/** `::ffff:0:0/96`: how IPv6 sockets show IPv4 clients. */
function isIPv4Mapped(groups: readonly number[]): boolean {
  return groups[0] === 0 && groups[1] === 0 && groups[2] === 0 && groups[3] === 0 && groups[4] === 0 && groups[5] === 0xffff;
}

/**
 * The rate-limit key of a client address, one key per client however its address is spelled:
 * an IPv6 address becomes its `/ipv6Subnet` network (`2001:db8:0:1200::/56`), since one customer
 * holds a whole /64 or /56 and could otherwise rotate addresses within it; upper case, leading
 * zeros, `::` forms, brackets and zone ids (`%eth0`) do not matter; an IPv4-mapped IPv6 address
 * (`::ffff:1.2.3.4`) is its IPv4 address. IPv4 addresses and anything that is not an IP address are
 * returned as they are. `ipv6Subnet: false` keys IPv6 clients by their full (normalised) address.
 * @example
 * rateLimit({ keyGenerator: (ctx) => `${clientIpKey(ctx.ip)}:${ctx.path}` });
 */
export function clientIpKey(ip: string, ipv6Subnet: number | false = DEFAULT_IPV6_SUBNET): string {
  checkSubnet(ipv6Subnet);
  return ipKey(ip, ipv6Subnet);
}

/** `clientIpKey` for a subnet already checked (rateLimit checks it once, not per request). */
export function ipKey(ip: string, ipv6Subnet: number | false): string {
  // IPv4 and the empty address: nothing to normalise.
  if (ip.indexOf(':') === -1) return ip;
  const groups = parseIPv6(ip);
  if (groups === undefined) return ip;
  if (isIPv4Mapped(groups)) return `${groups[6]! >> 8}.${groups[6]! & 255}.${groups[7]! >> 8}.${groups[7]! & 255}`;
  if (ipv6Subnet === false || ipv6Subnet === 128) return formatIPv6(groups);
  return `${formatIPv6(mask(groups, ipv6Subnet))}/${ipv6Subnet}`;
}

/** Throws unless `value` is false or a whole number from 1 to 128. */
export function checkSubnet(value: unknown): asserts value is number | false {
  if (value === false) return;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > 128) {
    throw new TypeError(`ipv6Subnet must be false or a prefix length from 1 to 128, got ${String(value)}`);
  }
}

/** The eight 16-bit groups of an IPv6 address, without brackets, port or zone; undefined if it is none. */
function parseIPv6(ip: string): number[] | undefined {
  let address = ip;
  if (address.startsWith('[')) {
    const end = address.indexOf(']');
    if (end === -1) return undefined;
    address = address.slice(1, end);
  }
  const zone = address.indexOf('%');
  if (zone !== -1) address = address.slice(0, zone);
  if (!isIPv6(address)) return undefined;
  return groupsOf(address);
}

/**
 * The eight 16-bit groups of a valid IPv6 address (`::` expanded, a dotted IPv4 tail split in
 * two), read in one pass over the characters: split() and parseInt() cost several times more.
 */
function groupsOf(address: string): number[] {
  const head: number[] = [];
  const tail: number[] = [];
  let target = head;
  let value = 0;
  let digits = 0;
  for (let i = 0; i < address.length; i++) {
    const code = address.charCodeAt(i);
    if (code === 0x3a) {
      // ':'
      if (digits > 0) target.push(value);
      value = 0;
      digits = 0;
      if (address.charCodeAt(i + 1) === 0x3a) {
        target = tail;
        i++;
      }
    } else if (code === 0x2e) {
      // '.': the last 32 bits are a dotted IPv4 address, from the start of this group on.
      const [a, b, c, d] = address.slice(i - digits).split('.').map(Number) as [number, number, number, number];
      target.push((a << 8) | b, (c << 8) | d);
      digits = 0;
      break;
    } else {
      // 0-9, a-f, A-F (isIPv6 has checked): (code | 0x20) folds upper case to lower.
      value = value * 16 + (code <= 0x39 ? code - 0x30 : (code | 0x20) - 0x57);
      digits++;
    }
  }
  if (digits > 0) target.push(value);
  if (target === head) return head;
  const groups = head;
  for (let i = head.length + tail.length; i < 8; i++) groups.push(0);
  for (const group of tail) groups.push(group);
  return groups;
}

/** Clears every bit after the first `prefix`. */
function mask(groups: number[], prefix: number): number[] {
  return groups.map((group, i) => {
    const keep = Math.min(16, Math.max(0, prefix - i * 16));
    return keep === 0 ? 0 : group & ((0xffff << (16 - keep)) & 0xffff);
  });
}

/**
 * RFC 5952 text: lower case, no leading zeros, the longest run of two or more zero groups (the
 * first of equal runs) written `::`. The same text as node's `SocketAddress` (inet_ntop) gives;
 * written out because constructing a SocketAddress costs microseconds, on every request.
 */
function formatIPv6(groups: readonly number[]): string {
  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let end = i;
    while (end < 8 && groups[end] === 0) end++;
    if (end - i > bestLength) {
      bestStart = i;
      bestLength = end - i;
    }
    i = end;
  }
  const hex = (list: readonly number[]): string => list.map((group) => group.toString(16)).join(':');
  if (bestStart === -1) return hex(groups);
  return `${hex(groups.slice(0, bestStart))}::${hex(groups.slice(bestStart + bestLength))}`;
}
