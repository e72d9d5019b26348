/** A media type as RFC 9110 §8.3.1 writes it: `type/subtype`, then `; name=value` parameters. */
export interface MediaType {
  /** The top-level type, lower case (`application`; `*` in a media range). */
  readonly type: string;
  /** The subtype, lower case (`json`; `*` in a media range). */
  readonly subtype: string;
  /** `type/subtype`, lower case. */
  readonly essence: string;
  /** The parameters: names lower case, values as sent (a quoted string unquoted). */
  readonly parameters: ReadonlyMap<string, string>;
}

/** The kinds of request body an endpoint can admit: JSON, an HTML form (URL-encoded), or a form with files (`multipart/form-data`). */
export type BodyType = 'json' | 'form' | 'multipart';

/** `token` characters (RFC 9110 §5.6.2), by char code. */
const TCHAR = new Uint8Array(128);
for (const c of "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") TCHAR[c.charCodeAt(0)] = 1;

const SEMICOLON = 0x3b;
const SLASH = 0x2f;
const EQUALS = 0x3d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;

/** Where the token starting at `at` ends (`at` itself when there is none). */
function tokenEnd(text: string, at: number, end: number): number {
  let i = at;
  while (i < end) {
    const c = text.charCodeAt(i);
    if (c >= 128 || TCHAR[c] !== 1) break;
    i++;
  }
  return i;
}

/** Skips optional whitespace (spaces and tabs). */
function skipSpace(text: string, at: number, end: number): number {
  let i = at;
  while (i < end) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x09) break;
    i++;
  }
  return i;
}

/** A media type with its parameters in order (a media range's `q` and what follows it among them). */
interface Parsed {
  readonly type: string;
  readonly subtype: string;
  readonly parameters: Array<[name: string, value: string]>;
}

/**
 * Parses `text.slice(at, end)` as one media type: the type and subtype are tokens around a `/`;
 * each parameter is a token, `=`, and a token or a quoted string. Whitespace is allowed only
 * around the whole and around each `;`. Anything else is malformed: undefined.
 */
function parse(text: string, at: number, end: number): Parsed | undefined {
  let i = skipSpace(text, at, end);
  const typeEnd = tokenEnd(text, i, end);
  if (typeEnd === i || text.charCodeAt(typeEnd) !== SLASH) return undefined;
  const type = text.slice(i, typeEnd).toLowerCase();
  i = typeEnd + 1;
  const subtypeEnd = tokenEnd(text, i, end);
  if (subtypeEnd === i) return undefined;
  const subtype = text.slice(i, subtypeEnd).toLowerCase();
  i = subtypeEnd;
  const parameters: Array<[string, string]> = [];
  for (;;) {
    i = skipSpace(text, i, end);
    if (i === end) break;
    if (text.charCodeAt(i) !== SEMICOLON) return undefined;
    i = skipSpace(text, i + 1, end);
    // An empty parameter (`text/plain;` or `;;`) is allowed.
    if (i === end || text.charCodeAt(i) === SEMICOLON) continue;
    const nameEnd = tokenEnd(text, i, end);
    if (nameEnd === i || text.charCodeAt(nameEnd) !== EQUALS) return undefined;
    const name = text.slice(i, nameEnd).toLowerCase();
    i = nameEnd + 1;
    let value: string;
    if (text.charCodeAt(i) === QUOTE) {
      value = '';
      i++;
      for (;;) {
        if (i >= end) return undefined;
        const c = text.charCodeAt(i);
        if (c === QUOTE) break;
        if (c === BACKSLASH) i++;
        if (i >= end) return undefined;
        value += text[i];
        i++;
      }
      i++;
    } else {
      const valueEnd = tokenEnd(text, i, end);
      if (valueEnd === i) return undefined;
      value = text.slice(i, valueEnd);
      i = valueEnd;
    }
    parameters.push([name, value]);
  }
  return { type, subtype, parameters };
}

