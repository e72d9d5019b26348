// Small statistics and table helpers shared by the benchmarks.

export function median(values) {
  if (values.length === 0) return NaN;
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

export function min(values) {
  return values.length === 0 ? NaN : Math.min(...values);
}

export function max(values) {
  return values.length === 0 ? NaN : Math.max(...values);
}

/** `12,345` style integer. */
export function int(n) {
  return Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '–';
}

/** Fixed decimals, or an en dash for NaN. */
export function fixed(n, digits = 2) {
  return Number.isFinite(n) ? n.toFixed(digits) : '–';
}

/** A GitHub-flavoured markdown table; `align` is a string of l/r per column. */
export function markdownTable(header, rows, align = '') {
  const sep = header.map((_, i) => (align[i] === 'r' ? '---:' : '---'));
  return [header, sep, ...rows].map((r) => `| ${r.join(' | ')} |`).join('\n');
}

/** Rotates `list` by `k` places, so each round starts with a different entry. */
export function rotate(list, k) {
  if (list.length === 0) return list;
  const n = ((k % list.length) + list.length) % list.length;
  return [...list.slice(n), ...list.slice(0, n)];
}
