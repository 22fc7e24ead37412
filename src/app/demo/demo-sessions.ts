/**
 * The demo's session registry: at most {@link MAX_DEMO_SESSIONS} sessions; adding one more drops
 * the oldest (the one started first; a reset does not make a session younger). Every operation is O(1):
 * a Map keeps insertion order, so its first key is the oldest session.
 */

/** How many demo sessions live at once. */
export const MAX_DEMO_SESSIONS = 500;

export class DemoSessions<T> {
  private readonly sessions = new Map<string, T>();

  /** @param capacity the most sessions kept at once (at least 1) */
  constructor(readonly capacity: number = MAX_DEMO_SESSIONS) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`capacity must be a positive integer, got ${capacity}`);
  }

  /** Adds a session under a new id; returns the id of the session dropped to make room, if any. */
  add(id: string, session: T): string | undefined {
    if (this.sessions.has(id)) throw new Error(`session id ${id} is already in use`);
    let dropped: string | undefined;
    if (this.sessions.size >= this.capacity) {
      dropped = this.sessions.keys().next().value;
      if (dropped !== undefined) this.sessions.delete(dropped);
    }
    this.sessions.set(id, session);
    return dropped;
  }

  /** The session with this id, if it still exists. */
  get(id: string): T | undefined {
    return this.sessions.get(id);
  }

  /** Removes a session; false when there was none with this id. */
  delete(id: string): boolean {
    return this.sessions.delete(id);
  }

  /** Removes every session (the agent disconnected). */
  clear(): void {
    this.sessions.clear();
  }

  /** Every session, oldest first. */
  all(): T[] {
    return [...this.sessions.values()];
  }

  /** How many sessions exist. */
  get size(): number {
    return this.sessions.size;
  }
}
