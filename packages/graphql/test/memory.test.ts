import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

// What the document cache and the compiled operations retain is bounded by what they count: a
// child process (with --expose-gc, on the built package) fills an endpoint with its default limits
// and cache bounds with the worst documents those limits let through, and measures the heap left.
// The README states the bound.

const BOUND_MB = 80;

function retainedMB(kind: 'compiled' | 'dense', documents: number): number {
  const out = execFileSync(process.execPath, ['--expose-gc', join(__dirname, 'fixtures', 'memory-child.mjs'), kind, String(documents)], {
    cwd: __dirname,
    encoding: 'utf8',
    timeout: 120_000,
  });
  return (JSON.parse(out.trim().split('\n').at(-1)!) as { retainedMB: number }).retainedMB;
}

describe('memory held by the document cache', () => {
  it(`stays under ${BOUND_MB} MB with the worst compiled documents (8 operations of 240 selections), however many arrive`, () => {
    const some = retainedMB('compiled', 40);
    const many = retainedMB('compiled', 80);
    expect(some).toBeLessThan(BOUND_MB);
    expect(many).toBeLessThan(BOUND_MB);
    // Full already at 40 documents: twice as many retain no more.
    expect(many).toBeLessThan(some * 1.25);
  }, 120_000);

  it(`stays under ${BOUND_MB} MB with the densest documents the limits let through`, () => {
    expect(retainedMB('dense', 120)).toBeLessThan(BOUND_MB);
  }, 120_000);
});
