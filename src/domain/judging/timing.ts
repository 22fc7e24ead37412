/**
 * Realistic timing (all opt-in): the latency drawn for a forwarded call, F1's held answer and
 * the agent's cancellations, recorded per attempt for the report (`report.timing`). Nothing is recorded
 * for an attempt that had none of them, so a run without these flags costs nothing here.
 */
import type { AttemptStatus } from './attempt.js';
import type { LatencyConfig } from '../faults/fault-plan.js';
import type { RandomSource } from '../time-and-chance.js';

/**
 * One latency: `ms` ± `jitterMs`, a whole number of milliseconds uniform in [ms − jitter, ms + jitter]
 * (toxiproxy's latency toxic), never below 0. Without jitter nothing is drawn, so a fixed latency leaves
 * the chaos draws of a seed unchanged.
 */
export function drawLatency(latency: LatencyConfig, random: RandomSource): number {
  if (latency.jitterMs === 0) return latency.ms;
  const offset = Math.floor(random.next() * (2 * latency.jitterMs + 1)) - latency.jitterMs;
  return Math.max(0, latency.ms + offset);
}

/** One attempt's timing as the report shows it. Absent fields did not apply. */
export interface TimingEntry {
  attempt: number;
  tool: string;
  /** The latency added before the call was forwarded. */
  latencyMs?: number;
  /** How long the replaced answer (F1's timeout) was held after the upstream answered. */
  heldMs?: number;
  /** The agent cancelled the call this long after it arrived. */
  cancelledAfterMs?: number;
  /**
   * F6: the agent was told the write timed out `toldAfterMs` after it arrived; it reached the upstream
   * `forwardedAfterMs` after arrival (null: never, the session ended first) and the upstream answered it
   * (its landing) `landedAfterMs` after arrival. The entry is final at the landing, not at the delivery.
   */
  landedLate?: { toldAfterMs: number; forwardedAfterMs: number | null; landedAfterMs: number };
  /**
   * F6: this write arrived while a late-landing write of the same operation (the attempt of that number)
   * was still waiting to land — the re-send beside the late one.
   */
  besideLate?: number;
  /**
   * F6, on a late-landing write and a write beside one that the upstream executed: which execution of the
   * operation this was at the upstream, 1, 2, … in the order the upstream answered them (its landing
   * order, not the order the agent sent them).
   */
  execution?: number;
  /** What the upstream really did, as known when the agent got (or gave up on) its answer. */
  outcome: AttemptStatus;
}

interface OpenTiming {
  tool: string;
  receivedAt: number;
  latencyMs: number | null;
  holdMs: number;
  answeredAt: number | null;
  cancelledAt: number | null;
  /** F6: the entry waits for the landing; the delivery (the time-out) came first, at this time. */
  late?: { deliveredAt: number | null };
  /** F6: the late write of the same operation still waiting to land when this one arrived. */
  besideLate?: number;
  /** F6: its execution number in its operation (landing order). */
  execution?: number;
}

/** The timing entries of a session, built as attempts are delivered; the JSON text is kept alongside. */
export class TimingLog {
  private readonly open = new Map<number, OpenTiming>();
  private readonly list: TimingEntry[] = [];
  private text = '';

  /** The entries, in order of delivery. */
  get entries(): readonly TimingEntry[] {
    return this.list;
  }

  /** The entries as JSON array items (without the brackets), for the incremental report document. */
  get json(): string {
    return this.text;
  }

  /** An attempt with a latency (`latencyMs`, null when it was not forwarded) or a hold arrived. */
  arrived(id: number, tool: string, receivedAt: number, latencyMs: number | null, holdMs: number): void {
    this.open.set(id, { tool, receivedAt, latencyMs, holdMs, answeredAt: null, cancelledAt: null });
  }

  /** A late-landing write (F6) arrived: its entry is final at its landing (`landed`), not its delivery. */
  arrivedLate(id: number, tool: string, receivedAt: number): void {
    this.open.set(id, {
      tool,
      receivedAt,
      latencyMs: null,
      holdMs: 0,
      answeredAt: null,
      cancelledAt: null,
      late: { deliveredAt: null },
    });
  }

