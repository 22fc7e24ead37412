/**
 * The bounded form of a listing (src/domain/effects/bounded-listing.ts), shared by the effects view's snapshots
 * and probe's --count-with evidence (issue 41 §9): count, hash of all items in order, the first few cut.
 */
import { describe, expect, it } from 'vitest';
import { boundedListing, LISTING_HEAD, LISTING_HEAD_CHARS } from '../../../src/domain/effects/bounded-listing.js';
import { takeSnapshot } from '../../../src/domain/effects/snapshot.js';

describe('boundedListing', () => {
  it('keeps the count, a hash of every item in order and the first items cut, never the whole listing', () => {
    const items = Array.from({ length: 100_000 }, (_, i) => `item ${i} ${'x'.repeat(300)}`);
    const bounded = boundedListing(items);
    expect(bounded.count).toBe(100_000);
    expect(bounded.head).toHaveLength(LISTING_HEAD);
    expect(bounded.head[0]).toBe(`${items[0]!.slice(0, LISTING_HEAD_CHARS)}…`);
    expect(JSON.stringify(bounded).length).toBeLessThan(2000);
    // The hash sees every item and their order: a change at the end, or a swap, changes it.
    expect(boundedListing([...items.slice(0, -1), 'changed']).hash).not.toBe(bounded.hash);
    expect(boundedListing([items[1]!, items[0]!, ...items.slice(2)]).hash).not.toBe(bounded.hash);
    expect(boundedListing([...items]).hash).toBe(bounded.hash);
  });

  it("is the effects snapshot's bounded form too", () => {
    const listed = { items: [{ id: 1 }, { id: 2 }], form: 'json' as const, bytes: 20 };
    const taken = takeSnapshot(listed, ['id']);
    if (!taken.ok) throw new Error(taken.reason);
    const { count, hash, head } = taken.snapshot;
    expect({ count, hash, head }).toEqual(boundedListing(['{"id":1}', '{"id":2}']));
  });
});
