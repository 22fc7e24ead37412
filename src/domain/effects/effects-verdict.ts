/**
 * The diff of two snapshots per effect key and the effects verdict, which stands beside the
 * execution verdict and never changes it:
 * - EFFECTS_UNKNOWN: a snapshot is missing (failed, timed out, too large, unreadable) — the reason says which;
 * - DUPLICATE_EFFECT: a key (or an expectation) got two or more new records (the reason also names any lost one);
 * - LOST_EFFECT: an expected key got no new record;
 * - EXACTLY_ONCE: every expected key got one and no key more than one (with no expectation: at least one
 *   new record, none doubled);
 * - NO_EFFECT: no new record and nothing expected.
 * Removed and changed records (same key, other fields) are counted and listed; they never change the
 * verdict. An expectation matches every stored key whose values have its texts (129 and "129"); their new
 * records are added up. Pure.
 */
import { ownValue } from '../json.js';
import { escapeTerminalText } from '../text/terminal-text.js';
import { keyObject, meetsExpectation, valueText, type Expectation, type KeyFields } from './effect-key.js';
import type { Snapshot, SnapshotResult } from './snapshot.js';

export type EffectsVerdict = 'DUPLICATE_EFFECT' | 'LOST_EFFECT' | 'EXACTLY_ONCE' | 'NO_EFFECT' | 'EFFECTS_UNKNOWN';

/** One key's change between the snapshots. */
export interface KeyDiff {
  key: KeyFields;
  before: number;
  after: number;
  /** after − before, when positive. */
  created: number;
  /** before − after, when positive. */
  removed: number;
  /** Records of the key whose other fields differ (a record replaced by another under the same key). */
  changed: number;
  /** The expectation(s) this key meets, as given. */
  expected: string[];
}

export interface EffectsResult {
  verdict: EffectsVerdict;
  reason: string;
  /** Every key that changed and every expected key (an unmet expectation as its own texts, 0 → 0). */
  keys: KeyDiff[];
}

/**
 * The records of each listing that the other lacks, as indices: equal texts paired off, first the common
 * head and tail of the two listings in place (a listing read twice is mostly the same records in the same
 * order), then the rest by text. Equal texts are equal records, so of one key (the key is read from the
 * record), and what is left is per key exactly its records' multiset difference.
 */
function unpaired(before: readonly string[], after: readonly string[]): { gone: number[]; added: number[] } {
  let start = 0;
  const shorter = Math.min(before.length, after.length);
  while (start < shorter && before[start] === after[start]) start++;
  let endB = before.length;
  let endA = after.length;
  while (endB > start && endA > start && before[endB - 1] === after[endA - 1]) {
    endB--;
    endA--;
  }
  const gone: number[] = [];
  const added: number[] = [];
  if (start === endB) {
    for (let i = start; i < endA; i++) added.push(i);
    return { gone, added };
  }
  if (start === endA) {
    for (let i = start; i < endB; i++) gone.push(i);
    return { gone, added };
  }
  const remaining = new Map<string, number>();
  for (let i = start; i < endB; i++) remaining.set(before[i]!, (remaining.get(before[i]!) ?? 0) + 1);
  for (let i = start; i < endA; i++) {
    const n = remaining.get(after[i]!) ?? 0;
    if (n > 0) remaining.set(after[i]!, n - 1);
    else added.push(i);
  }
  for (let i = start; i < endB; i++) {
    const n = remaining.get(before[i]!) ?? 0;
    if (n > 0) {
      remaining.set(before[i]!, n - 1);
      gone.push(i);
    }
  }
  return { gone, added };
}

/** A key a diff names, counted over both listings. */
interface Tally {
  /** Where the key is first listed: in the snapshot after when it is there, else in the one before. */
  at: { snapshot: Snapshot; index: number };
  before: number;
  after: number;
  gone: number;
  added: number;
}

/**
 * Per key in either snapshot: records before and after, created, removed, changed; unchanged keys left
 * out. In the order the keys are first listed before, then the keys only the snapshot after lists.
 */
export function diffSnapshots(before: Snapshot, after: Snapshot): KeyDiff[] {
  const { gone, added } = unpaired(before.texts, after.texts);
  if (gone.length === 0 && added.length === 0) return [];
  const tallies = new Map<string, Tally>();
  const tally = (id: string): Tally => {
    let t = tallies.get(id);
    if (t === undefined) {
      t = { at: { snapshot: before, index: -1 }, before: 0, after: 0, gone: 0, added: 0 };
      tallies.set(id, t);
    }
    return t;
  };
  for (const i of gone) tally(before.ids[i]!).gone++;
  for (const i of added) tally(after.ids[i]!).added++;
  const order: string[] = [];
  const firstAfter: string[] = [];
  for (let i = 0; i < before.ids.length; i++) {
    const t = tallies.get(before.ids[i]!);
    if (t === undefined) continue;
    if (t.before++ === 0) {
      order.push(before.ids[i]!);
      t.at = { snapshot: before, index: i };
    }
  }
  for (let i = 0; i < after.ids.length; i++) {
    const t = tallies.get(after.ids[i]!);
    if (t === undefined) continue;
    if (t.after++ === 0) {
      if (t.before === 0) firstAfter.push(after.ids[i]!);
      t.at = { snapshot: after, index: i };
    }
  }
  return [...order, ...firstAfter].map((id) => {
    const t = tallies.get(id)!;
    return {
      key: keyObject(t.at.snapshot.keyFields, t.at.snapshot.keyValuesAt(t.at.index)),
      before: t.before,
      after: t.after,
      created: Math.max(0, t.after - t.before),
      removed: Math.max(0, t.before - t.after),
      changed: Math.min(t.gone, t.added),
      expected: [],
    };
  });
}

