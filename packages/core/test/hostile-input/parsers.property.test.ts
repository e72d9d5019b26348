import fc from 'fast-check';
import { Application, HTTPError, type QueryRecord } from '../../src/index.js';
import { parseQuery } from '../../src/internal/query.js';
import { prototypePolluted } from '../hostile/support.js';

// Property-based tests of the query and body parsers: they never throw anything but a 400
// HTTPError (so a client can only ever get a 4xx out of them), and what a client encodes comes
// back exactly.

/** Any text a client might send, surrogate halves included. */
const anyText = fc.string({ unit: 'binary', maxLength: 60 });
/** Text that can be percent-encoded (no lone surrogates). */
const encodable = fc.string({ unit: 'grapheme', maxLength: 12 });
/** Keys and values full of the characters that matter to the parser. */
const tricky = fc.oneof(encodable, fc.stringMatching(/^[&=+%[\]_a-z ]{0,8}$/), fc.constantFrom('__proto__', 'constructor', 'prototype', 'hasOwnProperty', 'toString'));

const pairsArb = fc.array(fc.tuple(tricky, tricky), { maxLength: 20 });

/** What parsing `pairs` must give: repeated keys become arrays, in order. */
function grouped(pairs: Array<[string, string]>): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = Object.create(null) as Record<string, string | string[]>;
  for (const [key, value] of pairs) {
    const existing = out[key];
    out[key] = existing === undefined ? value : Array.isArray(existing) ? [...existing, value] : [existing, value];
  }
  return out;
}

/** Compares ignoring prototypes (the parser's result has none). */
const plain = (record: QueryRecord | Record<string, unknown>): Record<string, unknown> => Object.fromEntries(Object.entries(record));

function expect400(run: () => unknown): void {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(HTTPError);
    expect((err as HTTPError).statusCode).toBe(400);
  }
}

afterEach(() => {
  expect(prototypePolluted()).toBe(false);
});

describe('the query parser, property-based', () => {
  it('never throws anything but a 400 HTTPError, and always returns a null-prototype object', () => {
    fc.assert(
      fc.property(fc.oneof(anyText, fc.stringMatching(/^[%0-9a-fA-F&=+]{0,40}$/)), (input) => {
        expect400(() => {
          const result = parseQuery(input);
          expect(Object.getPrototypeOf(result)).toBeNull();
        });
      }),
      { numRuns: 1000 },
    );
  });

  it('round-trips any keys and values encoded with encodeURIComponent', () => {
    fc.assert(
      fc.property(pairsArb, (pairs) => {
        const input = pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
        expect(plain(parseQuery(input))).toEqual(plain(grouped(pairs)));
      }),
      { numRuns: 500 },
    );
  });

  it('round-trips what URLSearchParams encodes (spaces as +)', () => {
    fc.assert(
      fc.property(pairsArb, (pairs) => {
        const input = new URLSearchParams(pairs).toString();
        expect(plain(parseQuery(input))).toEqual(plain(grouped(pairs)));
      }),
      { numRuns: 500 },
    );
  });

  it('refuses more pairs than maxKeys with 400 and accepts up to it', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 50 }), fc.integer({ min: 0, max: 100 }), (maxKeys, count) => {
        const input = Array.from({ length: count }, (_, i) => `k${i % 7}=${i}`).join('&');
        if (count > maxKeys) {
          expect(() => parseQuery(input, maxKeys)).toThrow(HTTPError);
        } else {
          const result = parseQuery(input, maxKeys);
          const total = Object.values(result).reduce((n, v) => n + (Array.isArray(v) ? v.length : 1), 0);
          expect(total).toBe(count);
        }
      }),
    );
  });
});

describe('the body parsers through the application, property-based', () => {
  const app = new Application({ bodyLimit: 64 * 1024 });
  app.post('/echo', (ctx) => ctx.json({ body: ctx.body === undefined ? '<undefined>' : ctx.body }));
  app.post('/keys', (ctx) => ctx.json({ keys: Object.entries((ctx.body ?? {}) as Record<string, unknown>) }));

  const send = (type: string, body: string | Buffer) => app.inject({ method: 'POST', url: '/echo', headers: { 'content-type': type }, body });

  it('round-trips any JSON value without a forbidden key', async () => {
    // `__proto__` and `constructor` keys are refused on purpose (the test below and the hostile suite).
    const safe = fc.jsonValue({ maxDepth: 4 }).filter((value) => !/"(?:__proto__|constructor)":/.test(JSON.stringify(value)));
    await fc.assert(
      fc.asyncProperty(safe, async (value) => {
        const text = JSON.stringify(value);
        const res = await send('application/json', text);
        expect(res.statusCode).toBe(200);
        // What JSON itself gives back (-0 becomes 0).
        expect(res.json()).toEqual({ body: JSON.parse(text) as unknown });
      }),
      { numRuns: 300 },
    );
  });

  it('answers any bytes with 200, 400 or 413, never 500, whatever the content type', async () => {
    const types = ['application/json', 'application/x-www-form-urlencoded', 'text/plain; charset=utf-8', 'application/vnd.api+json'];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...types),
        fc.oneof(fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b)), anyText, fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v).slice(0, -1))),
        async (type, body) => {
          const res = await send(type, body);
          expect([200, 400, 413]).toContain(res.statusCode);
          if (res.statusCode !== 200) expect(res.json()).toMatchObject({ error: true, code: res.statusCode });
        },
      ),
      { numRuns: 500 },
    );
  });

  it('round-trips any URL-encoded form, __proto__ and constructor included, as plain keys', async () => {
    await fc.assert(
      fc.asyncProperty(pairsArb, async (pairs) => {
        const res = await app.inject({ method: 'POST', url: '/keys', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(pairs).toString() });
        expect(res.statusCode).toBe(200);
        expect(res.json<{ keys: unknown[] }>().keys).toEqual(Object.entries(grouped(pairs)));
      }),
      { numRuns: 300 },
    );
  });

  it('round-trips any text body, and refuses JSON objects that carry __proto__ anywhere', async () => {
    await fc.assert(
      fc.asyncProperty(encodable, fc.jsonValue({ maxDepth: 3 }), async (text, value) => {
        const plainText = await send('text/plain; charset=utf-8', text);
        expect(plainText.json()).toEqual({ body: text === '' ? '<undefined>' : text });
        const hostile = `{"a":[${JSON.stringify(value)},{"__proto__":{"polluted":true}}]}`;
        expect((await send('application/json', hostile)).statusCode).toBe(400);
      }),
      { numRuns: 200 },
    );
  });
});
