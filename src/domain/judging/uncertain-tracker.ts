/**
 * Near-duplicates after an uncertain attempt (R-6). An attempt is uncertain when the agent could not
 * know whether it executed: F1's ghost write (answered with a timeout), an unknown outcome, or an answer
 * with `isError` (R-6.1: it may have written before it failed). A later call of the same tool with
 * different arguments is compared with it — also when it was sent while the uncertain attempt was still
 * in flight, but only when the uncertain attempt came first. After an `isError` answer every other form
 * counts as "another write" (a notation-only change looks the same as fixing a validation error).
 *
 * Memory and time are linear in the writes: each tool keeps ONE log of its forwarded writes in arrival
 * order, from the oldest write still in flight on; a write that turns out uncertain is judged against the
 * log's entries after its own (exactly the writes that arrived while it was in flight). Each settled
 * attempt costs the same whatever came before:
 * - the writes after it are counted, not visited: per operation the positions of its writes (binary
 *   search), so "other writes" are a subtraction;
 * - only writes that could be notation variants are compared, found through an index of the top level's
 *   notation signatures (`notationShape`): the same field names with the same signatures, or other field
 *   names sharing at least half with equal signatures on the shared ones (one index per such projection);
 *   one comparison per operation, since all writes of an operation have the same arguments;
 * - at most {@link MAX_COMPARISONS} comparisons and {@link MAX_VISITS} index entries per settled attempt.
 *   What the bound loses: when more candidates than that were in flight with it (writes that agree with it
 *   on every top-level value, notation aside, and differ deeper down), the ones not compared count as
 *   possible near-duplicates (NOT_TESTED, never a silent PASS), so the count may be too high, never too
 *   low. The same holds for writes with non-JSON values and for a tool's field-name sets beyond
 *   {@link MAX_SHAPES}.
 * The index is built when the first uncertain attempt of the log needs it and rebuilt when the log drops
 * its head, so writes that all settle certain never pay for it.
 */
import { isNotationVariant, notationShape, type NotationShape } from './near-duplicate.js';

/** How uncertain a settled write is for later writes of the same tool. */
export type Uncertainty = 'none' | 'unknown' | 'rejected';

/** A forwarded write, kept while it or an earlier write of its tool is in flight, or while uncertain. */
interface TrackedWrite {
  readonly opKey: string;
  readonly args: unknown;
  readonly preview: string;
  /** Settled with `isError`: later writes in another form are only "other writes". */
  rejected: boolean;
  /** The run of consecutive log entries of this operation that this write belongs to (its last position). */
  run: { end: number };
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

/** Compares two writes' arguments (R-6); injectable so tests can count the comparisons. */
export type NotationComparer = (a: unknown, b: unknown) => boolean;

/** Only the most recent uncertain attempts per tool are compared (each took a timeout to happen). */
const MAX_UNCERTAIN_PER_TOOL = 64;
/** The log drops its settled head once it is at least this long and at least half the log. */
const TRIM_AT = 256;
/** Comparisons of arguments per settled attempt; past it, candidates count as near-duplicates. */
export const MAX_COMPARISONS = 256;
/** Index entries (operations) looked at per settled attempt; past it, as above. */
export const MAX_VISITS = 4096;
/** Field-name sets indexed per tool (and projections per set); writes with more sets are always candidates. */
export const MAX_SHAPES = 32;
/** Log entries looked at to find the example of "another write". */
const MAX_EXAMPLE_STEPS = 256;

/** Positions (ascending) of the writes of a group, and per operation. */
class Bucket {
  readonly positions: number[] = [];
  readonly ops = new Map<string, number[]>();

  add(position: number, opKey: string): void {
    this.positions.push(position);
    const list = this.ops.get(opKey);
    if (list === undefined) this.ops.set(opKey, [position]);
    else list.push(position);
  }
}

/** How many of the ascending `positions` are greater than `after`. */
function countAfter(positions: readonly number[] | undefined, after: number): number {
  if (positions === undefined) return 0;
  let low = 0;
  let high = positions.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (positions[middle]! <= after) low = middle + 1;
    else high = middle;
  }
  return positions.length - low;
}

/** The first of the ascending `positions` greater than `after` (there is one). */
function firstAfter(positions: readonly number[], after: number): number {
  return positions[positions.length - countAfter(positions, after)]!;
}

/** Writes with the same top-level field names, and their projections onto fewer fields. */
class ShapeGroup {
  readonly all = new Bucket();
  /** Projection key (the fields projected onto) → signature of those fields → writes. */
  readonly projections = new Map<string, { indexes: number[]; buckets: Map<string, Bucket> }>();
  readonly fieldSet: ReadonlySet<string>;