/**
 * Parses a `Content-Type` value (RFC 9110 §8.3.1): the type and subtype before the first `;`,
 * case-insensitive; the parameters after it. Undefined when the value is malformed (no `/`, a
 * parameter without `=`, an unterminated quoted string) or names a parameter twice.
 * @example
 * parseMediaType('Application/JSON; charset="utf-8"'); // { essence: 'application/json', parameters: Map { 'charset' => 'utf-8' }, ... }
 * parseMediaType('text/plain;application/json'); // undefined: "application/json" is no parameter
 */
export function parseMediaType(value: string): MediaType | undefined {
  const parsed = parse(value, 0, value.length);
  if (parsed === undefined) return undefined;
  const parameters = new Map<string, string>();
  for (const [name, paramValue] of parsed.parameters) {
    if (parameters.has(name)) return undefined;
    parameters.set(name, paramValue);
  }
  return { type: parsed.type, subtype: parsed.subtype, essence: `${parsed.type}/${parsed.subtype}`, parameters };
}

/**
 * The one admission rule for request bodies, on every transport: which of `accepts` a request's
 * `Content-Type` is, or undefined when it is none of them (answer 415 before anything runs).
 * `json` is `application/json` or an `application/*+json` type, `form` is
 * `application/x-www-form-urlencoded`, `multipart` is `multipart/form-data`; a `charset`, when given, must be UTF-8 (the only one a body
 * is read in). Only the media type counts, parsed as RFC 9110 writes it: `text/plain;application/json`
 * is text, which a page on another site may send without a CORS preflight. No Content-Type, or a
 * malformed one, is admitted as nothing.
 * @example
 * admittedBodyType('application/json; charset=utf-8', ['json']); // 'json'
 * admittedBodyType('text/plain; charset=application/json', ['json']); // undefined: 415
 */
export function admittedBodyType(contentType: string | undefined, accepts: readonly BodyType[]): BodyType | undefined {
  // The common case, without parsing.
  if (contentType === 'application/json') return accepts.includes('json') ? 'json' : undefined;
  if (contentType === undefined) return undefined;
  const type = parseMediaType(contentType);
  if (type === undefined) return undefined;
  const charset = type.parameters.get('charset');
  if (charset !== undefined && charset.toLowerCase() !== 'utf-8') return undefined;
  const kind = bodyTypeOf(type);
  return kind !== undefined && accepts.includes(kind) ? kind : undefined;
}

function bodyTypeOf(type: MediaType): BodyType | undefined {
  if (type.essence === 'multipart/form-data') return 'multipart';
  if (type.type !== 'application') return undefined;
  if (type.subtype === 'json' || (type.subtype.endsWith('+json') && type.subtype.length > 5)) return 'json';
  if (type.subtype === 'x-www-form-urlencoded') return 'form';
  return undefined;
}

/** One media range of an `Accept` header: the type, its parameters (before `q`), its weight and place. */
interface MediaRange {
  readonly type: string;
  readonly subtype: string;
  readonly parameters: ReadonlyArray<readonly [string, string]>;
  readonly q: number;
  /** How specific it is: `*\/*` < `type/*` < `type/subtype` < the same with more parameters. */
  readonly specificity: number;
  readonly index: number;
}

/** A weight (RFC 9110 §12.4.2): 0 to 1, at most three decimals. */
const QVALUE = /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/;

/** The media ranges of an `Accept` value; a malformed element is left out, as if not listed. */
function parseAccept(accept: string): MediaRange[] {
  const ranges: MediaRange[] = [];
  const length = accept.length;
  let start = 0;
  while (start <= length) {
    // The element ends at the next comma outside a quoted string.
    let end = start;
    let quoted = false;
    while (end < length) {
      const c = accept.charCodeAt(end);
      if (quoted && c === BACKSLASH) end++;
      else if (c === QUOTE) quoted = !quoted;
      else if (!quoted && c === COMMA) break;
      end++;
    }
    const range = end > length ? undefined : mediaRange(accept, start, Math.min(end, length), ranges.length);
    if (range !== undefined) ranges.push(range);
    start = end + 1;
  }
  return ranges;
}

