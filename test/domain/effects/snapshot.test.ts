import { describe, expect, it } from 'vitest';
import type { AnswerItems } from '../../../src/domain/effects/answer-records.js';
import {
  boundedSnapshot,
  SNAPSHOT_HEAD,
  SNAPSHOT_MAX_BYTES,
  SNAPSHOT_MAX_RECORDS,
  takeSnapshot,
} from '../../../src/domain/effects/snapshot.js';

const listed = (items: unknown[], form: AnswerItems['form'] = 'json', bytes = 10): AnswerItems => ({ items, form, bytes });

describe('effects: snapshots', () => {
  it('groups records by effect key, in listing order', () => {
    const result = takeSnapshot(listed([{ g: 'a', n: 1 }, { g: 'b' }, { n: 2, g: 'a' }]), ['g']);
    if (!result.ok) throw new Error(result.reason);
    expect(result.snapshot.count).toBe(3);
    expect([...result.snapshot.groups.values()].map((g) => [g.key, g.records])).toEqual([
      [{ g: 'a' }, ['{"g":"a","n":1}', '{"g":"a","n":2}']],
      [{ g: 'b' }, ['{"g":"b"}']],
    ]);
  });

  it('a record without a key field, or a line of text, is no snapshot but a reason', () => {
    expect(takeSnapshot(listed([{ g: 'a' }, { h: 1 }]), ['g'])).toEqual({
      ok: false,
      reason: "record 2 of the effects view has no field 'g' (--effect-key g)",
    });
    expect(takeSnapshot(listed(['[FILE] a'], 'lines'), ['g'])).toEqual({
      ok: false,
      reason: 'record 1 of the effects view is a line of text, not a JSON record (--effect-key g)',
    });
  });

  it('more than 100 000 records or 10 MB is a reason', () => {
    const many = takeSnapshot(listed(Array.from({ length: SNAPSHOT_MAX_RECORDS + 1 }, () => ({ g: 1 }))), ['g']);
    expect(many).toEqual({ ok: false, reason: 'the effects view listed 100001 records, more than the bound of 100000' });
    expect(takeSnapshot(listed(Array.from({ length: SNAPSHOT_MAX_RECORDS }, (_, i) => ({ g: i }))), ['g']).ok).toBe(true);
    expect(takeSnapshot(listed([{ g: 1 }], 'json', SNAPSHOT_MAX_BYTES + 1), ['g'])).toEqual({
      ok: false,
      reason: `the effects view answered ${SNAPSHOT_MAX_BYTES + 1} bytes, more than the bound of ${SNAPSHOT_MAX_BYTES} (10 MB)`,
    });
    expect(takeSnapshot(listed([{ g: 1 }], 'json', SNAPSHOT_MAX_BYTES), ['g']).ok).toBe(true);
  });

  it('keeps a bounded form: count, hash, the first records cut short', () => {
    const records = Array.from({ length: 20 }, (_, i) => ({ g: i, note: 'x'.repeat(i === 0 ? 500 : 1) }));
    const bounded = boundedSnapshot(takeSnapshot(listed(records), ['g']));
    if (!bounded.ok) throw new Error(bounded.reason);
    expect(bounded.count).toBe(20);
    expect(bounded.head).toHaveLength(SNAPSHOT_HEAD);
    expect(bounded.head[0]!.length).toBe(201);
    expect(bounded.head[0]!.endsWith('…')).toBe(true);
    expect(bounded.head[1]).toBe('{"g":1,"note":"x"}');
    const same = boundedSnapshot(takeSnapshot(listed(records), ['g']));
    const other = boundedSnapshot(takeSnapshot(listed(records.slice(1)), ['g']));
    expect(same.ok && same.hash).toBe(bounded.hash);
    expect(other.ok && other.hash).not.toBe(bounded.hash);
    expect(boundedSnapshot({ ok: false, reason: 'timed out' })).toEqual({ ok: false, reason: 'timed out' });
  });
});
