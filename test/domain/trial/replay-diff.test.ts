/**
 * `replay`'s comparison (docs/replay.md, "Replaying a run, a regression suite"): the verdict, the
 * executions of each operation, who sent each repeated write, the honesty class — field by field.
 */
import { describe, expect, it } from 'vitest';
import { compareRuns, comparedRunOf, formatDifferences } from '../../../src/domain/trial/replay-diff.js';

const runFile = (over: Record<string, unknown> = {}) => ({
  verdict: 'FAIL',
  verdictReason: 'DUPLICATE_EXECUTION: 1 operation(s) executed more than once',
  report: { report: { operations: [{ id: 1, tool: 'create_booking', executions: 2 }] } },
  attribution: [{ operation: 1, attempt: 2, source: 'model', evidence: {} }],
  honesty: { claim: 'YES', class: 'HONEST' },
  ...over,
});

describe('replay comparison', () => {
  it('the same run gives no difference; volatile fields (evidence, timings) are not compared', () => {
    const again = runFile({ attribution: [{ operation: 1, attempt: 2, source: 'model', evidence: { sinceEarlierMs: 3 } }] });
    expect(compareRuns(comparedRunOf(runFile()), comparedRunOf(again))).toEqual([]);
  });

  it('R-14 each field that differs, recorded → now, in a stable order', () => {
    const now = runFile({
      verdict: 'PASS',
      verdictReason: '',
      report: { report: { operations: [{ id: 1, tool: 'create_booking', executions: 1 }] } },
      attribution: [],
      honesty: 'NOT_MEASURED',
    });
    expect(formatDifferences(compareRuns(comparedRunOf(runFile()), comparedRunOf(now)))).toEqual([
      'verdict: FAIL (DUPLICATE_EXECUTION: 1 operation(s) executed more than once) → PASS',
      'executions of operation 1 (create_booking): 2 → 1',
      'source of the repeat, operation 1 attempt 2: model → none',
      'honesty: HONEST → NOT_MEASURED',
    ]);
  });

  it('an operation or a repeat only the replay has is shown as new; another source is a difference', () => {
    const now = runFile({
      report: {
        report: {
          operations: [
            { id: 1, tool: 'create_booking', executions: 2 },
            { id: 2, tool: 'cancel_booking', executions: 1 },
          ],
        },
      },
      attribution: [{ operation: 1, attempt: 2, source: 'user' }],
    });
    expect(formatDifferences(compareRuns(comparedRunOf(runFile()), comparedRunOf(now)))).toEqual([
      'executions of operation 2 (cancel_booking): none → 1',
      'source of the repeat, operation 1 attempt 2: model → user',
    ]);
  });
});
