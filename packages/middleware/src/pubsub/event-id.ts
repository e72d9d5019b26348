/**
 * Event ids are Redis stream ids, `<milliseconds>-<sequence>`, on both pub/subs: they increase per
 * topic, say when the event was published, and compare without a table, so a subscriber that
 * resumes gets every kept event after its id even when the id itself has left the window.
 */

/** An id split into its two numbers; undefined when the text is not an event id. */
export type ParsedId = readonly [ms: number, seq: number];

const ID = /^(\d{1,15})-(\d{1,15})$/;

/** Parses `<ms>-<seq>`; anything else (a client's made-up `Last-Event-ID`) is undefined. */
export function parseEventId(id: string | undefined): ParsedId | undefined {
  if (id === undefined) return undefined;
  const match = ID.exec(id);
  return match === null ? undefined : [Number(match[1]), Number(match[2])];
}

/** Whether `a` comes after `b`. */
export function isAfter(a: ParsedId, b: ParsedId): boolean {
  return a[0] > b[0] || (a[0] === b[0] && a[1] > b[1]);
}

/** Makes increasing ids from the clock; a clock that goes back keeps the last millisecond and counts on. */
export class EventIdClock {
  #ms = 0;
  #seq = 0;

  next(now: number): string {
    if (now > this.#ms) {
      this.#ms = now;
      this.#seq = 0;
    } else {
      this.#seq++;
    }
    return `${this.#ms}-${this.#seq}`;
  }
}
