import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HONESTY_CLASSES } from '../../../src/domain/trial/honesty.js';
import type { RunFacts } from '../../../src/domain/trial/run-facts.js';
import { run, times } from '../../support/run-facts.js';
import { summariseRuns } from '../../../src/domain/trial/trial-summary.js';

describe('summariseRuns: per scenario and task, NOT_TESTED counted apart', () => {
  const runs = [
    ...times(6, { verdict: 'PASS', honesty: 'FALSE_FAILURE', toolCalls: 2 }),
    ...times(2, { verdict: 'FAIL', reason: 'DUPLICATE_EXECUTION', duplicatedOperations: 1, toolCalls: 4 }),
    ...times(2, {
      verdict: 'NOT_TESTED',
      reason: 'model endpoint failed: HTTP 500',
      faultFired: false,
      honesty: 'NOT_MEASURED',
      toolCalls: 0,
    }),
    run({
      verdict: 'NOT_TESTED',
      reason: 'the scenario never triggered',
      faultFired: false,
      honesty: 'NOT_MEASURED',
      toolCalls: 1,
    }),
    run({ taskId: 'pay', verdict: 'PASS', honesty: 'UNPARSED', lostTransaction: true, toolCalls: 5 }),
    run({
      taskId: 'pay',
      verdict: 'FAIL',
      reason: 'DUPLICATE_EXECUTION',
      duplicatedOperations: 2,
      honesty: 'FALSE_SUCCESS',
      toolCalls: 7,
    }),
    run({ scenario: 'F3', verdict: 'PASS', honesty: 'NOT_MEASURED' }),
  ];
  const summary = summariseRuns(runs);
  const f1 = summary.scenarios.find((entry) => entry.scenario === 'F1')!;

  it('counts verdicts, excludes NOT_TESTED from the rates and lists its reasons, most frequent first', () => {
    expect(summary.arms).toEqual(['baseline']);
    expect(summary.scenarios.map((entry) => entry.scenario)).toEqual(['F1', 'F3']);
    expect(f1).toMatchObject({ runs: 13, pass: 7, fail: 3, notTested: 3, faultFired: 10 });
    expect(f1.notTestedReasons).toEqual([
      { reason: 'model endpoint failed: HTTP 500', count: 2 },
      { reason: 'the scenario never triggered', count: 1 },
    ]);
    expect(f1.rates.pass).toMatchObject({ count: 7, of: 10, rate: 0.7 });
    expect(f1.rates.duplicateExecution).toMatchObject({ count: 3, of: 10 });
    expect(f1.rates.lostTransaction).toMatchObject({ count: 1, of: 10 });
    expect(f1.rates.pass.low).toBeCloseTo(0.3968, 4); // Wilson 7/10: 0.3968 … 0.8922
    expect(f1.rates.pass.high).toBeCloseTo(0.8922, 4);
  });

  it('rates honesty over the judged runs that answered the question, UNPARSED included', () => {
    expect(f1.honesty).toEqual({ measured: 10, HONEST: 2, FALSE_FAILURE: 6, FALSE_SUCCESS: 1, EVASIVE: 0, UNPARSED: 1 });
    expect(f1.rates.falseFailure).toMatchObject({ count: 6, of: 10 });
    expect(f1.rates.falseSuccess).toMatchObject({ count: 1, of: 10 });
    expect(f1.rates.unparsed).toMatchObject({ count: 1, of: 10 });
    const f3 = summary.scenarios.find((entry) => entry.scenario === 'F3')!;
    expect(f3.rates.falseFailure).toEqual({ count: 0, of: 0, rate: null, low: null, high: null });
  });

  it("per task: counts, pass^k up to the task's judged runs (8 at most), median tool calls", () => {
    expect(f1.tasks.map((task) => task.taskId)).toEqual(['book', 'pay']);
    const [book, pay] = f1.tasks;
    expect(book).toMatchObject({ runs: 11, pass: 6, fail: 2, notTested: 3 });
    expect(book!.passK.map((point) => point.k)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(book!.passK[1]!.value).toBeCloseTo(15 / 28, 12); // C(6,2)/C(8,2)
    expect(book!.passK[6]!.value).toBe(0);
    expect(pay!.passK.map((point) => point.value)).toEqual([0.5, 0]);
    expect(book!.medianToolCalls).toBe(2);
    expect(pay!.medianToolCalls).toBe(6);
  });

  it("the scenario's pass^k averages its tasks up to the smallest task", () => {
    expect(f1.passK.map((point) => point.k)).toEqual([1, 2]);
    expect(f1.passK[0]!.value).toBeCloseTo((6 / 8 + 1 / 2) / 2, 12);
    expect(f1.passK[1]!.value).toBeCloseTo((15 / 28 + 0) / 2, 12);
    expect(f1.medianToolCalls).toBe(2);
  });

  it('keeps arms apart and orders them', () => {
    const two = summariseRuns([run({ arm: 'patched' }), run({ arm: 'baseline', scenario: 'F2' }), run({ arm: 'baseline' })]);
    expect(two.arms).toEqual(['baseline', 'patched']);
    expect(two.scenarios.map((entry) => `${entry.arm}/${entry.scenario}`)).toEqual(['baseline/F1', 'baseline/F2', 'patched/F1']);
  });

  it('a task or reason named __proto__ is an ordinary name', () => {
    const odd = summariseRuns([run({ taskId: '__proto__', verdict: 'NOT_TESTED', reason: '__proto__' })]);
    expect(odd.scenarios[0]!.tasks[0]!.taskId).toBe('__proto__');
    expect(odd.scenarios[0]!.notTestedReasons).toEqual([{ reason: '__proto__', count: 1 }]);
    expect(({} as Record<string, unknown>).count).toBeUndefined();
  });

  it('no runs, no groups', () => {
    expect(summariseRuns([])).toEqual({ arms: [], scenarios: [] });
  });
});

describe('summariseRuns, properties', () => {
  const facts: fc.Arbitrary<RunFacts> = fc.record({
    scenario: fc.constantFrom('F1', 'F2', 'none'),
    taskId: fc.constantFrom('a', 'b', 'c'),
    arm: fc.constantFrom('baseline', 'patched'),
    verdict: fc.constantFrom('PASS', 'FAIL', 'NOT_TESTED'),
    reason: fc.constantFrom('x', 'y', 'z'),
    duplicatedOperations: fc.integer({ min: 0, max: 2 }),
    faultFired: fc.boolean(),
    honesty: fc.constantFrom('NOT_MEASURED', ...HONESTY_CLASSES),
    lostTransaction: fc.boolean(),
    abandonedWrite: fc.boolean(),
    toolCalls: fc.integer({ min: 0, max: 20 }),
  });

  it('merged shards give the summary of one trial: any split and any order, the same summary', () => {
    fc.assert(
      fc.property(fc.array(facts, { maxLength: 60 }), fc.integer({ min: 1, max: 5 }), fc.nat(), (runs, shards, seed) => {
        const parts: RunFacts[][] = Array.from({ length: shards }, () => []);
        runs.forEach((entry, i) => parts[(i * 7 + seed) % shards]!.push(entry));
        const merged = parts.reverse().flatMap((part) => [...part].reverse());
        expect(summariseRuns(merged)).toEqual(summariseRuns(runs));
      }),
    );
  });

  it('verdict counts add up; every rate is over the judged runs or the answered ones', () => {
    fc.assert(
      fc.property(fc.array(facts, { maxLength: 60 }), (runs) => {
        const summary = summariseRuns(runs);
        expect(summary.scenarios.reduce((total, entry) => total + entry.runs, 0)).toBe(runs.length);
        for (const entry of summary.scenarios) {
          expect(entry.pass + entry.fail + entry.notTested).toBe(entry.runs);
          expect(entry.notTestedReasons.reduce((total, reason) => total + reason.count, 0)).toBe(entry.notTested);
          expect(entry.rates.pass.of).toBe(entry.pass + entry.fail);
          expect(entry.rates.duplicateExecution.of).toBe(entry.pass + entry.fail);
          const classes = HONESTY_CLASSES.reduce((total, kind) => total + entry.honesty[kind], 0);
          expect(classes).toBe(entry.honesty.measured);
          expect(entry.rates.falseFailure.of).toBe(entry.honesty.measured);
          expect(entry.tasks.reduce((total, task) => total + task.runs, 0)).toBe(entry.runs);
          for (const point of entry.passK) expect(point.value).toBeGreaterThanOrEqual(0);
        }
      }),
    );
  });
});
