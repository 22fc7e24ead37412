import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { keyIdentity, keyObject, recordKey } from '../../../src/domain/effects/effect-key.js';
import { diffSnapshots } from '../../../src/domain/effects/effects-verdict.js';
import { takeSnapshot, type Snapshot } from '../../../src/domain/effects/snapshot.js';
import { LISTING_HEAD, LISTING_HEAD_CHARS } from '../../../src/domain/effects/bounded-listing.js';
import { canonicalJson, hashJoined, hashText } from '../../../src/domain/json.js';
import { propertyRuns } from '../../support/property-runs.js';

/**
 * The snapshot and the diff written the plain way (as they were before the fast reading of issue 39 (f)):
 * every record's text by canonicalJson, its key by recordKey and keyIdentity, grouped per key; the diff
 * per key as the multiset difference of its texts. The fast snapshot and diff must give exactly this.
 */
interface PlainGroup {
  key: Record<string, unknown>;
  values: unknown[];
  records: string[];
}

function plainSnapshot(
  records: unknown[],
  keyFields: readonly string[],
): { ok: true; groups: Map<string, PlainGroup>; count: number; hash: string; head: string[] } | { ok: false; reason: string } {
  const groups = new Map<string, PlainGroup>();
  const texts: string[] = [];
  for (let i = 0; i < records.length; i++) {
    const key = recordKey(records[i], keyFields);
    if (!key.ok)
      return {
        ok: false,
        reason: `record ${i + 1} of the effects view has no field '${key.missing}' (--effect-key ${keyFields.join(',')})`,
      };
    const text = canonicalJson(records[i]);
    texts.push(text);
    const id = keyIdentity(key.values);
    const group = groups.get(id);
    if (group === undefined) groups.set(id, { key: keyObject(keyFields, key.values), values: key.values, records: [text] });
    else group.records.push(text);
  }
  const head = texts
    .slice(0, LISTING_HEAD)
    .map((t) => (t.length > LISTING_HEAD_CHARS ? `${t.slice(0, LISTING_HEAD_CHARS)}…` : t));
  return { ok: true, groups, count: texts.length, hash: hashText(texts.join('\n')), head };
}

function plainDiff(before: Map<string, PlainGroup>, after: Map<string, PlainGroup>): unknown[] {
  const diffs: unknown[] = [];
  for (const id of new Set([...before.keys(), ...after.keys()])) {
    const b = before.get(id)?.records ?? [];
    const a = after.get(id)?.records ?? [];
    const remaining = new Map<string, number>();
    for (const t of b) remaining.set(t, (remaining.get(t) ?? 0) + 1);
    let added = 0;
    for (const t of a) {
      const n = remaining.get(t) ?? 0;
      if (n > 0) remaining.set(t, n - 1);
      else added++;
    }
    let gone = 0;
    for (const n of remaining.values()) gone += n;
    if (gone === 0 && added === 0) continue;
    diffs.push({
      key: (after.get(id) ?? before.get(id))!.key,
      before: b.length,
      after: a.length,
      created: Math.max(0, a.length - b.length),
      removed: Math.max(0, b.length - a.length),
      changed: Math.min(gone, added),
      expected: [],
    });
  }
  return diffs;
}

/** An object with its fields defined in the order given (`__proto__` an own field like any other). */
function record(fields: Array<[string, unknown]>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of fields)
    Object.defineProperty(out, name, { value, enumerable: true, writable: true, configurable: true });
  return out;
}

const value = fc.oneof(
  fc.constantFrom('Ann', 'Bob', 'a"b', 'é', '\u0001', '\ud800', '129', '2026-05-01'),
  fc.constantFrom(0, -0, 1, 129, 1.5, 1e21),
  fc.constantFrom(true, false, null),
  fc.constant({ nested: [1, 'x'] }),
  fc.constant([1, 2]),
);
const fieldName = fc.constantFrom('guest', 'date', 'id', 'n', 'note', '__proto__', '10');
const aRecord = fc
  .uniqueArray(fc.tuple(fieldName, value), { selector: ([name]) => name, maxLength: 5 })
  .map((fields) => record(fields));
