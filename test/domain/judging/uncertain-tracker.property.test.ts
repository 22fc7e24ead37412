import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../../src/domain/json.js';
import { isNotationVariant } from '../../../src/domain/judging/near-duplicate.js';
import {
  MAX_COMPARISONS,
  UncertainTracker,
  type PairFinding,
  type Uncertainty,
} from '../../../src/domain/judging/uncertain-tracker.js';
import { propertyRuns } from '../../support/property-runs.js';

/**
 * The rule of written the plain (quadratic) way: every write in flight keeps the list of later
 * writes of its tool; the tracker must find exactly the same pairs with its single log per tool.
 */
class PlainTracker {
  private readonly pending = new Map<
    number,
    { tool: string; opKey: string; args: unknown; later: Array<{ opKey: string; args: unknown }> }
  >();
  private readonly uncertain = new Map<string, Array<{ opKey: string; args: unknown; rejected: boolean }>>();

  arrived(tool: string, id: number, opKey: string, args: unknown): PairFinding[] {
    const findings = (this.uncertain.get(tool) ?? [])
      .filter((e) => e.opKey !== opKey)
      .map((e) => finding(tool, e.opKey, args, opKey, e.rejected ? false : isNotationVariant(e.args, args)));
    for (const p of this.pending.values()) if (p.tool === tool && p.opKey !== opKey) p.later.push({ opKey, args });
    this.pending.set(id, { tool, opKey, args, later: [] });
    return findings;
  }

  settled(id: number, uncertainty: Uncertainty): PairFinding[] {
    const p = this.pending.get(id)!;
    this.pending.delete(id);
    if (uncertainty === 'none') return [];
    const rejected = uncertainty === 'rejected';
    const list = this.uncertain.get(p.tool) ?? [];
    list.push({ opKey: p.opKey, args: p.args, rejected });
    if (list.length > 64) list.shift();
    this.uncertain.set(p.tool, list);
    return p.later.map((b) => finding(p.tool, p.opKey, b.args, b.opKey, rejected ? false : isNotationVariant(p.args, b.args)));
  }
}

function finding(tool: string, first: string, _args: unknown, second: string, nearDuplicate: boolean): PairFinding {
  return { tool, nearDuplicate, first, second, count: 1 };
}

/** Findings with the same earlier attempt and kind folded into one, counted, with the first example. */
function folded(findings: PairFinding[]): PairFinding[] {
  const out: PairFinding[] = [];
  for (const f of findings) {
    const same = out.find((o) => o.tool === f.tool && o.first === f.first && o.nearDuplicate === f.nearDuplicate);
    if (same === undefined) out.push({ ...f });
    else same.count += f.count;
  }
  return out;
}

/** Amount values: 129 and "129" are notation variants, 130 is another write. */
const AMOUNTS = [129, '129', 130, '130.0'];

type Step = { kind: 'arrive'; tool: number; amount: number } | { kind: 'settle'; pick: number; uncertainty: Uncertainty };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    kind: fc.constant('arrive' as const),
    tool: fc.integer({ min: 0, max: 1 }),
    amount: fc.integer({ min: 0, max: AMOUNTS.length - 1 }),
  }),
  fc.record({
    kind: fc.constant('settle' as const),
    pick: fc.nat(),
    uncertainty: fc.constantFrom<Uncertainty>('none', 'unknown', 'rejected'),
  }),
);

/**
 * Arguments from a small alphabet, so that notation variants of every kind meet often: numbers and
 * their text, case and white space, null and "", arrays in another order, nested objects, and field
 * names sets that differ (fields added or left out, the half rule).
 */
const leaf = fc.constantFrom<unknown>(1, '1', ' 1 ', '1.0', 2, 'x', 'X', ' x', null, '', true, '1e0');
const richArgs = fc.dictionary(
  fc.constantFrom('a', 'b', 'c', 'd'),
  fc.oneof(
    leaf,
    fc.array(fc.constantFrom<unknown>(1, '1', 2), { maxLength: 2 }),
    fc.dictionary(fc.constantFrom('p', 'q'), fc.constantFrom<unknown>(1, '1', 'y')),
  ),
  { maxKeys: 4 },
);