  /** F6: a write arrived while the late write `lateAttempt` of its operation was still waiting to land. */
  besideLate(id: number, tool: string, receivedAt: number, lateAttempt: number): void {
    let timing = this.open.get(id);
    if (timing === undefined) {
      timing = { tool, receivedAt, latencyMs: null, holdMs: 0, answeredAt: null, cancelledAt: null };
      this.open.set(id, timing);
    }
    timing.besideLate = lateAttempt;
  }

  /** F6: a late write, or a write beside one, was the operation's `execution`-th execution at the upstream. */
  executed(id: number, execution: number): void {
    const timing = this.open.get(id);
    if (timing !== undefined) timing.execution = execution;
  }

  /** A late-landing write was answered by the upstream (or given up as unknown): its entry is final. */
  landed(id: number, forwardedAt: number | null, answeredAt: number, outcome: AttemptStatus): void {
    const timing = this.open.get(id);
    if (timing?.late === undefined) return;
    this.open.delete(id);
    const since = (at: number) => Math.round(at - timing.receivedAt);
    const toldAt = timing.late.deliveredAt ?? answeredAt;
    this.push({
      attempt: id,
      tool: timing.tool,
      ...(timing.cancelledAt !== null ? { cancelledAfterMs: since(timing.cancelledAt) } : {}),
      landedLate: {
        toldAfterMs: since(toldAt),
        forwardedAfterMs: forwardedAt === null ? null : since(forwardedAt),
        landedAfterMs: since(answeredAt),
      },
      ...besideOf(timing),
      outcome,
    });
  }

  /** The upstream's answer was replaced (F1): a hold, if any, starts now. */
  replaced(id: number, answeredAt: number | null): void {
    const timing = this.open.get(id);
    if (timing !== undefined && timing.holdMs > 0) timing.answeredAt = answeredAt;
  }

  /** The agent cancelled the attempt. */
  cancelled(id: number, tool: string, receivedAt: number, now: number): void {
    let timing = this.open.get(id);
    if (timing === undefined) {
      timing = { tool, receivedAt, latencyMs: null, holdMs: 0, answeredAt: null, cancelledAt: null };
      this.open.set(id, timing);
    }
    timing.cancelledAt = now;
  }

  /** The attempt was delivered (or given up on): its entry is final. */
  delivered(id: number, deliveredAt: number, outcome: AttemptStatus): void {
    if (this.open.size === 0) return;
    const timing = this.open.get(id);
    if (timing === undefined) return;
    if (timing.late !== undefined) {
      timing.late.deliveredAt = deliveredAt;
      return;
    }
    this.open.delete(id);
    if (timing.latencyMs === null && timing.answeredAt === null && timing.cancelledAt === null && timing.besideLate === undefined)
      return;
    const entry: TimingEntry = {
      attempt: id,
      tool: timing.tool,
      ...(timing.latencyMs !== null ? { latencyMs: timing.latencyMs } : {}),
      ...(timing.answeredAt !== null ? { heldMs: Math.round(deliveredAt - timing.answeredAt) } : {}),
      ...(timing.cancelledAt !== null ? { cancelledAfterMs: Math.round(timing.cancelledAt - timing.receivedAt) } : {}),
      ...besideOf(timing),
      outcome,
    };
    this.push(entry);
  }

  private push(entry: TimingEntry): void {
    this.list.push(entry);
    this.text += (this.text === '' ? '' : ',') + JSON.stringify(entry);
  }
}

/** F6: the late write an entry was sent beside, and its execution number, where they apply. */
function besideOf(timing: OpenTiming): Pick<TimingEntry, 'besideLate' | 'execution'> {
  return {
    ...(timing.besideLate !== undefined ? { besideLate: timing.besideLate } : {}),
    ...(timing.execution !== undefined ? { execution: timing.execution } : {}),
  };
}
