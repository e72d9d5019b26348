import type { ServerResponse } from 'node:http';

/** The first value of a header that may repeat (gRPC metadata and node both allow arrays). */
export function firstValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** Adds `field` to the response's `Vary` header unless it is already listed (or `Vary: *`). */
export function appendVary(res: ServerResponse, field: string): void {
  const existing = res.getHeader('vary');
  if (existing === undefined) {
    res.setHeader('vary', field);
    return;
  }
  const current = Array.isArray(existing) ? existing.join(', ') : String(existing);
  const wanted = field.toLowerCase();
  for (const part of current.split(',')) {
    const name = part.trim().toLowerCase();
    if (name === '*' || name === wanted) return;
  }
  res.setHeader('vary', current === '' ? field : `${current}, ${field}`);
}
