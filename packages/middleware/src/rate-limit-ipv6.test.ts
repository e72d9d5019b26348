import { networkInterfaces } from 'node:os';
import { Application, type ApplicationConfig } from '@fw/core';
import { send, start, type TestResponse } from '../test/http.js';
import { rateLimit } from './index.js';
import type { RateLimitConfig } from './index.js';

const hasIPv6Loopback = Object.values(networkInterfaces()).some((list) => list?.some((info) => info.address === '::1') === true);
const itWithIPv6 = hasIPv6Loopback ? it : it.skip;

async function withLimit(config: RateLimitConfig, fn: (url: string) => Promise<void>, appConfig: ApplicationConfig = {}, host?: string): Promise<void> {
  const app = new Application({ onLog: () => undefined, ...appConfig });
  app.use(rateLimit(config));
  app.get('/ip', (ctx) => ctx.json({ ip: ctx.ip }));
  const url = await start(app, host);
  try {
    await fn(`${url}/ip`);
  } finally {
    await app.close();
  }
}

async function fromEach(url: string, clients: readonly string[]): Promise<TestResponse[]> {
  const out: TestResponse[] = [];
  for (const client of clients) out.push(await send(url, { headers: { 'x-forwarded-for': client } }));
  return out;
}

/** Twelve addresses in 2001:db8:0:1200::/56, spread over several /64s. */
const ONE_SLASH_56 = [
  '2001:db8:0:1200::1',
  '2001:db8:0:1200::2',
  '2001:db8:0:1201::1',
  '2001:db8:0:1201:abcd::1',
  '2001:db8:0:12ff:ffff:ffff:ffff:ffff',
  '2001:db8:0:1234:5678:9abc:def0:1',
  '2001:DB8:0:1250::9',
  '2001:0db8:0000:1260:0000:0000:0000:0001',
  '2001:db8:0:1270::1%eth0',
  '2001:db8:0:1280::dead:beef',
  '2001:db8:0:1290::1',
  '2001:db8:0:12a0::1',
];

describe('rateLimit() and IPv6 clients', () => {
  it('counts every address of one /56 as one client, so rotating addresses does not escape the limit', async () => {
    await withLimit(
      { maxRequests: 5 },
      async (url) => {
        const responses = await fromEach(url, ONE_SLASH_56);
        expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 429, 429, 429, 429, 429, 429, 429]);
        // Another /56 is another client with its own window.
        const other = await fromEach(url, ['2001:db8:0:1300::1', '2001:db8:0:13ff::2']);
        expect(other.map((r) => r.status)).toEqual([200, 200]);
        expect(other[1]!.headers['x-ratelimit-remaining']).toBe('3');
        // The app still sees each client's own address.
        expect(other[0]!.json()).toEqual({ ip: '2001:db8:0:1300::1' });
      },
      { trustProxy: true },
    );
  });

  it('keys by the /64 with ipv6Subnet: 64', async () => {
    await withLimit(
      { maxRequests: 2, ipv6Subnet: 64 },
      async (url) => {
        const statuses = (await fromEach(url, ['2001:db8:0:1200::1', '2001:db8:0:1200::2', '2001:db8:0:1200::3', '2001:db8:0:1201::1'])).map((r) => r.status);
        expect(statuses).toEqual([200, 200, 429, 200]);
      },
      { trustProxy: true },
    );
  });

  it('keys by the full address with ipv6Subnet: false, still one key per address however it is spelled', async () => {
    await withLimit(
      { maxRequests: 3, ipv6Subnet: false },
      async (url) => {
        const spellings = ['2001:db8::abcd:1', '2001:0DB8:0000:0000:0000:0000:ABCD:0001', '2001:db8::abcd:1%eth0', '2001:db8:0:0:0:0:abcd:1'];
        expect((await fromEach(url, spellings)).map((r) => r.status)).toEqual([200, 200, 200, 429]);
        expect((await fromEach(url, ['2001:db8::abcd:2'])).map((r) => r.status)).toEqual([200]);
      },
      { trustProxy: true },
    );
  });

  it('counts an IPv4 client and its IPv4-mapped IPv6 spellings as one client', async () => {
    await withLimit(
      { maxRequests: 2 },
      async (url) => {
        const statuses = (await fromEach(url, ['203.0.113.9', '::ffff:203.0.113.9', '::FFFF:cb00:7109'])).map((r) => r.status);
        expect(statuses).toEqual([200, 200, 429]);
      },
      { trustProxy: true },
    );
  });

  it('does not change what a custom keyGenerator returns', async () => {
    await withLimit(
      { maxRequests: 1, keyGenerator: (ctx) => ctx.ip },
      async (url) => {
        expect((await fromEach(url, ['2001:db8:0:1200::1', '2001:db8:0:1200::2'])).map((r) => r.status)).toEqual([200, 200]);
      },
      { trustProxy: true },
    );
  });

  itWithIPv6('limits a client connecting over the IPv6 loopback', async () => {
    await withLimit(
      { maxRequests: 2 },
      async (url) => {
        const responses = [await send(url), await send(url), await send(url)];
        expect(responses.map((r) => r.status)).toEqual([200, 200, 429]);
        expect(responses[0]!.json()).toEqual({ ip: '::1' });
      },
      {},
      '::1',
    );
  });

  it('counts a client on an IPv4-mapped socket address and the same client named in X-Forwarded-For as one', async () => {
    // A socket bound to ::ffff:127.0.0.1 sees IPv4 clients as ::ffff:127.0.0.1, as a dual-stack server does.
    await withLimit(
      { maxRequests: 2 },
      async (url) => {
        const direct = await send(url);
        expect(direct.json()).toEqual({ ip: '::ffff:127.0.0.1' });
        const forwarded = await send(url, { headers: { 'x-forwarded-for': '127.0.0.1' } });
        expect(forwarded.json()).toEqual({ ip: '127.0.0.1' });
        expect((await send(url, { headers: { 'x-forwarded-for': '::ffff:7f00:1' } })).status).toBe(429);
      },
      { trustProxy: true },
      '::ffff:127.0.0.1',
    );
  });

  it('rejects an ipv6Subnet that is not false or a whole number from 1 to 128', () => {
    expect(() => rateLimit({ ipv6Subnet: 0 })).toThrow(/ipv6Subnet/);
    expect(() => rateLimit({ ipv6Subnet: 129 })).toThrow(/ipv6Subnet/);
    expect(() => rateLimit({ ipv6Subnet: true as unknown as number })).toThrow(/ipv6Subnet/);
  });
});
