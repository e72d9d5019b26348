import { escapeControl } from './escape.js';

describe('escapeControl()', () => {
  it('writes C0 controls, DEL, C1 controls and the Unicode line separators as visible escapes', () => {
    expect(escapeControl('a\nb\rc\td')).toBe('a\\nb\\rc\\td');
    expect(escapeControl('\u001b[31mred\u0000\u0007\u007f\u0085\u009b')).toBe('\\x1b[31mred\\x00\\x07\\x7f\\x85\\x9b');
    expect(escapeControl('x\u2028y\u2029z')).toBe('x\\u2028y\\u2029z');
  });

  it('leaves printable text, non-ASCII letters and emoji alone', () => {
    const text = 'GET /caf\u00e9/\u65e5\u672c \u{1f600} ~!@#$%^&*()';
    expect(escapeControl(text)).toBe(text);
  });
});
