import { LOOKUP, PARAMS } from './symbols.js';

/**
 * Route matching behind a two-method interface (`add`, `match`), so the implementation can be
 * swapped and one behaviour suite tests every rule.
 *
 * Rules (interface spec, "Route matching rules"):
 * - an exact static route wins over any dynamic one;
 * - among dynamic routes, the one registered first wins (`/a/:x/c` before `/a/b/:y` → `/a/b/c`
 *   goes to the first), whatever the shape of the others;
 * - `:name` matches one non-empty segment; there are no optional segments or wildcards.
 * Paths are compared case-sensitively; one trailing slash is ignored (`/users/` = `/users`).
 */
export interface Matcher<T> {
  add(method: string, path: string, value: T): void;
  match(method: string, path: string): MatchResult<T> | null;
}

/** A match: the stored value and the raw (still percent-encoded) param values by name. */
export interface MatchResult<T> {
  value: T;
  params: Record<string, string>;
}

/** A registered route at the end of its path in the trie. */
export interface Leaf<T> {
  /** Registration order; every static route has STATIC_ORDER, which beats any dynamic one. */
  order: number;
  value: T;
  names: string[];
}

interface Node<T> {
  /** Static children by segment text: where `add` puts them, and the lookup for wide nodes. */
  statics: Map<string, Node<T>> | null;
  /** The static segments sorted by length, `kids` beside them; filled by `seal`. */
  keys: string[];
  kids: Array<Node<T>>;
  /** `keys[byLength[n]]` up to `keys[byLength[n + 1]]` are the segments of length n (n < byLength.length - 1). */
  byLength: number[];
  /** Whether the static children are looked up in `statics` rather than compared in place. */
  hashed: boolean;
  param: Node<T> | null;
  leaf: Leaf<T> | null;
  /** Smallest order of any leaf below: lets the search skip subtrees that cannot win. */
  minOrder: number;
}

interface MethodTable<T> {
  root: Node<T>;
  /** Static routes whose path does not start with `/` (they match only that exact string). */
  odd: Map<string, Leaf<T>> | null;
}

/** A static route matches exactly one path, so it can share the order of every other static route. */
const STATIC_ORDER = -1;

/**
 * Up to this many segments of one length are compared in place; a node with a longer run looks
 * its segment up by hash. Comparing a few strings where they lie in the path costs less than
 * slicing the segment out and hashing it (no allocation), but not once there are many to try.
 */
const MAX_COMPARED = 8;
/** Segments longer than this are always looked up by hash. */
const MAX_COMPARED_LENGTH = 64;

const EMPTY_PARAMS: Record<string, string> = Object.freeze(Object.create(null) as Record<string, string>);

/** Strips one trailing slash (not from the root path). */
export function normalizePath(path: string): string {
  return path.length > 1 && path.charCodeAt(path.length - 1) === 47 /* / */ ? path.slice(0, -1) : path;
}

function newNode<T>(): Node<T> {
  return { statics: null, keys: [], kids: [], byLength: [], hashed: false, param: null, leaf: null, minOrder: Infinity };
}

/** Lays out a node's static children for lookup without slicing, then its subtree's. */
function seal<T>(node: Node<T>): void {
  if (node.statics !== null) {
    const statics = node.statics;
    const keys = [...statics.keys()].sort((a, b) => a.length - b.length);
    node.keys = keys;
    node.kids = keys.map((key) => statics.get(key)!);
    const longest = keys[keys.length - 1]!.length;
    const byLength: number[] = [];
    let run = 0;
    for (let n = 0, i = 0; n <= longest + 1 && longest <= MAX_COMPARED_LENGTH; n++) {
      const from = i;
      byLength.push(i);
      while (i < keys.length && keys[i]!.length === n) i++;
      run = Math.max(run, i - from);
    }
    node.byLength = byLength;
    node.hashed = run > MAX_COMPARED || longest > MAX_COMPARED_LENGTH;
    for (const kid of node.kids) seal(kid);
  }
  if (node.param !== null) seal(node.param);
}

/**
 * Static routes and dynamic routes share one segment trie per method. The search is depth-first,
 * static child before param, keeps the leaf with the lowest order and skips every subtree whose
 * smallest order cannot beat it; a static leaf, reached only by the exact path, beats them all.
 */
export class TrieMatcher<T> implements Matcher<T> {
  private readonly tables = new Map<string, MethodTable<T>>();
  private order = 0;
  private sealed = true;
  // Scratch space for one synchronous match; never escapes a call. `found` holds the winning
  // leaf's param bounds (start, end pairs), `bounds` those of the branch being searched.
  private bounds: number[] = [];
  private found: number[] = [];
  private bestLeaf: Leaf<T> | null = null;

