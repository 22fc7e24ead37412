import { boundedListing } from '../../../src/domain/effects/bounded-listing.js';
import { describe, expect, it } from 'vitest';
import { faultOf, faultServing } from '../../../src/domain/faults/index.js';
import {
  judgeProbe,
  keyLocation,
  toolVerdict,
  type ProbeEvidence,
  type ProbeResult,
  type SeenAnswer,
} from '../../../src/domain/probe/probe-judge.js';
import { PROBES, probesFor, type ProbeId } from '../../../src/domain/probe/probes.js';

const probe = (id: ProbeId) => PROBES.find((p) => p.id === id)!;
const ok = (text: string): SeenAnswer => ({ kind: 'ok', text });
const err = (text: string): SeenAnswer => ({ kind: 'error', text });
const none: SeenAnswer = { kind: 'none', text: 'timed out after 60 s' };
const ev = (answers: SeenAnswer[], counts: number[] | null = null, extra: Partial<ProbeEvidence> = {}): ProbeEvidence => ({
  answers,
  counts,
  listings: null,
  ...extra,
});
const label = (id: ProbeId, evidence: ProbeEvidence) => judgeProbe(probe(id), evidence).label;

describe('probe judge: one label per probe from answers and counted effects', () => {
  it('P1: one effect is replay_ok, a second effect double_created, a refusal refused_ok', () => {
    expect(label('P1', ev([ok('id 1'), ok('id 1')], [0, 1, 1]))).toBe('replay_ok');
    expect(label('P1', ev([ok('id 1'), ok('id 2')], [0, 1, 2]))).toBe('double_created');
    expect(label('P1', ev([ok('id 1'), err('key used')], [0, 1, 1]))).toBe('refused_ok');
  });

  it('P1 without --count-with: judged by the answers, and the reason says so', () => {
    const same = judgeProbe(probe('P1'), ev([ok('id 1'), ok('id 1')]));
    expect(same.label).toBe('replay_ok');
    expect(same.reason).toContain('no --count-with');
    expect(label('P1', ev([ok('id 1'), ok('id 2')]))).toBe('double_created');
  });

  it('an example the tool rejects is inconclusive with the server message, never a label', () => {
    for (const id of ['P1', 'P2', 'P3', 'P4', 'P5', 'P7', 'P8', 'P9'] as const) {
      const judged = judgeProbe(
        probe(id),
        ev([err('amount: Expected number'), err('amount: Expected number')], [0, 0, 0], { concurrent: true }),
      );
      expect(judged.label, id).toBe('inconclusive');
      expect(judged.reason, id).toContain('amount: Expected number');
    }
    const p6 = judgeProbe(probe('P6'), ev([err('amount: Expected number')], [0, 0]));
    expect(p6.label).toBe('inconclusive');
    expect(p6.reason).toContain('amount: Expected number');
  });

  it('a first call that made no counted effect is inconclusive', () => {
    expect(label('P1', ev([ok('a'), ok('a')], [3, 3, 3]))).toBe('inconclusive');
  });

  it('a second call without an answer is inconclusive', () => {
    expect(label('P1', ev([ok('a'), none], [0, 1, 1]))).toBe('inconclusive');
  });

  it('P2: refused_ok, silent_new_result, overwrote_first, or the first answer replayed', () => {
    expect(label('P2', ev([ok('id 1'), err('422 other arguments')], [0, 1, 1]))).toBe('refused_ok');
    expect(label('P2', ev([ok('id 1'), ok('id 2')], [0, 1, 2]))).toBe('silent_new_result');
    const overwritten = ev([ok('id 1 amount 5'), ok('id 1 amount 6')], [0, 1, 1], {
      listings: ['[]', '[5]', '[6]'].map((text) => boundedListing([text])),
    });
    expect(label('P2', overwritten)).toBe('overwrote_first');
    expect(
      label(
        'P2',
        ev([ok('id 1'), ok('id 1')], [0, 1, 1], { listings: ['[]', '[5]', '[5]'].map((text) => boundedListing([text])) }),
      ),
    ).toBe('replay_ok');
  });

  it('P3: conflict_ok, wait_replay_ok, double_created; not concurrent is inconclusive', () => {
    expect(label('P3', ev([ok('id 1'), err('409 in progress')], [0, 1], { concurrent: true }))).toBe('conflict_ok');
    expect(label('P3', ev([ok('id 1'), ok('id 1')], [0, 1], { concurrent: true }))).toBe('wait_replay_ok');
    expect(label('P3', ev([ok('id 1'), ok('id 2')], [0, 2], { concurrent: true }))).toBe('double_created');
    expect(label('P3', ev([ok('id 1'), ok('id 1')], [0, 1], { concurrent: false }))).toBe('inconclusive');
  });

  it('P4: a new key makes a new effect, or a fingerprint de-duplication is reported', () => {
    expect(label('P4', ev([ok('id 1'), ok('id 2')], [0, 1, 2]))).toBe('new_effect_ok');
    expect(label('P4', ev([ok('id 1'), ok('id 1')], [0, 1, 1]))).toBe('fingerprint_dedup');
  });

  it('P5: the retry after a ghost write replays, or creates again', () => {
    expect(label('P5', ev([ok('id 1'), ok('id 1')], [0, 1, 1]))).toBe('replay_ok');
    expect(label('P5', ev([ok('id 1'), ok('id 2')], [0, 1, 2]))).toBe('double_created');
  });

  it('R-16.1 P9: the late write that lands after its retry is replayed or refused, or creates again (BREAKS)', () => {
    // answers and counts in the order the server saw them: the retry first, the late write second.
    const replayed = judgeProbe(probe('P9'), ev([ok('id 1'), ok('id 1')], [0, 1, 1]));
    expect(replayed).toEqual({
      probe: 'P9',
      label: 'replay_ok',
      reason: 'a late write landing after its retry: no further effect, the first answer replayed',
    });
    expect(label('P9', ev([ok('id 1'), err('key in use')], [0, 1, 1]))).toBe('refused_ok');
    expect(label('P9', ev([ok('id 1'), ok('id 2')], [0, 1, 2]))).toBe('double_created');
    expect(toolVerdict({ acceptsKey: true, hinted: false }, [r('P1', 'replay_ok'), r('P9', 'double_created')])).toEqual({
      verdict: 'BREAKS',
      reason: 'P9 double_created',
    });
    // The late write never reached the server (the upstream was lost): nothing to judge.
    expect(label('P9', ev([ok('id 1')], [0, 1, 1]))).toBe('inconclusive');
  });

  it('P6: the retry after a 500 makes one effect', () => {
    expect(label('P6', ev([ok('id 1')], [0, 1]))).toBe('new_effect_ok');
    expect(label('P6', ev([ok('id 1')], [0, 0]))).toBe('inconclusive');
  });

  it('P7: one effect with the key in _meta is a replay, two a double creation', () => {
    expect(label('P7', ev([ok('id 1'), ok('id 1')], [0, 1, 1]))).toBe('replay_ok');
    expect(label('P7', ev([ok('id 1'), ok('id 2')], [0, 1, 2]))).toBe('double_created');
  });

  it('a delete is an effect too: the count changes either way', () => {
    expect(label('P8', ev([ok('deleted'), ok('deleted')], [3, 2, 2]))).toBe('hint_holds');
    expect(label('P1', ev([ok('deleted'), ok('deleted')], [3, 2, 1]))).toBe('double_created');
  });

  it('P8: hint_holds with one effect, hint_broken with two', () => {
    expect(label('P8', ev([ok('set'), ok('set')], [0, 1, 1]))).toBe('hint_holds');
    expect(label('P8', ev([ok('n 1'), ok('n 2')], [0, 1, 2]))).toBe('hint_broken');
  });
});