  constructor(readonly fields: readonly string[] | null) {
    this.fieldSet = new Set(fields ?? []);
  }
}

/** Signature of a shape on the fields at `indexes`, framed so it decodes one way only. */
function projected(shape: NotationShape, indexes: readonly number[]): string {
  let out = '';
  for (const index of indexes) {
    const signature = shape.signatures[index]!;
    out += `${signature.length}:${signature}`;
  }
  return out;
}

function fieldsKey(fields: readonly string[] | null): string {
  return fields === null ? '\u0000' : fields.map((f) => `${f.length}:${f}`).join('');
}

/** The notation index of one tool's log (see the file comment). */
class ShapeIndex {
  private readonly groups = new Map<string, ShapeGroup>();
  /** Writes without a shape (non-JSON values) or beyond MAX_SHAPES field-name sets: always candidates. */
  private readonly unindexed = new Bucket();
  /** Shapes by log position, from `firstPosition` on. */
  private readonly shapes: Array<NotationShape | undefined> = [];

  constructor(
    private readonly firstPosition: number,
    private readonly writeAt: (position: number) => TrackedWrite,
  ) {}

  add(position: number, write: TrackedWrite): void {
    const shape = notationShape(write.args);
    this.shapes[position - this.firstPosition] = shape;
    const group = shape === undefined ? undefined : this.groupOf(shape.fields);
    if (shape === undefined || group === undefined) {
      this.unindexed.add(position, write.opKey);
      return;
    }
    group.all.add(position, write.opKey);
    for (const projection of group.projections.values()) {
      addTo(projection.buckets, projected(shape, projection.indexes), position, write.opKey);
    }
  }

  private groupOf(fields: readonly string[] | null): ShapeGroup | undefined {
    const key = fieldsKey(fields);
    let group = this.groups.get(key);
    if (group === undefined) {
      if (this.groups.size >= MAX_SHAPES) return undefined;
      group = new ShapeGroup(fields);
      this.groups.set(key, group);
    }
    return group;
  }

  /**
   * The buckets holding every write that could be a notation variant of the write at `position`, each
   * written at most once: its own group's writes with equal signatures, the writes of each other group
   * whose field names share at least half with its own and whose shared fields have equal signatures,
   * and the unindexed writes. Null when the write itself has no index entry (then every write is).
   */
  candidates(position: number): Bucket[] | null {
    const shape = this.shapes[position - this.firstPosition];
    const own = shape === undefined ? undefined : this.groups.get(fieldsKey(shape.fields));
    if (shape === undefined || own === undefined) return null;
    const found: Bucket[] = [];
    for (const group of this.groups.values()) {
      const indexes = sharedIndexes(shape.fields, group);
      if (indexes === null) continue;
      const bucket = this.projection(group, shape, indexes).get(projected(shape, indexes));
      if (bucket !== undefined) found.push(bucket);
    }
    found.push(this.unindexed);
    return found;
  }

  /** Every write as one bucket (for a write without an index entry). */
  everything(): Bucket[] {
    return [...[...this.groups.values()].map((g) => g.all), this.unindexed];
  }

  /** The group's writes by their signatures on the given fields of `shape` (built on first use). */
  private projection(group: ShapeGroup, shape: NotationShape, indexes: readonly number[]): Map<string, Bucket> {
    const names = shape.fields === null ? null : indexes.map((i) => shape.fields![i]!);
    const key = fieldsKey(names);
    let projection = group.projections.get(key);
    if (projection === undefined) {
      const fields = group.fields ?? [];
      // The same fields by their place in this group's sorted names.
      const own = names === null ? [0] : names.map((name) => fields.indexOf(name));
      projection = { indexes: own, buckets: new Map() };
      for (const position of group.all.positions) {
        const other = this.shapes[position - this.firstPosition]!;
        addTo(projection.buckets, projected(other, own), position, this.writeAt(position).opKey);
      }
      group.projections.set(key, projection);
    }
    return projection.buckets;
  }
}

function addTo(buckets: Map<string, Bucket>, signature: string, position: number, opKey: string): void {
  let bucket = buckets.get(signature);
  if (bucket === undefined) {
    bucket = new Bucket();
    buckets.set(signature, bucket);
  }
  bucket.add(position, opKey);
}