function keyValues(diff: KeyDiff): unknown[] {
  return Object.keys(diff.key).map((field) => ownValue(diff.key, field));
}

/** A key for reasons and the terminal: `guest=Ann Lee,date=2026-05-01`, terminal-safe. */
export function keyText(key: KeyFields): string {
  return escapeTerminalText(
    Object.keys(key)
      .map((field) => `${field}=${valueText(ownValue(key, field))}`)
      .join(','),
  );
}

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** Judges the run's effects from the snapshot before, the one after and the expected effects. */
export function judgeEffects(
  before: SnapshotResult,
  after: SnapshotResult,
  expectations: readonly Expectation[] = [],
): EffectsResult {
  if (!before.ok) return { verdict: 'EFFECTS_UNKNOWN', reason: `the snapshot before the run failed: ${before.reason}`, keys: [] };
  if (!after.ok) return { verdict: 'EFFECTS_UNKNOWN', reason: `the snapshot after the run failed: ${after.reason}`, keys: [] };
  const diffs = diffSnapshots(before.snapshot, after.snapshot);
  const keyFields = after.snapshot.keyFields;
  const unmet: KeyDiff[] = [];
  const expectedCreated = expectations.map((expectation) => {
    let created = 0;
    let matched = false;
    for (const diff of diffs)
      if (meetsExpectation(keyValues(diff), expectation)) {
        diff.expected.push(expectation.text);
        created += diff.created;
        matched = true;
      }
    if (!matched) {
      // Not among the changed keys: the key as expected, with its unchanged count if the backend holds it.
      const held = [...after.snapshot.groups.values()].filter((g) => meetsExpectation(g.values, expectation));
      const count = held.reduce((n, g) => n + g.records.length, 0);
      const key = held.length === 1 ? held[0]!.key : keyObject(keyFields, expectation.values);
      unmet.push({ key, before: count, after: count, created: 0, removed: 0, changed: 0, expected: [expectation.text] });
    }
    return created;
  });
  const keys = [...diffs, ...unmet];
  const doubled = diffs.filter((d) => d.created >= 2).map((d) => `${keyText(d.key)} (${d.created} new)`);
  expectations.forEach((expectation, i) => {
    const alone = diffs.filter((d) => d.expected.includes(expectation.text));
    if (expectedCreated[i]! >= 2 && !alone.some((d) => d.created >= 2))
      doubled.push(`${escapeTerminalText(expectation.text)} (${expectedCreated[i]} new across ${alone.length} stored keys)`);
  });
  const lost = expectations.filter((_, i) => expectedCreated[i] === 0).map((e) => escapeTerminalText(e.text));
  const created = diffs.reduce((n, d) => n + d.created, 0);
  const removed = diffs.reduce((n, d) => n + d.removed, 0);
  const changed = diffs.reduce((n, d) => n + d.changed, 0);
  const also = [
    removed > 0 ? plural(removed, 'record removed', 'records removed') : '',
    changed > 0 ? plural(changed, 'record changed', 'records changed') : '',
  ]
    .filter((s) => s !== '')
    .join(', ');
  const tail = also === '' ? '' : `; ${also} (listed, not judged)`;
  if (doubled.length > 0) {
    const lostText = lost.length > 0 ? `; also lost (no new record): ${lost.join('; ')}` : '';
    return {
      verdict: 'DUPLICATE_EFFECT',
      reason: `${plural(doubled.length, 'key', 'keys')} got two or more new records: ${doubled.join('; ')}${lostText}${tail}`,
      keys,
    };
  }
  if (lost.length > 0)
    return {
      verdict: 'LOST_EFFECT',
      reason: `${plural(lost.length, 'expected effect', 'expected effects')} got no new record: ${lost.join('; ')}${tail}`,
      keys,
    };
  if (expectations.length > 0)
    return {
      verdict: 'EXACTLY_ONCE',
      reason: `every expected effect got exactly one new record (${plural(created, 'new record', 'new records')} in all)${tail}`,
      keys,
    };
  if (created > 0)
    return {
      verdict: 'EXACTLY_ONCE',
      reason: `${plural(created, 'new record', 'new records')}, no key more than one${tail}`,
      keys,
    };
  return { verdict: 'NO_EFFECT', reason: `no new record and none expected${tail}`, keys };
}
