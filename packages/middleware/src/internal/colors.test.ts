import { useColors } from './colors.js';

const tty = { write: () => true, isTTY: true };
const pipe = { write: () => true, isTTY: false };
const fn = (): void => undefined;

describe('useColors()', () => {
  it('colours a TTY when no colour variable is set, and nothing else', () => {
    expect(useColors(tty, {})).toBe(true);
    expect(useColors(pipe, {})).toBe(false);
    expect(useColors(fn, {})).toBe(false);
    expect(useColors({ write: () => true }, {})).toBe(false);
  });

  it('turns colours off when NO_COLOR is set to any value, even empty', () => {
    expect(useColors(tty, { NO_COLOR: '1' })).toBe(false);
    expect(useColors(tty, { NO_COLOR: '' })).toBe(false);
    expect(useColors(tty, { NO_COLOR: '0' })).toBe(false);
  });

  it('turns colours off when NODE_DISABLE_COLORS is set, and for TERM=dumb', () => {
    expect(useColors(tty, { NODE_DISABLE_COLORS: '1' })).toBe(false);
    expect(useColors(tty, { NODE_DISABLE_COLORS: '' })).toBe(false);
    expect(useColors(tty, { TERM: 'dumb' })).toBe(false);
  });

  it('turns colours on with FORCE_COLOR empty, true, 1, 2 or 3, even without a TTY', () => {
    for (const value of ['', 'true', '1', '2', '3']) {
      expect(useColors(pipe, { FORCE_COLOR: value })).toBe(true);
      expect(useColors(fn, { FORCE_COLOR: value })).toBe(true);
      expect(useColors(tty, { FORCE_COLOR: value })).toBe(true);
    }
  });

  it('turns colours off with FORCE_COLOR=0 or any other value, even on a TTY', () => {
    for (const value of ['0', 'false', 'no', '4']) expect(useColors(tty, { FORCE_COLOR: value })).toBe(false);
  });

  it('lets FORCE_COLOR win over NO_COLOR and NODE_DISABLE_COLORS, as node does', () => {
    expect(useColors(pipe, { FORCE_COLOR: '1', NO_COLOR: '1' })).toBe(true);
    expect(useColors(pipe, { FORCE_COLOR: '1', NODE_DISABLE_COLORS: '1' })).toBe(true);
    expect(useColors(tty, { FORCE_COLOR: '0', NO_COLOR: '' })).toBe(false);
  });

  it("asks a real TTY stream's own hasColors() (node's detection, TERM and all) when no variable decides", () => {
    const seen: unknown[] = [];
    const terminal = { write: () => true, isTTY: true, hasColors: (env?: object) => (seen.push(env), false) };
    const env = { TERM: 'vt100' };
    expect(useColors(terminal, env)).toBe(false);
    expect(seen).toEqual([env]);
    expect(useColors({ ...terminal, hasColors: () => true }, env)).toBe(true);
    // The variables are decided here first, the same way node decides them.
    expect(useColors(terminal, { FORCE_COLOR: '1' })).toBe(true);
    expect(useColors({ ...terminal, hasColors: () => true }, { NO_COLOR: '1' })).toBe(false);
  });
});