/**
 * The indexes (in `fields`) of the field names shared with `group`, when they are at least half of all
 * the names of both (R-6's rule for objects); for non-objects, the one signature when both are not
 * objects. Null when no write of the group can match.
 */
function sharedIndexes(fields: readonly string[] | null, group: ShapeGroup): number[] | null {
  if (fields === null || group.fields === null) return fields === null && group.fields === null ? [0] : null;
  const shared: number[] = [];
  fields.forEach((field, index) => {
    if (group.fieldSet.has(field)) shared.push(index);
  });
  return 2 * shared.length >= fields.length + group.fields.length - shared.length ? shared : null;
}

/** One tool's writes: the log from the oldest one in flight, and its recent uncertain attempts. */
class ToolWrites {
  /** Forwarded writes in arrival order; `log[0]` has the global position `base`. */
  log: TrackedWrite[] = [];
  base = 0;
  /** Writes still in flight: attempt id → global log position, in arrival order. */
  readonly inFlight = new Map<number, number>();
  readonly uncertain: TrackedWrite[] = [];
  /** Global positions of the log's writes per operation (ascending). */
  private byOp = new Map<string, number[]>();
  private index: ShapeIndex | null = null;

  get idle(): boolean {
    return this.inFlight.size === 0 && this.uncertain.length === 0;
  }

  at(position: number): TrackedWrite {
    return this.log[position - this.base]!;
  }

  get end(): number {
    return this.base + this.log.length;
  }

  append(id: number, opKey: string, args: unknown, preview: string): void {
    const position = this.end;
    const last = this.log[this.log.length - 1];
    const run = last !== undefined && last.opKey === opKey ? last.run : { end: position };
    run.end = position;
    const write: TrackedWrite = { opKey, args, preview, rejected: false, run };
    this.inFlight.set(id, position);
    this.log.push(write);
    this.noteOp(opKey, position);
    this.index?.add(position, write);
  }

  private noteOp(opKey: string, position: number): void {
    const list = this.byOp.get(opKey);
    if (list === undefined) this.byOp.set(opKey, [position]);
    else list.push(position);
  }

  /** Removes a write from the in-flight set; returns its global position (undefined when unknown). */
  take(id: number): number | undefined {
    const position = this.inFlight.get(id);
    if (position !== undefined) this.inFlight.delete(id);
    return position;
  }

  /** How many writes after `position` are of the operation `opKey`. */
  sameAfter(opKey: string, position: number): number {
    return countAfter(this.byOp.get(opKey), position);
  }

  /** The notation index, built over the current log on first use. */
  shapeIndex(): ShapeIndex {
    if (this.index === null) {
      const index = new ShapeIndex(this.base, (position) => this.at(position));
      this.log.forEach((write, i) => index.add(this.base + i, write));
      this.index = index;
    }
    return this.index;
  }

  /**
   * The position of the first write after `position` whose operation is neither `opKey` nor in `skip`,
   * looked for among at most MAX_EXAMPLE_STEPS entries (runs of `opKey` are jumped over); past that, the
   * first write of another operation seen (only the example is then not the first).
   */
  firstOther(opKey: string, position: number, skip: ReadonlySet<string>): number {
    let fallback = -1;
    let at = position + 1;
    for (let steps = 0; at < this.end && steps < MAX_EXAMPLE_STEPS; steps++) {
      const write = this.at(at);
      if (write.opKey === opKey) {
        at = write.run.end + 1;
        continue;
      }
      if (!skip.has(write.opKey)) return at;
      if (fallback < 0) fallback = at;
      at++;
    }
    return fallback >= 0 ? fallback : Math.min(at, this.end - 1);
  }

  trim(): void {
    const oldest = this.inFlight.values().next();
    if (oldest.done === true) {
      this.base += this.log.length;
      this.log = [];
      this.byOp = new Map();
      this.index = null;
      return;
    }
    const drop = oldest.value - this.base;
    if (drop >= TRIM_AT && 2 * drop >= this.log.length) {
      this.log = this.log.slice(drop);
      this.base = oldest.value;
      this.byOp = new Map();
      this.log.forEach((write, i) => this.noteOp(write.opKey, this.base + i));
      this.index = null;
    }
  }
}

export class UncertainTracker {
  private readonly tools = new Map<string, ToolWrites>();