/** Fewer names and values, so fields added or left out (the half rule) meet often. */
const tinyArgs = fc.dictionary(fc.constantFrom('a', 'b', 'c'), fc.constantFrom<unknown>(1, '1', ' 1', 'x', 'X'), {
  minKeys: 1,
  maxKeys: 3,
});

type RichStep = { kind: 'arrive'; tool: number; args: number } | { kind: 'settle'; pick: number; uncertainty: Uncertainty };

const richStep: fc.Arbitrary<RichStep> = fc.oneof(
  fc.record({ kind: fc.constant('arrive' as const), tool: fc.integer({ min: 0, max: 1 }), args: fc.nat({ max: 7 }) }),
  fc.record({
    kind: fc.constant('settle' as const),
    pick: fc.nat(),
    uncertainty: fc.constantFrom<Uncertainty>('none', 'unknown', 'unknown', 'rejected'),
  }),
);

/**
 * Plays arrivals and answers on the tracker and on the plain all-pairs rule side by side, expecting the
 * same findings at every step; `argsOf` gives an arriving step's tool number, operation key and arguments.
 */
function replayAgainstPlain<S extends { kind: 'arrive' } | { kind: 'settle'; pick: number; uncertainty: Uncertainty }>(
  steps: readonly S[],
  argsOf: (step: Extract<S, { kind: 'arrive' }>) => { tool: number; opKey: string; args: unknown },
): void {
  const tracker = new UncertainTracker();
  const plain = new PlainTracker();
  const open: Array<{ id: number; tool: string }> = [];
  let nextId = 1;
  for (const s of steps) {
    if (s.kind === 'arrive') {
      const id = nextId++;
      const { tool: n, opKey, args } = argsOf(s as Extract<S, { kind: 'arrive' }>);
      const tool = `tool${n}`;
      expect(folded(tracker.arrived(tool, id, opKey, args, opKey, true))).toEqual(folded(plain.arrived(tool, id, opKey, args)));
      open.push({ id, tool });
    } else if (open.length > 0) {
      const settle = s as Extract<S, { kind: 'settle' }>;
      const [call] = open.splice(settle.pick % open.length, 1);
      expect(folded(tracker.settled(call!.tool, call!.id, settle.uncertainty))).toEqual(
        folded(plain.settled(call!.id, settle.uncertainty)),
      );
    }
  }
}

/** A tracker whose comparisons are counted. */
function countingTracker(): { tracker: UncertainTracker; comparisons: () => number } {
  let count = 0;
  const tracker = new UncertainTracker((a, b) => {
    count++;
    return isNotationVariant(a, b);
  });
  return { tracker, comparisons: () => count };
}

