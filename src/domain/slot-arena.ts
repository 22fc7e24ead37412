/**
 * A byte arena that keeps the JSON text of many list entries so that a report can be written after
 * every call without re-serialising or re-encoding the whole list. Each entry lives in a slot padded with
 * spaces (JSON white space); an entry that grows beyond its slot moves to the end and its old slot turns
 * into spaces; when more than half the arena is such garbage it is compacted back into entry order.
 * Each slot starts with a comma, so the list body is everything after the first live slot's comma.
 * Pure: only TextEncoder and typed arrays, no Node APIs.
 */
const SPACE = 0x20;
const COMMA = 0x2c;
const encoder = new TextEncoder();

interface Slot {
  offset: number;
  size: number;
}

export class SlotArena<K> {
  private bytes = new Uint8Array(16 * 1024);
  private used = 0;
  private garbage = 0;
  /** Every byte before this offset is garbage (spaces). */
  private spacesUntil = 0;
  private readonly slots = new Map<K, Slot>();
  private scratch = new Uint8Array(1024);

  /** Number of live entries. */
  get size(): number {
    return this.slots.size;
  }

  /** Sets (or replaces) the JSON text of one entry; `text` may hold several comma-joined entries. */
  set(key: K, text: string): void {
    const length = this.encode(text);
    const needed = length + 1;
    const slot = this.slots.get(key);
    if (slot !== undefined && needed <= slot.size) {
      this.fill(slot, length);
      return;
    }
    if (slot !== undefined) this.free(slot);
    // Room for the usual growth of an entry (counters gaining a digit, a key added) without moving it.
    const size = needed + 16;
    this.reserve(size);
    const fresh = { offset: this.used, size };
    this.used += size;
    this.slots.set(key, fresh); // an existing key keeps its place, so compaction restores entry order
    this.fill(fresh, length);
    if (this.garbage > 64 * 1024 && this.garbage * 2 > this.used) this.compact();
  }

  /** Removes an entry. */
  delete(key: K): void {
    const slot = this.slots.get(key);
    if (slot === undefined) return;
    this.slots.delete(key);
    this.free(slot);
  }

  /** The list body (entries joined by commas, padded with spaces), to be written between `[` and `]`. */
  body(): Uint8Array {
    let start = this.spacesUntil;
    while (start < this.used && this.bytes[start] === SPACE) start++;
    this.spacesUntil = start;
    return start >= this.used ? new Uint8Array(0) : this.bytes.subarray(start + 1, this.used);
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

  private free(slot: Slot): void {
    this.bytes.fill(SPACE, slot.offset, slot.offset + slot.size);
    this.garbage += slot.size;
  }

  private reserve(extra: number): void {
    if (this.used + extra <= this.bytes.length) return;
    let capacity = this.bytes.length * 2;
    while (capacity < this.used + extra) capacity *= 2;
    const grown = new Uint8Array(capacity);
    grown.set(this.bytes.subarray(0, this.used));
    this.bytes = grown;
  }

  /** Rewrites the live slots in entry order, dropping the garbage. */
  private compact(): void {
    const old = this.bytes;
    const fresh = new Uint8Array(Math.max(16 * 1024, old.length));
    let offset = 0;
    for (const slot of this.slots.values()) {
      fresh.set(old.subarray(slot.offset, slot.offset + slot.size), offset);
      slot.offset = offset;
      offset += slot.size;
    }
    this.bytes = fresh;
    this.used = offset;
    this.garbage = 0;
    this.spacesUntil = 0;
  }
}