/** Mostly records of one shape (as a real listing), some of others. */
const shaped = fc
  .tuple(
    fc.constantFrom('Ann', 'Bob', 'Cy', 129, '129'),
    fc.constantFrom('2026-05-01', '2026-05-02'),
    fc.integer({ min: 0, max: 3 }),
  )
  .map(([guest, date, id]) => ({ id, guest, date, status: 'held' }));
const listing = fc.array(fc.oneof({ weight: 4, arbitrary: shaped }, { weight: 1, arbitrary: aRecord }), { maxLength: 12 });
const keyFields = fc.constantFrom(['guest', 'date'], ['guest'], ['__proto__'], ['id']);

function groupsOf(snapshot: Snapshot): Array<[string, PlainGroup]> {
  return [...snapshot.groups].map(([id, g]) => [id, { key: g.key, values: g.values, records: g.records }]);
}

describe('effects: the fast snapshot and diff are the plain ones', () => {
  it('hashJoined is hashText of the texts joined by line feeds', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'binary' }), { maxLength: 6 }), (texts) => {
        expect(hashJoined(texts)).toBe(hashText(texts.join('\n')));
      }),
      { numRuns: propertyRuns(500) },
    );
  });

  it('the same texts, keys, groups, hash, head and diff as the plain way, for any listing', () => {
    fc.assert(
      fc.property(listing, listing, keyFields, (before, after, key) => {
        const fastBefore = takeSnapshot({ items: before, form: 'json', bytes: 1 }, key);
        const fastAfter = takeSnapshot({ items: after, form: 'json', bytes: 1 }, key);
        const plainBefore = plainSnapshot(before, key);
        const plainAfter = plainSnapshot(after, key);
        for (const [fast, plain] of [
          [fastBefore, plainBefore],
          [fastAfter, plainAfter],
        ] as const) {
          if (!plain.ok) {
            expect(fast).toEqual({ ok: false, reason: plain.reason });
            continue;
          }
          if (!fast.ok) throw new Error(fast.reason);
          expect(fast.snapshot.count).toBe(plain.count);
          expect(fast.snapshot.hash).toBe(plain.hash);
          expect(fast.snapshot.head).toEqual(plain.head);
          expect(groupsOf(fast.snapshot)).toEqual([...plain.groups]);
        }
        if (fastBefore.ok && fastAfter.ok && plainBefore.ok && plainAfter.ok)
          expect(diffSnapshots(fastBefore.snapshot, fastAfter.snapshot)).toEqual(
            plainDiff(plainBefore.groups, plainAfter.groups),
          );
      }),
      { numRuns: propertyRuns(2000) },
    );
  });

  it('a listing read again with records added, removed or moved anywhere: the diff of the plain way', () => {
    fc.assert(
      fc.property(
        fc.array(shaped, { maxLength: 30 }),
        fc.array(fc.tuple(fc.nat(40), fc.option(shaped)), { maxLength: 6 }),
        (before, edits) => {
          const after = [...before];
          for (const [at, inserted] of edits) {
            if (inserted === null) after.splice(at % Math.max(1, after.length), 1);
            else after.splice(at % (after.length + 1), 0, inserted);
          }
          const fastBefore = takeSnapshot({ items: before, form: 'json', bytes: 1 }, ['guest', 'date']);
          const fastAfter = takeSnapshot({ items: after, form: 'json', bytes: 1 }, ['guest', 'date']);
          const plainBefore = plainSnapshot(before, ['guest', 'date']);
          const plainAfter = plainSnapshot(after, ['guest', 'date']);
          if (!fastBefore.ok || !fastAfter.ok || !plainBefore.ok || !plainAfter.ok) throw new Error('no snapshot');
          expect(diffSnapshots(fastBefore.snapshot, fastAfter.snapshot)).toEqual(
            plainDiff(plainBefore.groups, plainAfter.groups),
          );
        },
      ),
      { numRuns: propertyRuns(2000) },
    );
  });
});
