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

/**
 * The frame lines of a V8 stack, and where they start, when the stack is what V8 wrote for the
 * error as it is now: its `name` (node adds ` [code]`), `: message` (which may hold line breaks
 * and lines that look like frames), then only frame lines. Undefined for any other stack: then no
 * line of it can be told from text a request put there.
 * @example
 * const frames = stackFrames(err.stack, err.name, err.message);
 */
export function stackFrames(stack: string, name: string, message: string): { start: number; lines: string[] } | undefined {
  let end: number;
  if (message === '') {
    end = stack.indexOf('\n');
    if (end === -1) end = stack.length;
    if (!stack.startsWith(name) || !/^( \[[^\]]*\])?(: ?)?$/.test(stack.slice(name.length, end))) return undefined;
  } else {
    const at = stack.indexOf(`: ${message}`);
    if (at === -1 || !stack.startsWith(name) || stack.slice(0, at).includes('\n')) return undefined;
    end = at + 2 + message.length;
  }
  if (end === stack.length) return { start: end, lines: [] };
  if (stack.charCodeAt(end) !== 10 /* \n */) return undefined;
  const lines = stack.slice(end + 1).split('\n');
  return lines.every((line) => FRAME.test(line)) ? { start: end, lines } : undefined;
}

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
    const frames = stackFrames(stack, name, message);
    // A stack that is not the error's own header followed by frames (its message changed or was
    // cut after the stack was written, or it was replaced) may hold anything: one escaped line.
    text = frames === undefined ? escapeLogText(stack) : escapeLogText(stack.slice(0, frames.start)) + frames.lines.map((line) => `\n${escapeLogText(line)}`).join('');
  }
  if (depth < MAX_CAUSES && Object.prototype.hasOwnProperty.call(err, 'cause')) {
    text += `\n  [cause] ${describe(err.cause, depth + 1)}`;
  }
  return text;
}
