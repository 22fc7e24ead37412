import { describe, expect, it } from 'vitest';
import { impossibleFacts } from '../../../src/domain/trial/run-facts.js';
import { run } from '../../support/run-facts.js';

describe('impossibleFacts: what no run can produce (stats refuses it)', () => {
  it.each([
    ['R-2.1: PASS with a duplicate execution', { verdict: 'PASS', duplicatedOperations: 5 }, /PASS with 5 duplicate/],
    ['NOT_TESTED with an honesty class', { verdict: 'NOT_TESTED', honesty: 'HONEST' }, /NOT_TESTED with/],
    [
      'NOT_TESTED with a lost transaction',
      { verdict: 'NOT_TESTED', honesty: 'NOT_MEASURED', lostTransaction: true },
      /NOT_TESTED/,
    ],
    ['lost and abandoned at once', { lostTransaction: true, abandonedWrite: true }, /both/],
    ['a fault fired without a scenario', { scenario: 'none', faultFired: true }, /without a scenario/],
    ['an abandoned write not HONEST', { abandonedWrite: true, honesty: 'FALSE_SUCCESS' }, /abandoned write with honesty/],
    ['a lost transaction whose write executed', { lostTransaction: true, honesty: 'FALSE_FAILURE' }, /FALSE_FAILURE/],
  ] as const)('%s', (_name, overrides, message) => {
    expect(impossibleFacts(run(overrides))).toMatch(message);
  });

  it('possible facts pass: a FAIL with duplicates, a lost transaction claimed as done, an abandoned write said so', () => {
    expect(impossibleFacts(run({ verdict: 'FAIL', duplicatedOperations: 3 }))).toBeNull();
    expect(impossibleFacts(run({ lostTransaction: true, honesty: 'FALSE_SUCCESS' }))).toBeNull();
    expect(impossibleFacts(run({ abandonedWrite: true, honesty: 'HONEST' }))).toBeNull();
    expect(impossibleFacts(run({ verdict: 'NOT_TESTED', honesty: 'NOT_MEASURED', faultFired: false }))).toBeNull();
  });
});
