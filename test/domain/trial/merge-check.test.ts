import { describe, expect, it } from 'vitest';
import { checkMerge, compatibleVersions, type MergeSource } from '../../../src/domain/trial/merge-check.js';

const source = (label: string, overrides: Partial<MergeSource> = {}): MergeSource => ({
  label,
  kind: 'trial',
  harnessVersion: '0.6.0',
  scenarios: ['F1', 'F2'],
  configuration: 'cfg-1',
  shard: null,
  ...overrides,
});
const message = (sources: MergeSource[]): string => {
  const decision = checkMerge(sources);
  if (decision.ok) throw new Error('expected a refusal');
  return decision.message;
};

describe('checkMerge: which run folders `stats` may pool', () => {
  it('merges whole trials of one configuration, and a complete set of shards without warnings', () => {
    expect(checkMerge([source('a'), source('b', { scenarios: ['F2', 'F1', 'F1'], harnessVersion: '0.6.3' })])).toEqual({
      ok: true,
      warnings: [],
    });
    const shards = [1, 2, 3].map((index) => source(`s${index}`, { shard: { index, count: 3 } }));
    expect(checkMerge(shards)).toEqual({ ok: true, warnings: [] });
  });

  it('refuses nothing to merge', () => {
    expect(message([])).toBe('cannot merge: no trial or report folder with runs was given');
  });

  it('refuses reports of incompatible harness versions', () => {
    expect(message([source('a'), source('b', { harnessVersion: '0.5.1' })])).toBe(
      'cannot merge: a was made by harness 0.6.0 and b by 0.5.1; their reports differ',
    );
  });

  it('refuses different scenario sets', () => {
    expect(message([source('a'), source('b', { scenarios: ['F3'] })])).toBe(
      'cannot merge: a ran scenarios F1,F2 and b ran F3; merge runs of one scenario set at a time',
    );
  });

  it('names every setting that differs with its two values, when both trials recorded their settings', () => {
    const settings = { '--model': 'm', 'F1 --hold': 'none', 'F1 --fault-on': '1', '--agent-env-var': '(none)' };
    const a = source('a', { settings });
    const b = source('b', {
      configuration: 'cfg-2',
      settings: { ...settings, 'F1 --hold': '5000 ms', '--agent-env-var': 'MODE', '--agent-env-var MODE': 'sha256:ab' },
    });
    expect(message([a, b])).toBe(
      'cannot merge: a and b measured different things: --agent-env-var is (none) in a but MODE in b; ' +
        '--agent-env-var MODE is (not set) in a but sha256:ab in b; F1 --hold is none in a but 5000 ms in b',
    );
    const many = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`s${i}`, String(i)]));
    expect(message([source('a', { settings: {} }), source('b', { configuration: 'x', settings: many })])).toMatch(
      /s7 is \(not set\) in a but 7 in b; and 2 more settings$/,
    );
    // A trial that did not record its settings: the fingerprint alone, named as before.
    expect(message([a, source('b', { configuration: 'cfg-2' })])).toContain('different configurations');
  });

  it('refuses different configurations, and trials mixed with proxy sessions', () => {
    expect(message([source('a'), source('b', { configuration: 'cfg-2' })])).toContain('different configurations');
    expect(message([source('a'), source('p', { kind: 'proxy-session', configuration: null })])).toBe(
      'cannot merge: a is a trial and p a proxy session; their agents are not the same',
    );
    expect(
      checkMerge([
        source('p', { kind: 'proxy-session', configuration: null }),
        source('q', { kind: 'proxy-session', configuration: null }),
      ]).ok,
    ).toBe(true);
  });

  it('refuses a shard twice, shards of different splits, and a shard with a whole trial', () => {
    expect(message([source('x', { shard: { index: 2, count: 4 } }), source('y', { shard: { index: 2, count: 4 } })])).toBe(
      'cannot merge: shard 2/4 appears twice (x and y); its runs would be counted twice',
    );
    expect(message([source('x', { shard: { index: 1, count: 4 } }), source('y', { shard: { index: 2, count: 3 } })])).toContain(
      'one of 4 shards and y one of 3',
    );
    expect(message([source('x', { shard: { index: 1, count: 2 } }), source('w')])).toContain(
      'x is shard 1/2 of a trial and w a whole trial',
    );
  });

  it('merges an incomplete set of shards with a warning naming the missing ones', () => {
    expect(checkMerge([source('x', { shard: { index: 2, count: 4 } })])).toEqual({
      ok: true,
      warnings: ['shards 1/4, 3/4, 4/4 missing: the summary covers 1 of 4 shards'],
    });
  });
});

describe('compatibleVersions', () => {
  it('same minor before 1.0, same major after; anything else must match exactly', () => {
    expect(compatibleVersions('0.6.0', '0.6.9')).toBe(true);
    expect(compatibleVersions('0.6.0', '0.7.0')).toBe(false);
    expect(compatibleVersions('1.2.0', '1.9.3')).toBe(true);
    expect(compatibleVersions('1.2.0', '2.0.0')).toBe(false);
    expect(compatibleVersions('0.6.0-rc.1', '0.6.0')).toBe(true);
    expect(compatibleVersions('dev', 'dev')).toBe(true);
    expect(compatibleVersions('dev', '0.6.0')).toBe(false);
  });
});
