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
import { escapeTerminalText } from '../terminal-text.js';
import { keyObject, meetsExpectation, valueText, type Expectation, type KeyFields } from './effect-key.js';
import type { KeyGroup, Snapshot, SnapshotResult } from './snapshot.js';

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

function countDiff(before: readonly string[], after: readonly string[]): { gone: number; added: number } {
  const remaining = new Map<string, number>();
  for (const text of before) remaining.set(text, (remaining.get(text) ?? 0) + 1);
  let added = 0;
  for (const text of after) {
    const n = remaining.get(text) ?? 0;
    if (n > 0) remaining.set(text, n - 1);
    else added++;
  }
  let gone = 0;
  for (const n of remaining.values()) gone += n;
  return { gone, added };
}

/** Per key in either snapshot: records before and after, created, removed, changed; unchanged keys left out. */
export function diffSnapshots(before: Snapshot, after: Snapshot): KeyDiff[] {
  const ids = new Set<string>([...before.groups.keys(), ...after.groups.keys()]);
  const diffs: KeyDiff[] = [];
  for (const id of ids) {
    const was: KeyGroup | undefined = before.groups.get(id);
    const now: KeyGroup | undefined = after.groups.get(id);
    const b = was?.records ?? [];
    const a = now?.records ?? [];
    const { gone, added } = countDiff(b, a);
    if (gone === 0 && added === 0) continue;
    diffs.push({
      key: (now ?? was)!.key,
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
