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

interface Leaf<T> {
  order: number;
  value: T;
  names: string[];
}

interface Node<T> {
  statics: Map<string, Node<T>> | null;
  param: Node<T> | null;
  leaf: Leaf<T> | null;
  /** Smallest registration order of any leaf below: lets the search skip subtrees that cannot win. */
  minOrder: number;
}

interface MethodTable<T> {
  statics: Map<string, T>;
  root: Node<T>;
  dynamicCount: number;
}

const EMPTY_PARAMS: Record<string, string> = Object.freeze(Object.create(null) as Record<string, string>);

/** Strips one trailing slash (not from the root path). */
export function normalizePath(path: string): string {
  return path.length > 1 && path.charCodeAt(path.length - 1) === 47 /* / */ ? path.slice(0, -1) : path;
}

function newNode<T>(): Node<T> {
  return { statics: null, param: null, leaf: null, minOrder: Infinity };
}

/**
 * Static routes in a hash map per method; dynamic routes in a segment trie searched depth-first
 * for the lowest registration order, pruned by each subtree's smallest order.
 */
export class TrieMatcher<T> implements Matcher<T> {
  private readonly tables = new Map<string, MethodTable<T>>();
  private order = 0;
  // Scratch space for param positions during one synchronous match; never escapes a call.
  private stack: number[] = [];
  private best: number[] = [];
  private bestLeaf: Leaf<T> | null = null;

  add(method: string, path: string, value: T): void {
    const order = this.order++;
    let table = this.tables.get(method);
    if (table === undefined) {
      table = { statics: new Map(), root: newNode(), dynamicCount: 0 };
      this.tables.set(method, table);
    }
    const normalized = normalizePath(path);
    if (normalized.indexOf('/:') === -1) {
      // First registration of an exact path wins, like the first dynamic route does.
      if (!table.statics.has(normalized)) table.statics.set(normalized, value);
      return;
    }
    const segments = normalized.split('/').slice(1);
    const names: string[] = [];
    let node = table.root;
    node.minOrder = Math.min(node.minOrder, order);
    for (const segment of segments) {
      if (segment.charCodeAt(0) === 58 /* : */) {
        const name = segment.slice(1);
        if (name === '') throw new Error(`Route "${path}" has a ":" segment without a name`);
        if (names.includes(name)) throw new Error(`Route "${path}" repeats the param name "${name}"`);
        names.push(name);
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
      node.minOrder = Math.min(node.minOrder, order);
    }
    if (node.leaf === null) node.leaf = { order, value, names };
    table.dynamicCount++;
  }

  match(method: string, rawPath: string): MatchResult<T> | null {
    const table = this.tables.get(method);
    if (table === undefined) return null;
    const path = normalizePath(rawPath);
    const found = table.statics.get(path);
    if (found !== undefined) return { value: found, params: EMPTY_PARAMS };
    if (table.dynamicCount === 0 || path.charCodeAt(0) !== 47) return null;

    this.bestLeaf = null;
    this.stack.length = 0;
    this.search(table.root, path, 1);
    const leaf = this.bestLeaf as Leaf<T> | null;
    if (leaf === null) return null;
    this.bestLeaf = null;
    const params: Record<string, string> = {};
    const names = leaf.names;
    const best = this.best;
    for (let i = 0; i < names.length; i++) params[names[i]!] = path.slice(best[2 * i], best[2 * i + 1]);
    return { value: leaf.value, params };
  }

  private search(node: Node<T>, path: string, start: number): void {
    if (this.bestLeaf !== null && node.minOrder >= this.bestLeaf.order) return;
    if (start > path.length) {
      const leaf = node.leaf;
      if (leaf !== null && (this.bestLeaf === null || leaf.order < this.bestLeaf.order)) {
        this.bestLeaf = leaf;
        // Copy into the reused array: no allocation per match.
        const stack = this.stack;
        const best = this.best;
        best.length = stack.length;
        for (let i = 0; i < stack.length; i++) best[i] = stack[i]!;
      }
      return;
    }
    let end = path.indexOf('/', start);
    if (end === -1) end = path.length;
    if (node.statics !== null) {
      const child = node.statics.get(path.slice(start, end));
      if (child !== undefined) this.search(child, path, end + 1);
    }
    if (node.param !== null && end > start) {
      const depth = this.stack.length;
      this.stack.push(start, end);
      this.search(node.param, path, end + 1);
      this.stack.length = depth;
    }
  }
}
