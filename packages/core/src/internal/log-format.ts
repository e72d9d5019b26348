import { inspect } from 'node:util';

// C0 controls (newline, carriage return, tab and ESC included), DEL, C1 controls, and the two
// Unicode line separators some log viewers break lines at.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL_ALL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

const hex = (code: number, width: number): string => code.toString(16).padStart(width, '0');

function escapeChar(char: string): string {
  if (char === '\n') return '\\n';
  if (char === '\r') return '\\r';
  if (char === '\t') return '\\t';
  const code = char.charCodeAt(0);
  return code <= 0xff ? `\\x${hex(code, 2)}` : `\\u${hex(code, 4)}`;
}

/**
 * Makes text safe for one log line: control characters (C0 with `\n`, `\r`, `\t` and ESC, DEL, C1,
 * U+2028/U+2029) become visible escapes (`\n`, `\x1b`, `\u2028`). Other text is left as it is.
 */
export function escapeLogText(text: string): string {
  return CONTROL.test(text) ? text.replace(CONTROL_ALL, escapeChar) : text;
}

/** A stack frame line as V8 writes it. */
const FRAME = /^ +at /;

/** The deepest chain of `cause`s that is written out. */
const MAX_CAUSES = 3;

/**
 * Formats any value for a log, never throwing: an Error as its stack, with the `name: message`
 * part escaped and the frames one per line; anything else on one escaped line. `cause`s follow.
 */
export function formatLogValue(value: unknown): string {
  return describe(value, 0);
}

function describe(value: unknown, depth: number): string {
  try {
    if (typeof value === 'string') return escapeLogText(value);
    if (value instanceof Error) return describeError(value, depth);
    return escapeLogText(inspect(value, { depth: 4, breakLength: Infinity, compact: true }));
  } catch {
    // A Proxy whose traps throw, a getter or an inspect hook that throws.
    return '[a value that could not be formatted]';
  }
}

function describeError(err: Error, depth: number): string {
  const name = String(err.name);
  const message = String(err.message);
  const header = message === '' ? name : `${name}: ${message}`;
  const stack: unknown = err.stack;
  let text: string;
  if (typeof stack !== 'string') text = escapeLogText(header);
  else {
    // V8 starts the stack with `name: message`, which may hold anything: escape it whole, and
    // keep line breaks only between the frames that end the stack. Whatever else precedes them
    // (a message changed or cut after the stack was written still stands in it) is escaped with
    // the header, so no text from a request gets a line of its own.
    const start = stack.startsWith(header) ? header.length : 0;
    const lines = stack.slice(start).split('\n');
    let first = lines.length;
    while (first > 1 && FRAME.test(lines[first - 1]!)) first--;
    text = escapeLogText(stack.slice(0, start) + lines.slice(0, first).join('\n'));
    for (let i = first; i < lines.length; i++) text += `\n${escapeLogText(lines[i]!)}`;
  }
  if (depth < MAX_CAUSES && Object.prototype.hasOwnProperty.call(err, 'cause')) {
    text += `\n  [cause] ${describe(err.cause, depth + 1)}`;
  }
  return text;
}
