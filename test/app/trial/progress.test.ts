/**
 * `trial` progress on stderr: one line per run when stderr is not a terminal; a bar redrawn in
 * place (done / total, PASS / FAIL / NOT_TESTED so far, ETA) when it is. Time from a manual clock.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/adapters/time/manual-clock.js';
import { ProgressView } from '../../../src/app/trial/progress.js';
import type { RunSpec } from '../../../src/app/trial/trial-plan.js';

const spec = (id: string): RunSpec => ({
  id,
  index: 1,
  scenarioLabel: 'F1',
  scenario: { mode: 'none' },
  task: { id: 'default', systemPrompt: undefined, task: 'T', followUps: [], maxSteps: 10 },
  seed: undefined,
  arm: 'baseline',
});

describe('R-13 trial progress', () => {
  it('not a terminal: one line per finished run, with the NOT_TESTED reason', () => {
    const out: string[] = [];
    const view = new ProgressView(
      (t) => out.push(t),
      false,
      () => 0,
      '[h]',
    );
    view.handle({ kind: 'start', total: 2 });
    view.handle({
      kind: 'run-done',
      run: spec('F1-001'),
      verdict: 'PASS',
      reason: '',
      toolCalls: 1,
      durationMs: 1234,
      done: 1,
      total: 2,
    });
    view.handle({
      kind: 'run-done',
      run: spec('F1-002'),
      verdict: 'NOT_TESTED',
      reason: 'model endpoint failed after 4 attempts: HTTP 503',
      toolCalls: 0,
      durationMs: 50,
      done: 2,
      total: 2,
    });
    view.finish();
    expect(out.join('')).toBe(
      [
        '[h] run F1-001 (1/2): PASS (1 tool call, 1.2 s)',
        '[h] run F1-002 (2/2): NOT_TESTED: model endpoint failed after 4 attempts: HTTP 503 (0 tool calls, 0.1 s)',
        '',
      ].join('\n'),
    );
  });

  it('a terminal: a bar redrawn in place with the counts so far and an ETA from the pace so far', () => {
    const out: string[] = [];
    const clock = new ManualClock(1000);
    const view = new ProgressView(
      (t) => out.push(t),
      true,
      () => clock.now(),
      '[h]',
    );
    view.handle({ kind: 'start', total: 4 });
    clock.advance(2000);
    view.handle({
      kind: 'run-done',
      run: spec('F1-001'),
      verdict: 'FAIL',
      reason: 'DUPLICATE_EXECUTION',
      toolCalls: 2,
      durationMs: 2000,
      done: 1,
      total: 4,
    });
    view.finish();
    expect(out).toEqual([
      '\r[------------------------] 0/4  PASS 0  FAIL 0  NOT_TESTED 0  ETA ?\x1b[K',
      '\r[######------------------] 1/4  PASS 0  FAIL 1  NOT_TESTED 0  ETA 6 s\x1b[K',
      '\n',
    ]);
  });
});