describe('UncertainTracker (R-6, R-6.1): one log per tool, linear memory', () => {
  it("R-6: its index of notation signatures misses no variant: the plain rule's pairs over arguments of every shape", () => {
    fc.assert(
      fc.property(
        fc.array(richArgs, { minLength: 4, maxLength: 4 }),
        fc.array(tinyArgs, { minLength: 4, maxLength: 4 }),
        fc.array(richStep, { minLength: 100, maxLength: 200 }),
        (rich, tiny, steps) => {
          const pool = [...rich, ...tiny];
          replayAgainstPlain(steps, (step) => {
            const args = pool[step.args]!;
            return { tool: step.tool, opKey: canonicalJson(args), args };
          });
        },
      ),
      { numRuns: propertyRuns(40) },
    );
  });

  it('R-6: 4000 parallel writes that all end unknown cost a bounded number of comparisons each, not one per pair', () => {
    const { tracker, comparisons } = countingTracker();
    const n = 4000;
    for (let id = 1; id <= n; id++) {
      // Distinct orders of one customer; every 1000th is the previous one in other notation.
      const amount = id % 1000 === 0 ? String(id - 1) : id;
      tracker.arrived('pay', id, `op${id}`, { customer: 'Anna', amount, note: 'bench' }, `op${id}`, true);
    }
    let near = 0;
    let others = 0;
    for (let id = 1; id <= n; id++) {
      const before = comparisons();
      for (const f of tracker.settled('pay', id, 'unknown')) {
        if (f.nearDuplicate) near += f.count;
        else others += f.count;
      }
      expect(comparisons() - before).toBeLessThanOrEqual(1);
    }
    // The plain rule compares every pair: n(n-1)/2 = 7,998,000 comparisons.
    expect(comparisons()).toBe(4);
    expect(near).toBe(4);
    expect(others).toBe((n * (n - 1)) / 2 - 4);
  });

  it('R-6: writes equal at the top level and different deeper down: at most MAX_COMPARISONS per attempt, the rest counted as possible near-duplicates', () => {
    const { tracker, comparisons } = countingTracker();
    const n = 1000;
    for (let id = 1; id <= n; id++)
      tracker.arrived('pay', id, `op${id}`, { customer: 'Anna', items: { sku: id } }, `op${id}`, true);
    const before = comparisons();
    const findings = tracker.settled('pay', 1, 'unknown');
    expect(comparisons() - before).toBe(MAX_COMPARISONS);
    // Never understated: the writes not compared count as possible near-duplicates (NOT_TESTED).
    expect(findings).toEqual([
      { tool: 'pay', nearDuplicate: false, first: 'op1', second: 'op2', count: MAX_COMPARISONS },
      { tool: 'pay', nearDuplicate: true, first: 'op1', second: `op${MAX_COMPARISONS + 2}`, count: n - 1 - MAX_COMPARISONS },
    ]);
  });

  it('R-6/R-6.1: finds exactly the pairs of the plain rule, over random arrivals and answers in any order', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 400 }), (steps) => {
        replayAgainstPlain(steps, (step) => {
          const amount = AMOUNTS[step.amount]!;
          return { tool: step.tool, opKey: JSON.stringify(amount), args: { amount } };
        });
      }),
      { numRuns: propertyRuns(300) },
    );
  });

  it('R-6: 2000 writes in flight, answered in arrival order, then one uncertain: still compared with the later ones', () => {
    const tracker = new UncertainTracker();
    tracker.arrived('pay', 0, 'first', { amount: 9999 }, 'first', true);
    for (let id = 1; id <= 2000; id++) tracker.arrived('pay', id, `op${id}`, { amount: id }, `op${id}`, true);
    for (let id = 1; id <= 2000; id++) expect(tracker.settled('pay', id, 'none')).toEqual([]);
    tracker.arrived('pay', 2001, 'variant', { amount: '9999' }, 'variant', true);
    const findings = tracker.settled('pay', 0, 'unknown');
    expect(findings).toEqual([
      { tool: 'pay', nearDuplicate: false, first: 'first', second: 'op1', count: 2000 },
      { tool: 'pay', nearDuplicate: true, first: 'first', second: 'variant', count: 1 },
    ]);
  });

  it('R-6: after the settled head of the log is dropped, an uncertain write is compared with exactly the writes after it', () => {
    const tracker = new UncertainTracker();
    for (let id = 1; id <= 1000; id++) tracker.arrived('pay', id, `op${id}`, { amount: id }, `op${id}`, true);
    for (let id = 1; id <= 600; id++) tracker.settled('pay', id, 'none');
    tracker.arrived('pay', 1001, 'variant', { amount: '700' }, 'variant', true);
    const findings = tracker.settled('pay', 700, 'unknown');
    expect(findings).toEqual([
      { tool: 'pay', nearDuplicate: false, first: 'op700', second: 'op701', count: 300 },
      { tool: 'pay', nearDuplicate: true, first: 'op700', second: 'variant', count: 1 },
    ]);
  });

  it('R-6.1: 3000 parallel writes all answered isError: one counted finding per rejected write, no pair objects', () => {
    const tracker = new UncertainTracker();
    for (let id = 1; id <= 3000; id++) tracker.arrived('pay', id, `op${id}`, { amount: id }, `op${id}`, true);
    let pairs = 0;
    for (let id = 1; id <= 3000; id++) {
      const findings = tracker.settled('pay', id, 'rejected');
      expect(findings.length).toBeLessThanOrEqual(1);
      expect(findings.every((f) => !f.nearDuplicate)).toBe(true);
      pairs += findings.reduce((sum, f) => sum + f.count, 0);
    }
    expect(pairs).toBe((3000 * 2999) / 2);
  });
});
