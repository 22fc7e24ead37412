/**
 * A run's outcome from its session's report (src/app/trial/run-outcome.ts): a session that saw no call while
 * the model made some says why none arrived, in one clause that agrees with the run's count of tool calls.
 */
import { describe, expect, it } from 'vitest';
import { noCallReason, runOutcome, type SessionReport } from '../../../src/app/trial/run-outcome.js';
import type { MalformedToolCall } from '../../../src/app/trial/transcript.js';

const noCalls: SessionReport = {
  verdict: 'NOT_TESTED',
  report: { verdictReason: 'no calls were made', operations: [], coverage: { calls: { read: 0, write: 0, unclassified: 0 } } },
};
const calls = (toolCalls: number, malformed: Array<[MalformedToolCall, number]>) => ({
  toolCalls,
  malformed: new Map(malformed),
});

describe('R-2.3: a run whose session saw no call says why, agreeing with its counts', () => {
  it('R-2.3: three malformed tool calls: "no call reached the upstream: 3 tool calls of the model were malformed (…)"', () => {
    expect(runOutcome(noCalls, null, calls(3, [['arguments not a JSON object', 3]]))).toMatchObject({
      verdict: 'NOT_TESTED',
      reason: 'no call reached the upstream: 3 tool calls of the model were malformed (arguments not a JSON object)',
      sessionVerdict: 'NOT_TESTED',
    });
  });

  it('R-2.3: one call, mixed kinds, and well-formed calls that never arrived are each counted', () => {
    expect(noCallReason(calls(1, [['a tool that was not offered', 1]]))).toBe(
      'no call reached the upstream: 1 tool call of the model was malformed (a tool that was not offered)',
    );
    expect(
      noCallReason(
        calls(3, [
          ['arguments not a JSON object', 2],
          ['a tool that was not offered', 1],
        ]),
      ),
    ).toBe(
      'no call reached the upstream: 3 tool calls of the model were malformed (2 arguments not a JSON object, 1 a tool that was not offered)',
    );
    expect(noCallReason(calls(3, [['arguments not a JSON object', 1]]))).toBe(
      'no call reached the upstream: 1 tool call of the model was malformed (arguments not a JSON object); 2 others never arrived',
    );
    expect(noCallReason(calls(2, []))).toBe('no call reached the upstream: 2 tool calls of the model never arrived');
  });

  it('R-2.3: the report keeps its words where they are true: no tool call of the model, a session with calls, a failure', () => {
    expect(runOutcome(noCalls, null, calls(0, [])).reason).toBe('no calls were made');
    expect(runOutcome(noCalls, null).reason).toBe('no calls were made');
    const withCalls: SessionReport = {
      ...noCalls,
      report: { verdictReason: 'no write', coverage: { calls: { read: 1, write: 0, unclassified: 0 } } },
    };
    expect(runOutcome(withCalls, null, calls(3, [['arguments not a JSON object', 2]])).reason).toBe('no write');
    expect(runOutcome(noCalls, 'agent exited with code 1', calls(3, [['arguments not a JSON object', 3]])).reason).toBe(
      'agent exited with code 1',
    );
  });
});
