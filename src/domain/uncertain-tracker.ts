/**
 * Near-duplicates after an uncertain attempt (R-6). An attempt is uncertain when the agent could not
 * know whether it executed: F1's ghost write (answered with a timeout), an unknown outcome, or an answer
 * with `isError` (R-6.1: it may have written before it failed). A later call of the same tool with
 * different arguments is compared with it — also when it was sent while the uncertain attempt was still
 * in flight, but only when the uncertain attempt came first. After an `isError` answer every other form
 * counts as "another write" (a notation-only change looks the same as fixing a validation error).
 *
 * Memory and time are linear in the writes: each tool keeps ONE log of its forwarded writes in arrival
 * order, from the oldest write still in flight on; a write that turns out uncertain is compared with the
 * log's entries after its own (exactly the writes that arrived while it was in flight). Nothing is copied
 * per pair of writes in flight.
 */
import { isNotationVariant } from './near-duplicate.js';

/** How uncertain a settled write is for later writes of the same tool. */
export type Uncertainty = 'none' | 'unknown' | 'rejected';

/** A forwarded write, kept while it or an earlier write of its tool is in flight, or while uncertain. */
interface TrackedWrite {
  readonly opKey: string;
  readonly args: unknown;
  readonly preview: string;
  /** Settled with `isError`: later writes in another form are only "other writes". */
  rejected: boolean;
}

/**
 * The finding on one pair (or on `count` pairs with the same earlier attempt): near-duplicate
 * (NOT_TESTED) or just another write (observation). `second` is the first later write's preview.
 */
export interface PairFinding {
  tool: string;
  nearDuplicate: boolean;
  first: string;
  second: string;
  count: number;
}

/** Only the most recent uncertain attempts per tool are compared (each took a timeout to happen). */
const MAX_UNCERTAIN_PER_TOOL = 64;
/** The log drops its settled head once it is at least this long and at least half the log. */
const TRIM_AT = 256;

/** One tool's writes: the log from the oldest one in flight, and its recent uncertain attempts. */
class ToolWrites {
  /** Forwarded writes in arrival order; `log[0]` has the global position `base`. */
  log: TrackedWrite[] = [];
  base = 0;
  /** Writes still in flight: attempt id → global log position, in arrival order. */
  readonly inFlight = new Map<number, number>();
  readonly uncertain: TrackedWrite[] = [];

  get idle(): boolean {
    return this.inFlight.size === 0 && this.uncertain.length === 0;
  }

  append(id: number, write: TrackedWrite): void {
    this.inFlight.set(id, this.base + this.log.length);
    this.log.push(write);
  }

  /**
   * Removes a write from the in-flight set and returns it; `later` (if given) first sees each write that
   * arrived after it, in order (only asked for an uncertain write, so a certain one costs constant time).
   */
  take(id: number, later?: (write: TrackedWrite, earlier: TrackedWrite) => void): TrackedWrite | undefined {
    const position = this.inFlight.get(id);
    if (position === undefined) return undefined;
    this.inFlight.delete(id);
    const index = position - this.base;
    const write = this.log[index]!;
    if (later !== undefined) for (let i = index + 1; i < this.log.length; i++) later(this.log[i]!, write);
    this.trim();
    return write;
  }

  private trim(): void {
    const oldest = this.inFlight.values().next();
    if (oldest.done === true) {
      this.base += this.log.length;
      this.log = [];
      return;
    }
    const drop = oldest.value - this.base;
    if (drop >= TRIM_AT && 2 * drop >= this.log.length) {
      this.log = this.log.slice(drop);
      this.base = oldest.value;
    }
  }
}

export class UncertainTracker {
  private readonly tools = new Map<string, ToolWrites>();

  /** A write call arrived; returns findings against uncertain attempts that came before it. */
  arrived(tool: string, id: number, opKey: string, args: unknown, preview: string, forwarded: boolean): PairFinding[] {
    if (!forwarded) return [];
    let writes = this.tools.get(tool);
    if (writes === undefined) {
      writes = new ToolWrites();
      this.tools.set(tool, writes);
    }
    const findings: PairFinding[] = [];
    for (const earlier of writes.uncertain) {
      if (earlier.opKey !== opKey) findings.push(compare(tool, earlier, args, preview, earlier.rejected));
    }
    writes.append(id, { opKey, args, preview, rejected: false });
    return findings;
  }

  /** A forwarded write was answered; `uncertainty` says whether (and how) the agent can know its outcome. */
  settled(tool: string, id: number, uncertainty: Uncertainty): PairFinding[] {
    const writes = this.tools.get(tool);
    if (writes === undefined) return [];
    const findings: PairFinding[] = [];
    const rejected = uncertainty === 'rejected';
    // After isError every other form is only "another write": counted in one finding, no
    // comparison, so thousands of parallel writes a server rejects cost a tight loop, not a pair each.
    let others: PairFinding | null = null;
    const compareLater = (later: TrackedWrite, earlier: TrackedWrite): void => {
      if (later.opKey === earlier.opKey) return;
      if (!rejected) findings.push(compare(tool, earlier, later.args, later.preview, false));
      else if (others === null) findings.push((others = compare(tool, earlier, later.args, later.preview, true)));
      else others.count++;
    };
    const tracked = writes.take(id, uncertainty === 'none' ? undefined : compareLater);
    if (tracked === undefined) return [];
    if (uncertainty !== 'none') {
      tracked.rejected = rejected;
      writes.uncertain.push(tracked);
      if (writes.uncertain.length > MAX_UNCERTAIN_PER_TOOL) writes.uncertain.shift();
    }
    if (writes.idle) this.tools.delete(tool);
    return findings;
  }
}

/** After `isError` any other form is "another write"; otherwise a notation variant is a near-duplicate. */
function compare(tool: string, earlier: TrackedWrite, args: unknown, preview: string, rejected: boolean): PairFinding {
  const nearDuplicate = !rejected && isNotationVariant(earlier.args, args);
  return { tool, nearDuplicate, first: earlier.preview, second: preview, count: 1 };
}