function mediaRange(accept: string, start: number, end: number, index: number): MediaRange | undefined {
  if (skipSpace(accept, start, end) === end) return undefined;
  const parsed = parse(accept, start, end);
  if (parsed === undefined) return undefined;
  const { type, subtype } = parsed;
  if (type === '*' && subtype !== '*') return undefined;
  let q = 1;
  const parameters: Array<readonly [string, string]> = [];
  for (const [name, value] of parsed.parameters) {
    // `q` is the weight; what follows it is no parameter of the range.
    if (name === 'q') {
      if (!QVALUE.test(value)) return undefined;
      q = Number(value);
      break;
    }
    parameters.push([name, value.toLowerCase()]);
  }
  const level = type === '*' ? 0 : subtype === '*' ? 1 : 2;
  return { type, subtype, parameters, q, specificity: level * 1000 + parameters.length, index };
}

function matches(range: MediaRange, offer: MediaType): boolean {
  if (range.type !== '*' && range.type !== offer.type) return false;
  if (range.subtype !== '*' && range.subtype !== offer.subtype) return false;
  for (const [name, value] of range.parameters) if (offer.parameters.get(name)?.toLowerCase() !== value) return false;
  return true;
}

/** The offers of each list, parsed once (the lists are constants of their callers). */
const parsedOffers = new WeakMap<readonly string[], readonly MediaType[]>();

function offersOf(offered: readonly string[]): readonly MediaType[] {
  let parsed = parsedOffers.get(offered);
  if (parsed === undefined) {
    parsed = offered.map((offer) => {
      const type = parseMediaType(offer);
      if (type === undefined || type.type === '*' || type.subtype === '*') throw new TypeError(`negotiate: ${JSON.stringify(offer)} is not a media type to offer`);
      return type;
    });
    parsedOffers.set(offered, parsed);
  }
  return parsed;
}

/**
 * Content negotiation by `Accept` (RFC 9110 §12.5.1), the one rule for every transport: which of
 * `offered` (media types, with the parameters they are sent with, in the server's order of
 * preference) the client prefers, or undefined when none is acceptable (answer 406).
 *
 * Each offer takes the weight (`q`, default 1) of the most specific range that matches it
 * (`type/subtype;param=value` over `type/subtype` over `type/*` over `*\/*`; a range's parameters
 * must all be the offer's, values compared case-insensitively); `q=0` means not acceptable. The
 * highest weight wins; a tie goes to the offer matched by the more specific range, then to the
 * range listed first, then to the offer listed first. No `Accept` (or an empty one) accepts
 * anything: the first offer. Malformed elements are ignored.
 * @example
 * negotiate('application/json, text/event-stream;q=0', ['application/json', 'text/event-stream']); // 'application/json'
 * negotiate('text/*, application/json;q=0.5', ['application/json', 'text/event-stream']); // 'text/event-stream'
 */
export function negotiate(accept: string | undefined, offered: readonly string[]): string | undefined {
  const offers = offersOf(offered);
  if (offers.length === 0) return undefined;
  if (accept === undefined || skipSpace(accept, 0, accept.length) === accept.length) return offered[0];
  const ranges = parseAccept(accept);
  let best = -1;
  let bestQ = 0;
  let bestSpecificity = -1;
  let bestIndex = Infinity;
  for (let o = 0; o < offers.length; o++) {
    const offer = offers[o]!;
    let chosen: MediaRange | undefined;
    for (const range of ranges) {
      if (matches(range, offer) && (chosen === undefined || range.specificity > chosen.specificity)) chosen = range;
    }
    if (chosen === undefined || chosen.q === 0) continue;
    const better =
      chosen.q > bestQ ||
      (chosen.q === bestQ && (chosen.specificity > bestSpecificity || (chosen.specificity === bestSpecificity && chosen.index < bestIndex)));
    if (!better) continue;
    best = o;
    bestQ = chosen.q;
    bestSpecificity = chosen.specificity;
    bestIndex = chosen.index;
  }
  return best === -1 ? undefined : offered[best];
}