  constructor(private readonly variant: NotationComparer = isNotationVariant) {}

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
      if (earlier.opKey === opKey) continue;
      const nearDuplicate = !earlier.rejected && this.variant(earlier.args, args);
      findings.push({ tool, nearDuplicate, first: earlier.preview, second: preview, count: 1 });
    }
    writes.append(id, opKey, args, preview);
    return findings;
  }

  /** A forwarded write was answered; `uncertainty` says whether (and how) the agent can know its outcome. */
  settled(tool: string, id: number, uncertainty: Uncertainty): PairFinding[] {
    const writes = this.tools.get(tool);
    const position = writes?.take(id);
    if (writes === undefined || position === undefined) return [];
    const write = writes.at(position);
    const findings = uncertainty === 'none' ? [] : this.laterWrites(tool, writes, position, uncertainty === 'rejected');
    writes.trim();
    if (uncertainty !== 'none') {
      write.rejected = uncertainty === 'rejected';
      writes.uncertain.push(write);
      if (writes.uncertain.length > MAX_UNCERTAIN_PER_TOOL) writes.uncertain.shift();
    }
    if (writes.idle) this.tools.delete(tool);
    return findings;
  }

  /**
   * The findings of an uncertain write against the writes that arrived while it was in flight: one
   * counted finding for the near-duplicates, one for the other writes, in the order of their first pair.
   */
  private laterWrites(tool: string, writes: ToolWrites, position: number, rejected: boolean): PairFinding[] {
    const earlier = writes.at(position);
    const others = writes.end - position - 1 - writes.sameAfter(earlier.opKey, position);
    if (others === 0) return [];
    // After isError every other form is only "another write": counted, never compared.
    const near = rejected ? null : this.nearDuplicates(writes, position);
    const findings: Array<PairFinding & { at: number }> = [];
    const nearCount = near?.count ?? 0;
    if (near !== null && nearCount > 0) {
      findings.push({
        tool,
        nearDuplicate: true,
        first: earlier.preview,
        second: writes.at(near.first).preview,
        count: nearCount,
        at: near.first,
      });
    }
    if (others > nearCount) {
      const at = writes.firstOther(earlier.opKey, position, near?.variants ?? NO_OPERATIONS);
      const second = writes.at(at).preview;
      findings.push({ tool, nearDuplicate: false, first: earlier.preview, second, count: others - nearCount, at });
    }
    findings.sort((a, b) => a.at - b.at);
    return findings.map(({ at: _at, ...finding }) => finding);
  }

  /**
   * The writes after `position` that are (or, past the bounds, may be) notation variants of it: how
   * many, the first one's position, and their operations.
   */
  private nearDuplicates(writes: ToolWrites, position: number): { count: number; first: number; variants: Set<string> } {
    const earlier = writes.at(position);
    const index = writes.shapeIndex();
    const buckets = index.candidates(position) ?? index.everything();
    const variants = new Set<string>();
    let count = 0;
    let first = Number.POSITIVE_INFINITY;
    let comparisons = 0;
    let visits = 0;
    for (const bucket of buckets) {
      let left = countAfter(bucket.positions, position) - countAfter(bucket.ops.get(earlier.opKey), position);
      if (left === 0) continue;
      const entries = bucket.ops.entries();
      for (let entry = entries.next(); entry.done !== true && left > 0; entry = entries.next()) {
        if (comparisons >= MAX_COMPARISONS || visits >= MAX_VISITS) {
          // Not compared within the bounds: counted as possible near-duplicates (never understated).
          count += left;
          const example = firstLater(entry, entries, earlier.opKey, position);
          first = Math.min(first, Number.isFinite(example) ? example : firstAfter(bucket.positions, position));
          break;
        }
        visits++;
        const [opKey, positions] = entry.value;
        if (opKey === earlier.opKey) continue;
        const later = countAfter(positions, position);
        if (later === 0) continue;
        const at = firstAfter(positions, position);
        comparisons++;
        left -= later;
        if (this.variant(earlier.args, writes.at(at).args)) {
          variants.add(opKey);
          count += later;
          first = Math.min(first, at);
        }
      }
    }
    return { count, first, variants };
  }
}

/** For the example: the first later write among the next operations not compared (a bounded look). */
function firstLater(
  entry: IteratorResult<[string, number[]]>,
  entries: Iterator<[string, number[]]>,
  opKey: string,
  position: number,
): number {
  let first = Number.POSITIVE_INFINITY;
  for (let steps = 0; entry.done !== true && steps < MAX_EXAMPLE_STEPS; steps++, entry = entries.next()) {
    const [other, positions] = entry.value;
    if (other !== opKey && countAfter(positions, position) > 0) first = Math.min(first, firstAfter(positions, position));
  }
  return first;
}

const NO_OPERATIONS: ReadonlySet<string> = new Set();
