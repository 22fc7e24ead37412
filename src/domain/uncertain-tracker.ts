/**
 * Near-duplicates after an uncertain attempt (R-6). An attempt is uncertain when the agent could not
 * know whether it executed: F1's ghost write (answered with a timeout) or an unknown outcome. A later
 * call of the same tool with different arguments is compared with it — also when it was sent while the
 * uncertain attempt was still in flight, but only when the uncertain attempt came first.
 */
import { isNotationVariant } from './near-duplicate.js';

/** A forwarded write that may still turn out uncertain, or already did. */
interface TrackedWrite {
  id: number;
  opKey: string;
  args: unknown;
  preview: string;
  /** Later forwarded calls of the same tool that arrived while this one was in flight. */
  later: Array<{ opKey: string; args: unknown; preview: string }>;
}

/** The verdict on one pair: near-duplicate (NOT_TESTED) or just another write (observation). */
export interface PairFinding {
  tool: string;
  nearDuplicate: boolean;
  first: string;
  second: string;
}

/** Only the most recent uncertain attempts per tool are compared (each took a timeout to happen). */
const MAX_UNCERTAIN_PER_TOOL = 64;

export class UncertainTracker {
  private readonly pending = new Map<string, Map<number, TrackedWrite>>();
  private readonly uncertain = new Map<string, TrackedWrite[]>();

  /** A write call arrived; returns findings against uncertain attempts that came before it. */
  arrived(tool: string, id: number, opKey: string, args: unknown, preview: string, forwarded: boolean): PairFinding[] {
    const findings: PairFinding[] = [];
    if (forwarded) {
      for (const earlier of this.uncertain.get(tool) ?? []) {
        if (earlier.opKey !== opKey) findings.push(compare(tool, earlier, args, preview));
      }
    }
    const pendingForTool = this.pending.get(tool);
    if (forwarded && pendingForTool !== undefined) {
      for (const earlier of pendingForTool.values()) {
        if (earlier.opKey !== opKey) earlier.later.push({ opKey, args, preview });
      }
    }
    if (forwarded) {
      const map = pendingForTool ?? new Map<number, TrackedWrite>();
      map.set(id, { id, opKey, args, preview, later: [] });
      if (pendingForTool === undefined) this.pending.set(tool, map);
    }
    return findings;
  }

  /** A forwarded write was answered; `uncertain` says whether the agent can know its outcome. */
  settled(tool: string, id: number, uncertain: boolean): PairFinding[] {
    const pendingForTool = this.pending.get(tool);
    const tracked = pendingForTool?.get(id);
    if (pendingForTool === undefined || tracked === undefined) return [];
    pendingForTool.delete(id);
    if (pendingForTool.size === 0) this.pending.delete(tool);
    if (!uncertain) return [];
    const findings = tracked.later.map((b) => compare(tool, tracked, b.args, b.preview));
    tracked.later = [];
    const list = this.uncertain.get(tool) ?? [];
    list.push(tracked);
    if (list.length > MAX_UNCERTAIN_PER_TOOL) list.shift();
    this.uncertain.set(tool, list);
    return findings;
  }
}

function compare(tool: string, earlier: TrackedWrite, args: unknown, preview: string): PairFinding {
  return { tool, nearDuplicate: isNotationVariant(earlier.args, args), first: earlier.preview, second: preview };
}
