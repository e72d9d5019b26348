import { nearestName } from './nearest-name.js';

/** Who checks an options object and how its message reads (`checkOptions`). */
export interface CheckOptionsConfig {
  /** Who checks: the message's opening, before a colon (`createApp`, `myPlugin`). */
  readonly owner: string;
  /** Where the object sits in the options (`observability.tracing`): a key is named `<path>.<key>`. @default '' (the top level) */
  readonly path?: string;
  /** What a key is called in the message: `unknown <kind> "<key>"`. @default 'option' */
  readonly kind?: string;
  /**
   * The sentence that lists the accepted names, given them joined with `, `; its first letter is
   * capitalised after a "did you mean".
   * @default `the accepted options are: <names>`, or `the accepted keys of <path> are: <names>` under a path
   */
  readonly listing?: (names: string) => string;
  /** A message for a key other frameworks use, by key, said instead of a suggestion and the list. */
  readonly hints?: Readonly<Record<string, string>>;
  /** The error thrown. @default TypeError */
  readonly error?: new (message: string) => Error;
}

/**
 * Throws for the first key of `value` that is not among `accepted`: a misspelt `port` or
 * `enabled` would otherwise be ignored without a word. The message names the key (with its
 * path), the accepted name it most likely meant (`nearestName`) and the accepted names, or the
 * hint given for that key:
 * `createApp: unknown option "health.readyPth"; did you mean "readyPath"? The accepted keys of health are: livePath, readyPath, ...`.
 * @example
 * checkOptions(config, ['port', 'host'], { owner: 'myPlugin' });
 */
export function checkOptions(value: object, accepted: Iterable<string>, config: CheckOptionsConfig): void {
  const names = [...accepted];
  for (const key of Object.keys(value)) {
    if (names.includes(key)) continue;
    const { owner, path = '', kind = 'option', hints, error: ErrorType = TypeError } = config;
    const start = `${owner}: unknown ${kind} "${path === '' ? key : `${path}.${key}`}"`;
    const hint = hints !== undefined && Object.hasOwn(hints, key) ? hints[key] : undefined;
    if (hint !== undefined) throw new ErrorType(`${start}: ${hint}`);
    const listing = config.listing ?? ((list: string) => `the accepted ${path === '' ? 'options' : `keys of ${path}`} are: ${list}`);
    const list = listing(names.join(', '));
    const near = nearestName(key, names);
    throw new ErrorType(`${start}; ${near === undefined ? list : `did you mean "${near}"? ${list.charAt(0).toUpperCase()}${list.slice(1)}`}`);
  }
}
