import { describe, expect, it } from 'vitest';
import { parseExpectation, type Expectation } from '../../../src/domain/effects/effect-key.js';
import { diffSnapshots, judgeEffects, keyText } from '../../../src/domain/effects/effects-verdict.js';
import { takeSnapshot, type Snapshot, type SnapshotResult } from '../../../src/domain/effects/snapshot.js';

const KEY = ['guest', 'date'];
const snap = (records: unknown[], key = KEY): SnapshotResult => takeSnapshot({ items: records, form: 'json', bytes: 1 }, key);
const ok = (records: unknown[], key = KEY): Snapshot => {
  const result = snap(records, key);
  if (!result.ok) throw new Error(result.reason);
  return result.snapshot;
};
const expect_ = (text: string, key = KEY): Expectation => {
  const parsed = parseExpectation(text, key);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.value;
};
const ann = { guest: 'Ann Lee', date: '2026-05-01' };
const bob = { guest: 'Bob', date: '2026-05-02' };

describe('effects: the diff per key', () => {
  it('counts before, after, created, removed and changed per key; unchanged keys left out', () => {
    const before = ok([
      { ...ann, id: 1 },
      { ...bob, id: 2, status: 'held' },
      { guest: 'Cy', date: 'x', id: 3 },
    ]);
    const after = ok([
      { ...ann, id: 1 },
      { ...ann, id: 4 },
      { ...bob, id: 2, status: 'paid' },
    ]);
    expect(diffSnapshots(before, after)).toEqual([
      { key: ann, before: 1, after: 2, created: 1, removed: 0, changed: 0, expected: [] },
      { key: bob, before: 1, after: 1, created: 0, removed: 0, changed: 1, expected: [] },
      { key: { guest: 'Cy', date: 'x' }, before: 1, after: 0, created: 0, removed: 1, changed: 0, expected: [] },
    ]);
  });

  it('a record listed again in another field order is the same record', () => {
    expect(diffSnapshots(ok([{ ...ann, id: 1 }]), ok([{ id: 1, date: ann.date, guest: ann.guest }]))).toEqual([]);
  });
});

