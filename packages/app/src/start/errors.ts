/** A failure of `fw start` reported as one line, without a stack. */
export class StartError extends Error {
  override readonly name = 'StartError';
}
