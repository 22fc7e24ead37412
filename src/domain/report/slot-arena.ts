/**
 * A byte arena that keeps the JSON text of many list entries so that a report can be written after
 * every call without re-serialising or re-encoding the whole list. Each entry lives in a slot padded with
 * spaces (JSON white space); the slots lie back to back in the order of their `order` number (the
 * operation's id), so the list body is always in that order, the same as the report view's. An entry
 * that outgrows its slot, a new entry placed before others and a removed entry shift the slots after it
 * (one `copyWithin`); the usual case, the newest entry changing or being added, touches only the end.
 * Each slot starts with a comma, so the list body is everything after the first byte.
 *
 * Lifetime: `body()` returns a view of the arena's own bytes, valid until the next `set` or `delete`
 * (see `ReportSink.publish`: a sink that keeps a document copies it). Pure: only TextEncoder and typed
 * arrays, no Node APIs.
 */
const SPACE = 0x20;
const COMMA = 0x2c;
const encoder = new TextEncoder();

interface Slot {
  order: number;
  offset: number;
  size: number;
}

export class SlotArena<K> {
  private bytes = new Uint8Array(16 * 1024);
  private used = 0;
  private readonly slots = new Map<K, Slot>();
  /** The slots by ascending `order`, hence by ascending offset, back to back from 0. */
  private readonly ordered: Slot[] = [];
  private scratch = new Uint8Array(1024);

  /** Number of live entries. */
  get size(): number {
    return this.slots.size;
  }

  /**
   * Sets (or replaces) the JSON text of one entry; `text` may hold several comma-joined entries. `order`
   * places the entry in the list (ascending); it must be unique per key and never change for a key.
   */
  set(key: K, order: number, text: string): void {
    const length = this.encode(text);
    const needed = length + 1;
    const slot = this.slots.get(key);
    if (slot !== undefined && needed <= slot.size) {
      this.fill(slot, length);
      return;
    }
    // Room for the usual growth of an entry (counters gaining a digit, a key added) without shifting.
    const size = needed + 16;
    if (slot !== undefined) {
      // An entry that grew once tends to grow again (keys added one by one): half its size more, so
      // the slots after it are shifted a few times per entry, not on every new key.
      const grown = needed + Math.max(16, needed >> 1);
      const index = this.indexOf(slot.order);
      this.shift(index + 1, slot.offset + slot.size, grown - slot.size);
      slot.size = grown;
      this.fill(slot, length);
      return;
    }
    const index = this.indexOf(order);
    const offset = index < this.ordered.length ? this.ordered[index]!.offset : this.used;
    this.shift(index, offset, size);
    const fresh = { order, offset, size };
    this.ordered.splice(index, 0, fresh);
    this.slots.set(key, fresh);
    this.fill(fresh, length);
  }

  /** Removes an entry. */
  delete(key: K): void {
    const slot = this.slots.get(key);
    if (slot === undefined) return;
    this.slots.delete(key);
    const index = this.indexOf(slot.order);
    this.ordered.splice(index, 1);
    this.shift(index, slot.offset + slot.size, -slot.size);
  }

  /**
   * The list body (entries joined by commas, padded with spaces), to be written between `[` and `]`.
   * A view of the arena's bytes: valid until the next `set` or `delete`.
   */
  body(): Uint8Array {
    return this.used === 0 ? new Uint8Array(0) : this.bytes.subarray(1, this.used);
  }

  /** The index of the first slot whose order is not below `order` (binary search). */
  private indexOf(order: number): number {
    let low = 0;
    let high = this.ordered.length;
    if (high > 0 && this.ordered[high - 1]!.order < order) return high; // the usual case: a new last entry
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.ordered[mid]!.order < order) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  /** Moves the bytes from `from` to the end by `delta`, and the offsets of the slots from `index` on. */
  private shift(index: number, from: number, delta: number): void {
    if (delta === 0) return;
    if (delta > 0) this.reserve(delta);
    if (from < this.used) this.bytes.copyWithin(from + delta, from, this.used);
    this.used += delta;
    for (let i = index; i < this.ordered.length; i++) this.ordered[i]!.offset += delta;
  }

  private encode(text: string): number {
    if (this.scratch.length < text.length * 3) this.scratch = new Uint8Array(Math.max(text.length * 3, this.scratch.length * 2));
    return encoder.encodeInto(text, this.scratch).written;
  }

  private fill(slot: Slot, length: number): void {
    this.bytes[slot.offset] = COMMA;
    this.bytes.set(this.scratch.subarray(0, length), slot.offset + 1);
    this.bytes.fill(SPACE, slot.offset + 1 + length, slot.offset + slot.size);
  }

  private reserve(extra: number): void {
    if (this.used + extra <= this.bytes.length) return;
    let capacity = this.bytes.length * 2;
    while (capacity < this.used + extra) capacity *= 2;
    const grown = new Uint8Array(capacity);
    grown.set(this.bytes.subarray(0, this.used));
    this.bytes = grown;
  }
}
