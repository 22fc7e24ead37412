/**
 * The limits of a listener's sessions: at most `maxSessions` open at once, and a session
 * without a request or an answer for `idleTimeoutMs` is ended. Bookkeeping only — the listener asks
 * before it opens a session and when it sweeps; time comes from the session's own readings.
 */

/**
 * The default cap on open sessions. Each open session keeps its evaluation in memory (about 120 KB after
 * one call, more with more calls); 100 is more agents than one machine runs at once, and bounds what
 * never-closed sessions can hold. `--max-sessions` raises it.
 */
export const DEFAULT_MAX_SESSIONS = 100;

/**
 * The default idle time-out: 30 minutes. Most clients never end their session (the SDK's `Client.close()`
 * sends no DELETE, the MCP inspector keeps its session for as long as its tab lives), so without a
 * time-out their reports would stay `running` until the proxy stops. It must still be long enough for a
 * slow model or a human to answer between two tool calls: an agent that comes back after its session
 * ended gets 404 and a new session, and a write it re-sends is then judged apart from the first one.
 */
export const DEFAULT_SESSION_IDLE_TIMEOUT_MS = 30 * 60_000;

/** What the limits need to know of an open session. */
export interface IdleReading {
  /** How long the session has been idle at `nowMs` (0 while it is busy). */
  idleMs(nowMs: number): number;
}

/** `1500` → `1.5 s`. */
export const seconds = (ms: number): string => `${Number((ms / 1000).toFixed(3))} s`;

export class SessionLimits {
  /** Candidates whose first POST is being answered: they count against the cap until they know. */
  private opening = 0;

  constructor(
    readonly maxSessions = DEFAULT_MAX_SESSIONS,
    readonly idleTimeoutMs = DEFAULT_SESSION_IDLE_TIMEOUT_MS,
  ) {}

  /** Why one more session may not open while `open` are open, or undefined when it may. */
  refusal(open: number): string | undefined {
    if (open + this.opening < this.maxSessions) return undefined;
    return (
      `Too many open sessions: this proxy serves at most ${this.maxSessions} at once (--max-sessions). ` +
      `End a session with HTTP DELETE, or wait until one has had no request for ${seconds(this.idleTimeoutMs)} (--session-idle-timeout)`
    );
  }

  /**
   * Counts a candidate against the cap until the returned `release` runs (once it is open, or it turned
   * out not to be an `initialize`); calling `release` again does nothing.
   */
  reserve(): () => void {
    this.opening++;
    let held = true;
    return () => {
      if (held) this.opening--;
      held = false;
    };
  }

  /** The keys of the sessions idle for the time-out or longer at `nowMs`. */
  idle<K>(sessions: Iterable<readonly [K, IdleReading]>, nowMs: number): K[] {
    const out: K[] = [];
    for (const [key, session] of sessions) if (session.idleMs(nowMs) >= this.idleTimeoutMs) out.push(key);
    return out;
  }

  /** The detail an idle session's handler hears in `closed`. */
  get idleDetail(): string {
    return `idle for ${seconds(this.idleTimeoutMs)} (--session-idle-timeout)`;
  }
}