const r = (probe: ProbeId, label: ProbeResult['label']): ProbeResult => ({ probe, label, reason: '' });

describe('probe judge: the tool verdict', () => {
  it('KEEPS when every judged probe kept, whatever P4 and P7 report', () => {
    const results = [r('P1', 'replay_ok'), r('P2', 'refused_ok'), r('P4', 'fingerprint_dedup'), r('P7', 'double_created')];
    expect(toolVerdict({ acceptsKey: true, hinted: false }, results).verdict).toBe('KEEPS');
  });

  it('BREAKS on a breaking label of a judged probe, naming it', () => {
    const verdict = toolVerdict({ acceptsKey: true, hinted: false }, [r('P1', 'double_created'), r('P2', 'refused_ok')]);
    expect(verdict).toEqual({ verdict: 'BREAKS', reason: 'P1 double_created' });
    expect(toolVerdict({ acceptsKey: false, hinted: true }, [r('P8', 'hint_broken')]).verdict).toBe('BREAKS');
  });

  it('NO_PROMISE without a key field and without a hint; INCONCLUSIVE when nothing could be judged', () => {
    expect(toolVerdict({ acceptsKey: false, hinted: false }, [r('P7', 'double_created')]).verdict).toBe('NO_PROMISE');
    expect(toolVerdict({ acceptsKey: true, hinted: false }, [r('P1', 'inconclusive')]).verdict).toBe('INCONCLUSIVE');
  });

  it('runs the key probes only on a tool with a key field, P8 only on a hinted one', () => {
    expect(probesFor({ acceptsKey: true, hinted: false }).run.map((p) => p.id)).toEqual([
      'P1',
      'P2',
      'P3',
      'P4',
      'P5',
      'P6',
      'P7',
      'P9',
    ]);
    expect(probesFor({ acceptsKey: false, hinted: true }).run.map((p) => p.id)).toEqual(['P7', 'P8']);
  });

  it('reports where the key is read', () => {
    expect(keyLocation([r('P1', 'replay_ok'), r('P7', 'double_created')], 'idempotency_key')).toBe(
      'the argument idempotency_key',
    );
    expect(keyLocation([r('P1', 'double_created'), r('P4', 'new_effect_ok'), r('P7', 'replay_ok')], 'k')).toBe('_meta.k');
    expect(keyLocation([r('P7', 'replay_ok')], 'k')).toContain('unknown');
    expect(keyLocation([r('P1', 'double_created'), r('P7', 'double_created')], 'k')).toBe('not at all');
    expect(keyLocation([r('P7', 'replay_ok'), r('P8', 'hint_holds')], 'k')).toContain('unknown');
  });
});