describe('effects: the verdict', () => {
  it('EXACTLY_ONCE: one new record, with and without an expectation', () => {
    const result = judgeEffects(snap([]), snap([{ ...ann, id: 1 }]));
    expect(result).toEqual({
      verdict: 'EXACTLY_ONCE',
      reason: '1 new record, no key more than one',
      keys: [{ key: ann, before: 0, after: 1, created: 1, removed: 0, changed: 0, expected: [] }],
    });
    const expected = judgeEffects(snap([]), snap([{ ...ann, id: 1 }]), [expect_('guest=Ann Lee,date=2026-05-01')]);
    expect(expected.verdict).toBe('EXACTLY_ONCE');
    expect(expected.reason).toBe('every expected effect got exactly one new record (1 new record in all)');
    expect(expected.keys[0]!.expected).toEqual(['guest=Ann Lee,date=2026-05-01']);
  });

  it('DUPLICATE_EFFECT: a key got two or more new records, however they were sent', () => {
    const result = judgeEffects(
      snap([{ ...ann, id: 0 }]),
      snap([
        { ...ann, id: 0 },
        { ...ann, id: 1 },
        { ...ann, id: 2 },
      ]),
    );
    expect(result.verdict).toBe('DUPLICATE_EFFECT');
    expect(result.reason).toBe('1 key got two or more new records: guest=Ann Lee,date=2026-05-01 (2 new)');
    expect(result.keys).toEqual([{ key: ann, before: 1, after: 3, created: 2, removed: 0, changed: 0, expected: [] }]);
  });

  it('DUPLICATE_EFFECT comes before LOST_EFFECT, and its reason names the lost key', () => {
    const result = judgeEffects(
      snap([]),
      snap([
        { ...ann, id: 1 },
        { ...ann, id: 2 },
      ]),
      [expect_('guest=Ann Lee,date=2026-05-01'), expect_('guest=Bob,date=2026-05-02')],
    );
    expect(result.verdict).toBe('DUPLICATE_EFFECT');
    expect(result.reason).toBe(
      '1 key got two or more new records: guest=Ann Lee,date=2026-05-01 (2 new); also lost (no new record): guest=Bob,date=2026-05-02',
    );
    expect(result.keys).toEqual([
      { key: ann, before: 0, after: 2, created: 2, removed: 0, changed: 0, expected: ['guest=Ann Lee,date=2026-05-01'] },
      { key: bob, before: 0, after: 0, created: 0, removed: 0, changed: 0, expected: ['guest=Bob,date=2026-05-02'] },
    ]);
  });

  it('LOST_EFFECT: an expected key got no new record (an unchanged held record is not new)', () => {
    const result = judgeEffects(snap([{ ...bob, id: 1 }]), snap([{ ...bob, id: 1 }]), [expect_('guest=Bob,date=2026-05-02')]);
    expect(result).toEqual({
      verdict: 'LOST_EFFECT',
      reason: '1 expected effect got no new record: guest=Bob,date=2026-05-02',
      keys: [{ key: bob, before: 1, after: 1, created: 0, removed: 0, changed: 0, expected: ['guest=Bob,date=2026-05-02'] }],
    });
  });

  it('NO_EFFECT: nothing new and nothing expected; removed and changed are listed, not judged', () => {
    expect(judgeEffects(snap([{ ...ann, id: 1 }]), snap([{ ...ann, id: 1 }]))).toEqual({
      verdict: 'NO_EFFECT',
      reason: 'no new record and none expected',
      keys: [],
    });
    const result = judgeEffects(snap([{ ...ann, s: 1 }, { ...bob }]), snap([{ ...ann, s: 2 }]));
    expect(result.verdict).toBe('NO_EFFECT');
    expect(result.reason).toBe('no new record and none expected; 1 record removed, 1 record changed (listed, not judged)');
    expect(result.keys.map((k) => [k.changed, k.removed])).toEqual([
      [1, 0],
      [0, 1],
    ]);
    const once = judgeEffects(snap([{ ...bob }]), snap([{ ...ann }]));
    expect(once.verdict).toBe('EXACTLY_ONCE');
    expect(once.reason).toBe('1 new record, no key more than one; 1 record removed (listed, not judged)');
  });

  it('EFFECTS_UNKNOWN comes first, with the reason of the snapshot that failed', () => {
    const lost = [expect_('guest=Bob,date=2026-05-02')];
    expect(judgeEffects({ ok: false, reason: 'the tool timed out' }, snap([]), lost)).toEqual({
      verdict: 'EFFECTS_UNKNOWN',
      reason: 'the snapshot before the run failed: the tool timed out',
      keys: [],
    });
    expect(judgeEffects(snap([]), snap([{ guest: 'x' }]), lost)).toEqual({
      verdict: 'EFFECTS_UNKNOWN',
      reason: "the snapshot after the run failed: record 1 of the effects view has no field 'date' (--effect-key guest,date)",
      keys: [],
    });
  });

  it('values compared as stored, expectations by text: 129 and "129" are two keys, both meet amount=129', () => {
    const key = ['amount'];
    const result = judgeEffects(snap([], key), snap([{ amount: 129 }, { amount: '129' }], key));
    expect(result.verdict).toBe('EXACTLY_ONCE');
    expect(result.keys.map((k) => k.key)).toEqual([{ amount: 129 }, { amount: '129' }]);
    const expected = judgeEffects(snap([], key), snap([{ amount: 129 }, { amount: '129' }], key), [expect_('amount=129', key)]);
    expect(expected.verdict).toBe('DUPLICATE_EFFECT');
    expect(expected.reason).toBe('1 key got two or more new records: amount=129 (2 new across 2 stored keys)');
    expect(judgeEffects(snap([], key), snap([{ amount: '129' }], key), [expect_('amount=129', key)]).verdict).toBe(
      'EXACTLY_ONCE',
    );
  });

  it('__proto__ as a key field and as a value: own fields, no pollution, a readable key', () => {
    const key = ['__proto__'];
    const records = JSON.parse('[{"__proto__":{"polluted":1}},{"__proto__":{"polluted":1}}]') as unknown[];
    const result = judgeEffects(snap([], key), snap(records, key));
    expect(result.verdict).toBe('DUPLICATE_EFFECT');
    expect(result.reason).toBe('1 key got two or more new records: __proto__={"polluted":1} (2 new)');
    expect(Object.hasOwn(result.keys[0]!.key, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    const valued = judgeEffects(snap([], ['guest']), snap([{ guest: '__proto__' }], ['guest']), [
      expect_('guest=__proto__', ['guest']),
    ]);
    expect(valued.verdict).toBe('EXACTLY_ONCE');
  });

  it('record text in reasons is terminal-safe', () => {
    const key = ['guest'];
    const result = judgeEffects(snap([], key), snap([{ guest: 'A\u001b[2J' }, { guest: 'A\u001b[2J' }], key));
    expect(result.reason).toBe('1 key got two or more new records: guest=A\\u001b[2J (2 new)');
    expect(keyText({ guest: 'x\u202ey' })).toBe('guest=x\\u202ey');
  });
});
