/**
 * The parts of the report that list every tool the upstream listed — `toolClassification` and
 * the listed unclassified tools of `coverage.unclassifiedTools` — encoded once per tool list, so that a
 * report published after every call copies them but never re-serialises, re-sorts or re-encodes them:
 * with 200 000 listed tools they are most of the file, and each publish would otherwise cost with the
 * tool list instead of with the calls. Pure: only TextEncoder and typed arrays.
 */
import type { ToolClassification } from '../judging/classification.js';

const encoder = new TextEncoder();

/** A document's parts: strings and already encoded bytes, written one after the other. */
type Parts = Array<string | Uint8Array>;

export class ToolListBytes {
  /** `toolClassification` as a JSON array, encoded. */
  readonly classification: Uint8Array;
  /** The listed unclassified names, sorted as `Array.prototype.sort` sorts them, without repeats. */
  private readonly names: string[];
  private readonly listed: Set<string>;
  /** The names as JSON strings joined by commas (no brackets), encoded. */
  private readonly namesBytes: Uint8Array;
  /** Where each name starts in {@link namesBytes}; `starts[n]` is one past the end (where a comma would be). */
  private readonly starts: Uint32Array;

  constructor(readonly tools: readonly ToolClassification[]) {
    this.classification = encoder.encode(JSON.stringify(tools));
    this.listed = new Set(tools.filter((t) => t.class === 'unclassified').map((t) => t.name));
    this.names = [...this.listed].sort();
    const pieces = this.names.map((name) => JSON.stringify(name));
    const bytes = new Uint8Array(pieces.reduce((sum, p) => sum + p.length * 3 + 1, 0));
    this.starts = new Uint32Array(pieces.length + 1);
    let used = 0;
    pieces.forEach((piece, i) => {
      if (i > 0) bytes[used++] = 0x2c;
      this.starts[i] = used;
      used += encoder.encodeInto(piece, bytes.subarray(used)).written;
    });
    this.starts[pieces.length] = used + 1;
    this.namesBytes = bytes.slice(0, used);
  }

  /**
   * The body of `coverage.unclassifiedTools` (between `[` and `]`): the listed unclassified tools and the
   * `called` unclassified names not among them, sorted — what `coverageOf` gives, at a cost that grows
   * with the called names, not with the list.
   */
  unclassifiedBody(called: Iterable<string>): Parts {
    const extra = [...called].filter((name) => !this.listed.has(name)).sort();
    if (extra.length === 0) return this.names.length === 0 ? [] : [this.namesBytes];
    const pieces: Parts = [];
    let from = 0;
    for (const name of extra) {
      const at = this.insertionPoint(name, from);
      if (at > from) pieces.push(this.run(from, at));
      pieces.push(JSON.stringify(name));
      from = at;
    }
    if (from < this.names.length) pieces.push(this.run(from, this.names.length));
    return pieces.flatMap((piece, i) => (i === 0 ? [piece] : [',', piece]));
  }

  /** The encoded names `from` … `to - 1`, with the commas between them. */
  private run(from: number, to: number): Uint8Array {
    return this.namesBytes.subarray(this.starts[from], this.starts[to]! - 1);
  }

  /** The first index at or after `from` whose name sorts after `name` (binary search). */
  private insertionPoint(name: string, from: number): number {
    let low = from;
    let high = this.names.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.names[middle]! < name) low = middle + 1;
      else high = middle;
    }
    return low;
  }
}
