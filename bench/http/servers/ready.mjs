// What every benchmark server does once listening: tell the harness its port and the scenarios it
// serves, and exit when the harness goes away (stdin closes) or sends SIGTERM.
export function announce(port, scenarios) {
  process.stdout.write(`${JSON.stringify({ ready: true, port, scenarios })}\n`);
  const quit = () => process.exit(0);
  process.stdin.on('end', quit);
  process.stdin.on('error', quit);
  process.stdin.resume();
  process.on('SIGTERM', quit);
  process.on('SIGINT', quit);
}

/** The one payload every server answers the static scenarios with. */
export const HELLO = Object.freeze({ hello: 'world' });

/** A rate limit no benchmark run reaches (a 60 s window at ~20k req/s is ~1.2 M requests). */
export const NO_LIMIT = 1_000_000_000;

/** The compression suite's answer: about 10 KB of JSON, a list page of an API. */
export const CATALOG = Object.freeze({
  items: Array.from({ length: 97 }, (_, i) => ({ id: `item-${i}`, name: `Catalog item number ${i}`, price: Math.round(i * 731) / 100, inStock: i % 3 !== 0, tags: ['tools', `batch-${i % 7}`] })),
});
