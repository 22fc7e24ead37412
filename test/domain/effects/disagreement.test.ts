import { describe, expect, it } from 'vitest';
import { explainDisagreement, type ExecutionFacts } from '../../../src/domain/effects/disagreement.js';
import type { EffectsVerdict } from '../../../src/domain/effects/effects-verdict.js';

const facts = (over: Partial<ExecutionFacts>): ExecutionFacts => ({
  verdict: 'PASS',
  unknownRepeated: 0,
  resentAfterRejection: 0,
  nearDuplicates: 0,
  otherWritesAfterUncertain: 0,
  ...over,
});

describe('effects: where the two verdicts disagree', () => {
  it('FAIL and EXACTLY_ONCE: the upstream de-duplicated ("executions, not effects")', () => {
    expect(explainDisagreement(facts({ verdict: 'FAIL' }), 'EXACTLY_ONCE')).toContain('"executions, not effects"');
    expect(explainDisagreement(facts({ verdict: 'FAIL' }), 'DUPLICATE_EFFECT')).toBeNull();
    expect(explainDisagreement(facts({ verdict: 'FAIL', duplicateExecutions: 1 }), 'EXACTLY_ONCE')).toContain(
      'the upstream de-duplicated the repeat',
    );
  });

  it('FAIL for a re-send before retry_after alone and EXACTLY_ONCE: no de-duplication is claimed', () => {
    const early = explainDisagreement(facts({ verdict: 'FAIL', duplicateExecutions: 0 }), 'EXACTLY_ONCE');
    expect(early).toContain('RETRY_AFTER_VIOLATED');
    expect(early).not.toContain('de-duplicated');
  });

  it('NOT_TESTED after a retry of an unknown outcome: the backend decides, the run stays NOT_TESTED', () => {
    const unknown = facts({ verdict: 'NOT_TESTED', unknownRepeated: 1 });
    expect(explainDisagreement(unknown, 'EXACTLY_ONCE')).toMatch(/unknown outcome was repeated.*a clean retry.*stays NOT_TESTED/);
    expect(explainDisagreement(unknown, 'DUPLICATE_EFFECT')).toMatch(/the retry was a duplicate.*stays NOT_TESTED/);
    expect(explainDisagreement(facts({ verdict: 'NOT_TESTED', resentAfterRejection: 1 }), 'DUPLICATE_EFFECT')).toContain(
      'an error result does not prove no write',
    );
    expect(explainDisagreement(facts({ verdict: 'NOT_TESTED', nearDuplicates: 1 }), 'EXACTLY_ONCE')).toContain(
      'differ only in notation',
    );
  });

  it('NOT_TESTED for another cause (no write, never triggered) is no disagreement', () => {
    expect(explainDisagreement(facts({ verdict: 'NOT_TESTED' }), 'EXACTLY_ONCE')).toBeNull();
    expect(explainDisagreement(facts({ verdict: 'NOT_TESTED', unknownRepeated: 1 }), 'NO_EFFECT')).toBeNull();
  });

  it('PASS with OTHER_WRITE_AFTER_UNCERTAIN_ATTEMPT and DUPLICATE_EFFECT: a duplicate the judge could not prove', () => {
    expect(explainDisagreement(facts({ otherWritesAfterUncertain: 1 }), 'DUPLICATE_EFFECT')).toContain(
      'a duplicate the execution judge could not prove',
    );
    expect(explainDisagreement(facts({}), 'DUPLICATE_EFFECT')).toContain('never saw executed twice');
  });

  it('agreement and unknown effects explain nothing', () => {
    const all: EffectsVerdict[] = ['EXACTLY_ONCE', 'NO_EFFECT', 'LOST_EFFECT', 'EFFECTS_UNKNOWN'];
    for (const effects of all) expect(explainDisagreement(facts({}), effects)).toBeNull();
    expect(explainDisagreement(facts({ verdict: 'FAIL', unknownRepeated: 1 }), 'EFFECTS_UNKNOWN')).toBeNull();
  });
});
