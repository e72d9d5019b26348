/**
 * The one already-resolved promise the kernel hands out for synchronous work. Shared, so that a
 * caller can tell "finished synchronously" (`p === RESOLVED`) and skip a `.then`.
 */
export const RESOLVED: Promise<void> = Promise.resolve();