  add(method: string, path: string, value: T): void {
    const order = this.order++;
    let table = this.tables.get(method);
    if (table === undefined) {
      table = { root: newNode(), odd: null };
      this.tables.set(method, table);
    }
    const normalized = normalizePath(path);
    const dynamic = normalized.indexOf('/:') !== -1;
    if (!dynamic && normalized.charCodeAt(0) !== 47 /* / */) {
      table.odd ??= new Map();
      // First registration of an exact path wins, like the first dynamic route does.
      if (!table.odd.has(normalized)) table.odd.set(normalized, { order: STATIC_ORDER, value, names: [] });
      return;
    }
    const leafOrder = dynamic ? order : STATIC_ORDER;
    const segments = normalized.split('/').slice(1);
    const names: string[] = [];
    let node = table.root;
    for (const segment of segments) {
      if (segment.charCodeAt(0) === 58 /* : */) {
        const name = segment.slice(1);
        if (name === '') throw new Error(`Route "${path}" has a ":" segment without a name`);
        if (names.includes(name)) throw new Error(`Route "${path}" repeats the param name "${name}"`);
        names.push(name);
      }
    }
    node.minOrder = Math.min(node.minOrder, leafOrder);
    for (const segment of segments) {
      if (segment.charCodeAt(0) === 58 /* : */) {
        node.param ??= newNode();
        node = node.param;
      } else {
        node.statics ??= new Map();
        let child = node.statics.get(segment);
        if (child === undefined) {
          child = newNode();
          node.statics.set(segment, child);
        }
        node = child;
      }
      node.minOrder = Math.min(node.minOrder, leafOrder);
    }
    if (node.leaf === null) node.leaf = { order: leafOrder, value, names };
    while (this.bounds.length < 2 * names.length) {
      this.bounds.push(0);
      this.found.push(0);
    }
    this.sealed = false;
  }

  match(method: string, path: string): MatchResult<T> | null {
    const leaf = this[LOOKUP](method, path);
    if (leaf === null) return null;
    return { value: leaf.value, params: leaf.names.length === 0 ? EMPTY_PARAMS : this[PARAMS](leaf, path) };
  }

  /**
   * @internal The winning route's leaf, or null; its param bounds stay in scratch space until the
   * next lookup, for `PARAMS`. Lets the router build its own result without a `MatchResult` between.
   */
  [LOOKUP](method: string, rawPath: string): Leaf<T> | null {
    const table = this.tables.get(method);
    if (table === undefined) return null;
    if (!this.sealed) this.seal();
    const path = normalizePath(rawPath);
    if (path.charCodeAt(0) !== 47 /* / */) return table.odd === null ? null : (table.odd.get(path) ?? null);
    this.search(table.root, path, 1, 0);
    const leaf = this.bestLeaf;
    this.bestLeaf = null;
    return leaf;
  }

  /**
   * @internal A fresh params object for the leaf the last `LOOKUP` returned, for the same path
   * (the bounds were found on it without its trailing slash, so they hold for it as given).
   */
  [PARAMS](leaf: Leaf<T>, path: string): Record<string, string> {
    const params: Record<string, string> = {};
    const names = leaf.names;
    const found = this.found;
    for (let i = 0; i < names.length; i++) params[names[i]!] = path.slice(found[2 * i], found[2 * i + 1]);
    return params;
  }

  private seal(): void {
    for (const table of this.tables.values()) seal(table.root);
    this.sealed = true;
  }

  /** Searches below `node` for the segment that starts at `start`; `depth` param bounds are set. */
  private search(node: Node<T>, path: string, start: number, depth: number): void {
    const best = this.bestLeaf;
    if (best !== null && node.minOrder >= best.order) return;
    if (start > path.length) {
      const leaf = node.leaf;
      if (leaf !== null && (best === null || leaf.order < best.order)) {
        this.bestLeaf = leaf;
        const bounds = this.bounds;
        const found = this.found;
        for (let i = 0; i < depth; i++) found[i] = bounds[i]!;
      }
      return;
    }
    let end = path.indexOf('/', start);
    if (end === -1) end = path.length;
    if (node.keys.length !== 0) {
      const child = node.hashed ? node.statics!.get(path.slice(start, end)) : staticChild(node, path, start, end);
      if (child !== undefined) this.search(child, path, end + 1, depth);
    }
    if (node.param !== null && end > start) {
      this.bounds[depth] = start;
      this.bounds[depth + 1] = end;
      this.search(node.param, path, end + 1, depth + 2);
    }
  }
}

/** The static child named by `path` from `start` to `end`, found by comparing in place. */
function staticChild<T>(node: Node<T>, path: string, start: number, end: number): Node<T> | undefined {
  const length = end - start;
  const byLength = node.byLength;
  if (length + 1 >= byLength.length) return undefined;
  const keys = node.keys;
  for (let i = byLength[length]!, last = byLength[length + 1]!; i < last; i++) {
    const key = keys[i]!;
    let j = 0;
    while (j < length && key.charCodeAt(j) === path.charCodeAt(start + j)) j++;
    if (j === length) return node.kids[i];
  }
  return undefined;
}
