import { HTTPError } from '@fw/app';
import { AUTH_REQUIRED_MESSAGE, INSUFFICIENT_ROLE_MESSAGE, rolesOf } from '@fw/app/middleware';

/**
 * The rules every protocol applies to orders, in one place: REST handlers, GraphQL resolvers and
 * gRPC methods all reach them through `Store`, so the three cannot drift apart.
 */

/** Bounds of one order: lines per order, copies per line. */
export const ORDER_LIMITS = { maxLines: 20, maxQuantity: 100 } as const;

/** The role a caller needs to place orders and to list their own. */
export const CUSTOMER_ROLE = 'customer';

/** One requested line, as each protocol decodes it. */
export interface RequestedLine {
  bookId: string;
  quantity: number;
}

/**
 * The id of a caller allowed to order. No user → 401; a user without the customer role → 403 —
 * with the messages and challenges `authenticate`/`requireRole` use, so REST's middleware and this
 * check answer alike.
 */
export function requireCustomer(user: unknown): string {
  const sub = user !== null && typeof user === 'object' ? (user as { sub?: unknown }).sub : undefined;
  if (typeof sub !== 'string' || sub === '') {
    throw new HTTPError(401, AUTH_REQUIRED_MESSAGE, undefined, { headers: { 'WWW-Authenticate': 'Bearer' } });
  }
  if (!rolesOf(user).includes(CUSTOMER_ROLE)) {
    throw new HTTPError(403, INSUFFICIENT_ROLE_MESSAGE, undefined, { headers: { 'WWW-Authenticate': 'Bearer error="insufficient_scope"' } });
  }
  return sub;
}

/**
 * Checks the bounds of an order (400 naming the first problem) and sums the quantities per book,
 * in first-seen order: two lines for one book must be checked against its stock together.
 */
export function quantitiesPerBook(lines: readonly RequestedLine[]): Map<string, number> {
  // Kept typed: Array.isArray narrows a readonly array to any[].
  const given: readonly RequestedLine[] = lines;
  if (!Array.isArray(lines) || lines.length === 0) throw new HTTPError(400, 'An order needs at least one line', { field: 'lines', min: 1 });
  if (lines.length > ORDER_LIMITS.maxLines) {
    throw new HTTPError(400, `An order has at most ${ORDER_LIMITS.maxLines} lines`, { field: 'lines', max: ORDER_LIMITS.maxLines, got: lines.length });
  }
  const wanted = new Map<string, number>();
  given.forEach((line, i) => {
    if (typeof line.bookId !== 'string' || line.bookId === '') throw new HTTPError(400, `Line ${i + 1}: the book id is missing`, { field: `lines[${i}].bookId` });
    const { quantity } = line;
    if (typeof quantity !== 'number' || !Number.isInteger(quantity) || quantity < 1 || quantity > ORDER_LIMITS.maxQuantity) {
      throw new HTTPError(400, `Line ${i + 1}: the quantity must be a whole number from 1 to ${ORDER_LIMITS.maxQuantity}`, {
        field: `lines[${i}].quantity`,
        min: 1,
        max: ORDER_LIMITS.maxQuantity,
      });
    }
    wanted.set(line.bookId, (wanted.get(line.bookId) ?? 0) + quantity);
  });
  return wanted;
}
