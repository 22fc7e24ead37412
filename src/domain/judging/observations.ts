/**
 * Tool-level observations that are not a property of one operation: they are counted per tool
 * as they happen. Operation-level observations are derived from the operation's state.
 */
import type { OperationObservation } from './operation-state.js';

export type ToolObservation =
  | 'WRITE_WITHOUT_KEY'
  | 'UNCLASSIFIED_REPEAT'
  | 'OTHER_CALL_DURING_RETRY_AFTER'
  | 'OTHER_WRITE_AFTER_UNCERTAIN_ATTEMPT'
  | 'POSSIBLE_DUPLICATE_DIFFERENT_ARGUMENTS'
  /** a tool annotated idempotent executed the same call (same arguments, key included) again. */
  | 'IDEMPOTENT_REPEAT';

export type ObservationType = OperationObservation | ToolObservation;

/** One entry of `observations[]`: a code, the tool, how often, and an example where it helps. */
export interface ObservationEntry {
  type: ObservationType;
  tool: string;
  count: number;
  /** For near-duplicates: the arguments of the uncertain attempt and of the later call. */
  example?: { first: string; second: string };
  /** Operation-level observations: the operation's arguments (preview, key fields removed). */
  arguments?: string;
  /** RECOVERED_BY_RETRY after a 429: how long the agent waited before re-sending. */
  waitedMs?: number;
}

/** The counter as readers see it (counting is the session's). */
export type ObservationsView = Pick<ObservationCounter, 'count' | 'list'>;

/** Counts tool-level observations by (type, tool); increments and decrements in constant time. */
export class ObservationCounter {
  private readonly entries = new Map<string, ObservationEntry>();

  add(type: ObservationType, tool: string, delta = 1, example?: ObservationEntry['example']): void {
    const id = `${type}\u0000${tool}`;
    const entry = this.entries.get(id);
    if (entry === undefined) {
      if (delta <= 0) return;
      this.entries.set(id, { type, tool, count: delta, ...(example ? { example } : {}) });
      return;
    }
    entry.count += delta;
    if (entry.example === undefined && example !== undefined) entry.example = example;
    if (entry.count <= 0) this.entries.delete(id);
  }

  count(type: ObservationType): number {
    let total = 0;
    for (const entry of this.entries.values()) if (entry.type === type) total += entry.count;
    return total;
  }

  /** Entries sorted by type then tool, so a report is deterministic. */
  list(): ObservationEntry[] {
    return [...this.entries.values()]
      .map((e) => ({ ...e }))
      .sort((a, b) => (a.type === b.type ? cmp(a.tool, b.tool) : cmp(a.type, b.type)));
  }
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