describe('R-4: the probes take their faults from the registry by what the fault declares, never by id', () => {
  it('R-4: P5 faults its first call with the scenario that executes and tells a time-out, P6 with one that tells a 500 unexecuted, P9 with one that lands late', () => {
    const first = (id: ProbeId) => faultOf(probe(id).steps[0]!.fault!);
    expect(first('P5')).toMatchObject({ forwards: true, tells: 'timeout' });
    expect(first('P6')).toMatchObject({ forwards: false, tells: 'server-error' });
    expect(probe('P5').steps[0]!.fault).toBe(faultServing({ executes: true, tells: 'timeout' }));
    expect(probe('P6').steps[0]!.fault).toBe(faultServing({ executes: false, tells: 'server-error' }));
    // R-16.1: P9's first call is the write that lands late (F6), told a time-out at once.
    expect(first('P9')).toMatchObject({ forwards: true, tells: 'timeout' });
    expect(first('P9').landsAfter).toBeDefined();
    expect(probe('P9').steps[0]!.fault).toBe(faultServing({ executes: true, tells: 'timeout', late: true }));
    // What the table says it sends names the fault the registry gave (docs/probe.md shows F1 and F5 today).
    expect(probe('P5').sends).toBe(`${first('P5').kind} ${first('P5').name}, then the same call with the same key`);
    expect(probe('P6').sends).toBe('F5 (500, not executed), then the same call with the same key');
    for (const other of PROBES.filter((p) => !['P5', 'P6', 'P9'].includes(p.id)))
      expect(other.steps.every((s) => s.fault === undefined)).toBe(true);
  });
});
