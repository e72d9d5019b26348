/** Which `X-Forwarded-For` hops to believe: none (false), all (true), a hop count, or proxy addresses. */
export type TrustProxy = boolean | number | string[];

/**
 * The client address of a request: the socket's, or the `X-Forwarded-For` hop that `trustProxy`
 * lets through (a hop count counts proxies from the socket back; a list names the trusted proxies).
 * The one implementation behind `ctx.ip` for every protocol.
 * @example
 * clientIp('10.0.0.1', '203.0.113.7, 10.0.0.2', 2); // '203.0.113.7'
 */
export function clientIp(socketAddress: string, forwardedFor: string | undefined, trustProxy: TrustProxy): string {
  if (trustProxy === false || forwardedFor === undefined) return socketAddress;
  const hops = forwardedFor.split(',').map((s) => s.trim()).filter(Boolean);
  const chain = [...hops, socketAddress];
  if (trustProxy === true) return chain[0] ?? socketAddress;
  if (typeof trustProxy === 'number') return chain[Math.max(0, chain.length - 1 - trustProxy)] ?? socketAddress;
  for (let i = chain.length - 1; i >= 0; i--) if (!trustProxy.includes(chain[i]!)) return chain[i]!;
  return chain[0] ?? socketAddress;
}
