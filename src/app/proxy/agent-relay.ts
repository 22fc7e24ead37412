/**
 * what the upstream sends towards the agent — notifications (logging, list changes, resource
 * updates) and requests (sampling, elicitation, roots) — on its way to the agent sessions. A message sent
 * while a request is in flight goes to that request's agent, related to it (the upstream side picks it);
 * the rest comes here: notifications to every session open, requests to the session that opened last.
 * Notifications are bounded per session: a flood is dropped and counted, never queued.
 */
import type { AgentPeer, ForwardedAnswer } from '../../ports/agent-side.port.js';
import type { Clock } from '../../ports/clock.port.js';

/** Notifications passed on in one burst before the rate applies, and the rate (per second) after it. */
export const NOTIFICATION_BURST = 1000;
export const NOTIFICATIONS_PER_SECOND = 500;

/** JSON-RPC code of a request no agent answered in time (as the SDK's own time-out). */
const REQUEST_TIMEOUT = -32001;

/**
 * A token bucket: `take()` is true while the session is within {@link NOTIFICATION_BURST} notifications,
 * refilled at {@link NOTIFICATIONS_PER_SECOND}; every refusal is counted in `dropped`.
 */
export class NotificationBudget {
  private tokens = NOTIFICATION_BURST;
  private lastMs: number;
  dropped = 0;

  constructor(
    private readonly clock: Clock,
    /** Told the first time one is dropped (then again only at the end, with the count). */
    private readonly onFirstDrop: () => void = () => undefined,
  ) {
    this.lastMs = clock.now();
  }

  take(): boolean {
    const now = this.clock.now();
    this.tokens = Math.min(NOTIFICATION_BURST, this.tokens + ((now - this.lastMs) * NOTIFICATIONS_PER_SECOND) / 1000);
    this.lastMs = now;
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return true;
    }
    if (this.dropped++ === 0) this.onFirstDrop();
    return false;
  }
}

/** `peer` with its notifications counted against `budget` (dropped once it is spent); requests unchanged. */
export function budgeted(peer: AgentPeer, budget: NotificationBudget): AgentPeer {
  return {
    notify: (method, params) => (budget.take() ? peer.notify(method, params) : Promise.resolve()),
    request: (method, params, options) => peer.request(method, params, options),
  };
}

/**
 * The agent sessions open now, as one peer for what belongs to no request in flight. A request that comes
 * while no session is open waits for one (an upstream that asks for `roots/list` as soon as it is
 * initialized, before the agent is), up to its time-out.
 */
export class AgentRelay implements AgentPeer {
  private readonly peers = new Map<object, AgentPeer>();
  private waiting: Array<() => void> = [];

  constructor(private readonly clock: Clock) {}

  /** A session's agent has initialized (again: its latest MCP session); it now gets what the upstream sends. */
  attach(session: object, peer: AgentPeer): void {
    this.peers.delete(session);
    this.peers.set(session, peer);
    for (const wake of this.waiting.splice(0)) wake();
  }

  detach(session: object): void {
    this.peers.delete(session);
  }

  async notify(method: string, params: Record<string, unknown> | undefined): Promise<void> {
    await Promise.all([...this.peers.values()].map((peer) => peer.notify(method, params)));
  }

  async request(
    method: string,
    params: Record<string, unknown> | undefined,
    options: { signal: AbortSignal; timeoutMs: number },
  ): Promise<ForwardedAnswer> {
    const deadline = this.clock.now() + options.timeoutMs;
    while (this.latest() === undefined) {
      if (!(await this.sessionOpened(deadline - this.clock.now(), options.signal)))
        return {
          error: {
            code: REQUEST_TIMEOUT,
            message: `${method}: no agent session was open to answer within ${options.timeoutMs} ms`,
          },
        };
    }
    return this.latest()!.request(method, params, { ...options, timeoutMs: Math.max(1, deadline - this.clock.now()) });
  }

  private latest(): AgentPeer | undefined {
    return [...this.peers.values()].at(-1);
  }

  /** True when a session attached within `ms`; false after `ms` or once `signal` aborts. */
  private sessionOpened(ms: number, signal: AbortSignal): Promise<boolean> {
    if (ms <= 0 || signal.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const done = (opened: boolean): void => {
        clearTimeout(timer);
        signal.removeEventListener('abort', aborted);
        this.waiting = this.waiting.filter((wake) => wake !== woken);
        resolve(opened);
      };
      const woken = (): void => done(true);
      const aborted = (): void => done(false);
      const timer = setTimeout(() => done(false), ms);
      timer.unref?.();
      signal.addEventListener('abort', aborted, { once: true });
      this.waiting.push(woken);
    });
  }
}
