/** Reports a rejection nobody handled. */
type Reporter = (reason: unknown) => void;

/** The applications listening right now that asked to be told; the first one reports. */
const reporters = new Set<Reporter>();
let installed = false;

function onUnhandledRejection(reason: unknown): void {
  const first = reporters.values().next();
  if (first.done !== true) first.value(reason);
}

/**
 * Reports unhandled promise rejections through `report` instead of letting Node end the process
 * (its default since Node 15), but only when the process has no `unhandledRejection` listener of
 * its own: a program that chose a policy keeps it. Returns the function that stops reporting; the
 * process listener is removed when the last application stops.
 */
export function reportUnhandledRejections(report: Reporter): () => void {
  if (!installed) {
    if (process.listenerCount('unhandledRejection') !== 0) return () => undefined;
    process.on('unhandledRejection', onUnhandledRejection);
    installed = true;
  }
  reporters.add(report);
  return () => {
    reporters.delete(report);
    if (reporters.size === 0 && installed) {
      process.removeListener('unhandledRejection', onUnhandledRejection);
      installed = false;
    }
  };
}
