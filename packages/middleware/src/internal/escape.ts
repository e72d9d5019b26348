// C0 controls (line breaks, tab, ESC …), DEL, C1 controls, and the Unicode line and paragraph separators.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t', '\u2028': '\\u2028', '\u2029': '\\u2029' };

function visible(char: string): string {
  return NAMED[char] ?? `\\x${char.charCodeAt(0).toString(16).padStart(2, '0')}`;
}

/**
 * `text` with every control character written as a visible escape (`\n`, `\x1b`), so text that
 * came from a request cannot start a forged log line or send terminal escape sequences.
 */
export function escapeControl(text: string): string {
  return text.replace(CONTROL, visible);
}
