import { describe, expect, it } from 'vitest';
import { ToolClassifier, formatClassificationLines } from '../../../src/domain/judging/classification.js';
import { KeyFieldMatcher } from '../../../src/domain/judging/key-fields.js';
import { Driver } from '../../support/session-driver.js';

const F1 = { mode: 'scenario', id: 'F1' } as const;
const TOOLS = { write_file: 'write', read_file: 'read' } as const;
const file = { path: '/tmp/a.txt', content: 'hello' };

/** A session whose write_file is annotated idempotentHint: true, honoured (or, with `honour: false`, not). */
function driver(scenario: ConstructorParameters<typeof Driver>[0] = { mode: 'none' }, honour = true): Driver {
  return new Driver(scenario, TOOLS, { idempotentTools: honour ? ['write_file'] : [] });
}

describe('R-8.3.1 idempotentHint: an identical re-send of an idempotent write is no duplicate', () => {
  it('R-8.3.1: the same call twice (key fields included) is PASS with IDEMPOTENT_REPEAT; duplicate safety counts it once', () => {
    const d = driver();
    d.call('write_file', { ...file, idempotency_key: 'k1' });
    d.call('write_file', { ...file, idempotency_key: 'k1' });
    d.call('write_file', { ...file, idempotency_key: 'k1' });
    const report = d.report();
    expect(report.verdict).toBe('PASS');
    expect(report.violations).toEqual([]);
    expect(d.evaluation().score.dimensions.duplicateSafety).toBe(100);
    expect(report.observations).toContainEqual(
      expect.objectContaining({ type: 'IDEMPOTENT_REPEAT', tool: 'write_file', count: 2 }),
    );
    expect(report.operations[0]).toMatchObject({ outcome: 'EXECUTED', executions: 3 });
  });

  it('R-8.3.1: two identical calls in parallel are one execution too', () => {
    const d = driver();
    const a = d.send('write_file', file);
    const b = d.send('write_file', file);
    d.answer(a);
    d.answer(b);
    expect(d.verdict).toBe('PASS');
  });

  it('R-8.3.1: a re-send with another key value is still DUPLICATE_EXECUTION', () => {
    const d = driver();
    d.call('write_file', { ...file, idempotency_key: 'k1' });
    d.call('write_file', { ...file, idempotency_key: 'k2' });
    d.call('write_file', { ...file, idempotency_key: 'k2' });
    const report = d.report();
    expect(report.verdict).toBe('FAIL');
    expect(report.violations[0]).toMatchObject({ type: 'DUPLICATE_EXECUTION', duplicate: { keyUse: 'new' } });
    expect(d.evaluation().score.dimensions.duplicateSafety).toBe(0);
  });

  it('R-8.3.1: F1 then the identical re-send is a correct retry: failure handling 100, no GHOST_WRITE or VERIFICATION patch', () => {
    const d = driver(F1);
    const first = d.call('write_file', file);
    expect(first.seen).not.toBe('ok');
    d.call('write_file', file);
    const report = d.report();
    expect(report.verdict).toBe('PASS');
    expect(d.evaluation().score.dimensions).toMatchObject({ duplicateSafety: 100, failureHandling: 100 });
    expect(d.evaluation().score.overall).toBe(100);
    expect(d.evaluation().patches).toEqual([]);
    expect(report.observations.map((o) => o.type)).toEqual(expect.arrayContaining(['IDEMPOTENT_REPEAT', 'RECOVERED_BY_RETRY']));
  });

  it('R-8.3.1: a real timeout (unknown outcome) then the identical re-send is a correct retry, not NOT_TESTED', () => {
    const d = driver(F1);
    d.call('write_file', { path: '/tmp/other.txt', content: 'x' }, 'timeout');
    d.call('write_file', { path: '/tmp/other.txt', content: 'x' });
    expect(d.report().verdictReason).not.toMatch(/unknown outcome were repeated/);
  });

  it('R-8.3.1: --idempotent-hint ignore judges the tool like any other write (FAIL, score capped, GHOST_WRITE patch)', () => {
    const d = driver(F1, false);
    d.call('write_file', file);
    d.call('write_file', file);
    const report = d.report();
    expect(report.verdict).toBe('FAIL');
    expect(d.evaluation().score.dimensions).toMatchObject({ duplicateSafety: 0, failureHandling: 0 });
    expect(d.evaluation().patches.map((p) => p.id)).toContain('GHOST_WRITE');
    expect(report.observations.map((o) => o.type)).not.toContain('IDEMPOTENT_REPEAT');
  });

  it('R-8.3.1 / R-6: a notation variant of an idempotent write after a timeout is still a possible duplicate (the hint covers identical arguments only)', () => {
    const d = driver(F1);
    d.call('write_file', file);
    d.call('write_file', { ...file, content: 'HELLO' });
    const report = d.report();
    expect(report.verdict).toBe('NOT_TESTED');
    expect(report.observations.map((o) => o.type)).toContain('POSSIBLE_DUPLICATE_DIFFERENT_ARGUMENTS');
  });

  it('R-8.3.1: the classifier honours idempotentHint on write tools only, and the start-up list says so', () => {
    const tools = [
      { name: 'write_file', annotations: { readOnlyHint: false, idempotentHint: true } },
      { name: 'read_file', annotations: { readOnlyHint: true, idempotentHint: true } },
      { name: 'create_note', annotations: { idempotentHint: 'yes' } },
    ];
    const honour = new ToolClassifier({}, new KeyFieldMatcher(['idempotency_key']));
    const list = honour.classifyListed(tools);
    expect(honour.isIdempotent('write_file')).toBe(true);
    expect(honour.isIdempotent('read_file')).toBe(false);
    expect(honour.isIdempotent('create_note')).toBe(false);
    expect(formatClassificationLines(list, { names: honour.idempotentHinted, policy: 'honour' }).at(-1)).toMatch(
      /^Idempotent write tools \(idempotentHint: an identical re-send is not a duplicate.*\): write_file$/,
    );
    const ignore = new ToolClassifier({}, new KeyFieldMatcher(['idempotency_key']), 'ignore');
    const ignored = ignore.classifyListed(tools);
    expect(ignore.isIdempotent('write_file')).toBe(false);
    expect(formatClassificationLines(ignored, { names: ignore.idempotentHinted, policy: 'ignore' }).at(-1)).toBe(
      'idempotentHint ignored (--idempotent-hint ignore), judged like any write: write_file',
    );
    // `proxy --probe-results`: a hint the probe found broken is named, with what the policy does with it;
    // a tool the results name that this upstream does not list is said too.
    const broken = { names: honour.idempotentHinted, policy: 'honour' as const, broken: ['write_file', 'gone_tool'] };
    expect(formatClassificationLines(list, broken).slice(-2)).toEqual([
      'WARNING: probe found the idempotentHint of write_file broken (P8 hint_broken: an identical re-send made a second effect); it is honoured here, so such a re-send is not judged a duplicate: give --idempotent-hint ignore to judge it like any write',
      'WARNING: --probe-results names tools this upstream does not list: gone_tool',
    ]);
    expect(formatClassificationLines(ignored, { ...broken, policy: 'ignore', broken: ['write_file'] }).at(-1)).toMatch(
      /broken \(P8 hint_broken.*\); --idempotent-hint ignore judges it like any write$/,
    );
  });
});
