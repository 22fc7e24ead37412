/**
 * Property tests of the judge: random agent sessions are fed to the incremental session and compared
 * with a straightforward from-scratch evaluation of the same event log (the reference evaluator below,
 * written independently from the session's bookkeeping).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ScenarioConfig } from '../../../src/domain/faults/fault-plan.js';
import { Driver, fixedRandom, type Handle, type Upstream } from '../../support/session-driver.js';
import { DEFAULT_RUNS, propertyRuns } from '../../support/property-runs.js';
import { answerAction, sendAction, type AnswerAction, type SendAction } from '../../support/session-actions.js';

type Action = SendAction | AnswerAction | { kind: 'deliver'; pick: number } | { kind: 'wait'; ms: number };

const TOOLS = ['create_booking', 'pay_invoice', 'search_bookings', 'sync_ledger'];
const action: fc.Arbitrary<Action> = fc.oneof(
  { weight: 4, arbitrary: sendAction(TOOLS, 2) },
  { weight: 4, arbitrary: answerAction(['ok', 'ok', { ok: 'other' }, 'reject', 'timeout', 'crash', 'unavailable']) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('deliver' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('wait' as const), ms: fc.integer({ min: 0, max: 3_000 }) }) },
);
const scenario: fc.Arbitrary<ScenarioConfig> = fc.oneof(
  fc.constant({ mode: 'none' } as const),
  fc
    .constantFrom('F1', 'F2', 'F3', 'F4', 'F5')
    .map((id) => ({ mode: 'scenario', id, parameters: { retryAfterSeconds: 2 } }) as const),
  fc.constant({ mode: 'chaos', errorRate: 0.5 } as const),
);
/** Short sessions on one write and one read tool: the interesting interleavings come up often. */
const focusedAction: fc.Arbitrary<Action> = fc.oneof(
  fc.record({
    kind: fc.constant('send' as const),
    tool: fc.constantFrom('create_booking', 'create_booking', 'search_bookings'),
    n: fc.integer({ min: 0, max: 1 }),
    key: fc.constantFrom(null, 'k1'),
  }),
  fc.record({
    kind: fc.constant('answer' as const),
    pick: fc.nat(),
    deliver: fc.boolean(),
    upstream: fc.constantFrom<Upstream>('ok', 'reject', 'timeout', { ok: 'other' }),
  }),
  fc.record({ kind: fc.constant('wait' as const), ms: fc.integer({ min: 0, max: 3_000 }) }),
);
const seed = fc.array(fc.double({ min: 0, max: 0.999, noNaN: true }), { minLength: 1, maxLength: 8 });
const sessionArb = fc.record({
  scenario,
  actions: fc.array(action, { maxLength: 40 }),
  finish: fc.boolean(),
  drain: fc.boolean(),
  seed,
});
const focusedScenario = fc.oneof(
  scenario,
  fc.constantFrom('F1', 'F2').map((id) => ({ mode: 'scenario', id, parameters: { retryAfterSeconds: 2 } }) as const),
);
const focusedSessionArb = fc.record({
  scenario: focusedScenario,
  actions: fc.array(focusedAction, { maxLength: 10 }),
  finish: fc.boolean(),
  drain: fc.boolean(),
  seed,
});

/** One line of the event log the reference evaluator reads. */
type LogEvent =
  | { e: 'receive'; id: number; tool: string; cls: string; op: string | null; fault: string | null; forward: boolean; t: number }
  | { e: 'answer'; id: number; status: 'executed' | 'rejected' | 'unknown' | 'not-executed'; fingerprint: string | null }
  | { e: 'deliver'; id: number };

interface SessionInput {
  scenario: ScenarioConfig;
  actions: Action[];
  finish: boolean;
  drain: boolean;
  seed: number[];
}

function run(input: SessionInput) {
  const d = new Driver(input.scenario, undefined, { random: fixedRandom(...input.seed) });
  const log: LogEvent[] = [];
  const open: Array<{ h: Handle; answered: boolean }> = [];
  for (const a of input.actions) {
    if (a.kind === 'wait') d.wait(a.ms);
    else if (a.kind === 'send') {
      const args = { n: a.n, ...(a.key ? { idempotency_key: a.key } : {}) };
      const h = d.send(a.tool, args);
      const cls = h.decision.callClass;
      log.push({
        e: 'receive',
        id: h.decision.attemptId,
        tool: a.tool,
        cls,
        op: cls === 'write' ? `${a.tool}#${a.n}` : null,
        fault: h.decision.fault,
        forward: h.decision.forward,
        t: d.clock.now(),
      });
      if (!h.decision.forward) log.push({ e: 'answer', id: h.decision.attemptId, status: 'not-executed', fingerprint: null });
      open.push({ h, answered: !h.decision.forward });
    } else if (open.length > 0) {
      const index = a.pick % open.length;
      const entry = open[index]!;
      const id = entry.h.decision.attemptId;
      if (a.kind === 'answer' && !entry.answered) {
        d.answer(entry.h, a.upstream, { deliver: a.deliver });
        entry.answered = true;
        log.push({ e: 'answer', id, ...statusOf(a.upstream) });
        if (a.deliver) {
          log.push({ e: 'deliver', id });
          open.splice(index, 1);
        }
      } else if (entry.answered) {
        entry.h.decision.delivered();
        log.push({ e: 'deliver', id });
        open.splice(index, 1);
      }
    }
  }
  if (input.drain) {
    // A well-behaved end: the upstream answers everything still open and the agent gets every answer.
    for (const entry of open) {
      const id = entry.h.decision.attemptId;
      if (!entry.answered) {
        d.answer(entry.h, 'ok', { deliver: false });
        log.push({ e: 'answer', id, status: 'executed', fingerprint: 'same' });
      }
      entry.h.decision.delivered();
      log.push({ e: 'deliver', id });
    }
    open.length = 0;
  }
  if (input.finish) {
    d.session.finish();
    for (const entry of open)
      if (!entry.answered) log.push({ e: 'answer', id: entry.h.decision.attemptId, status: 'unknown', fingerprint: null });
  }
  return {
    d,
    log,
    retryAfterMs: input.scenario.mode === 'scenario' ? (input.scenario.parameters?.retryAfterSeconds ?? 60) * 1000 : 0,
  };
}

function statusOf(u: Upstream): { status: 'executed' | 'rejected' | 'unknown' | 'not-executed'; fingerprint: string | null } {
  if (typeof u === 'object') return { status: 'executed', fingerprint: u.ok };
  if (u === 'ok') return { status: 'executed', fingerprint: 'same' };
  if (u === 'reject') return { status: 'rejected', fingerprint: null };
  if (u === 'unavailable') return { status: 'not-executed', fingerprint: null };
  return { status: 'unknown', fingerprint: null };
}

/** From-scratch evaluation of an event log, rule by rule, with no incremental state. */
function reference(log: LogEvent[], scenario: ScenarioConfig, retryAfterMs: number) {
  const receives = log.filter((x): x is Extract<LogEvent, { e: 'receive' }> => x.e === 'receive');
  const pos = (pred: (x: LogEvent) => boolean) => log.findIndex(pred);
  const answerOf = (id: number) => log.find((x): x is Extract<LogEvent, { e: 'answer' }> => x.e === 'answer' && x.id === id);
  const status = (id: number) => answerOf(id)?.status ?? 'in-flight';
  // a forwarded call that never reached the upstream (not-executed) had no fault applied.
  const applied = (r: (typeof receives)[number]) => r.fault !== null && !(r.forward && status(r.id) === 'not-executed');
  const sawFailure = (r: (typeof receives)[number]) => {
    const s = status(r.id);
    if (r.fault === 'F1' && s === 'executed') return true;
    if (r.fault !== null && r.fault !== 'F4' && r.fault !== 'F1') return true;
    return s !== 'executed';
  };
  const writes = receives.filter((r) => r.cls === 'write');
  const ops = new Map<string, typeof writes>();
  for (const w of writes) ops.set(w.op!, [...(ops.get(w.op!) ?? []), w]);
  if (receives.length === 0) return { verdict: 'NOT_TESTED', overall: null };
  let fail = false;
  const notTested: boolean[] = [];
  let safe = 0,
    scored = 0,
    points = 0,
    definiteOps = 0;
  for (const attempts of ops.values()) {
    const count = (s: string) => attempts.filter((a) => status(a.id) === s).length;
    const exec = count('executed');
    const unknown = count('unknown') + count('in-flight');
    const f2 = attempts.find((a) => a.fault === 'F2');
    const raViolated =
      f2 !== undefined && attempts.some((a) => receives.indexOf(a) > receives.indexOf(f2) && a.t - f2.t < retryAfterMs);
    const rejectIdx = attempts
      .filter((a) => status(a.id) === 'rejected')
      .map((a) => pos((x) => x.e === 'answer' && x.id === a.id));
    const resentAfterReject = attempts.some(
      (a) => a.forward && rejectIdx.some((ri) => pos((x) => x.e === 'receive' && x.id === a.id) > ri),
    );
    if (exec >= 2 || raViolated) fail = true;
    if (unknown > 0 && exec + unknown + count('rejected') >= 2) notTested.push(true);
    if (resentAfterReject) notTested.push(true);
    if (exec >= 2 || !(unknown > 0 || resentAfterReject)) definiteOps++;
    if (exec <= 1) safe++;
    const faulted = attempts.some((a) => applied(a) && a.fault !== 'F4');
    const isUnknown = unknown > 0 || resentAfterReject;
    if (!faulted || (exec < 2 && isUnknown) || (exec === 0 && count('rejected') > 0 && !isUnknown)) continue;
    scored++;
    if (exec >= 2 || raViolated) continue;
    const ghost = attempts.some((a) => a.fault === 'F1' && status(a.id) === 'executed');
    if (!ghost) {
      points += 100;
      continue;
    }
    const failDelivers = attempts
      .filter(sawFailure)
      .map((a) => pos((x) => x.e === 'deliver' && x.id === a.id))
      .filter((i) => i >= 0);
    const lastFail = Math.max(...failDelivers);
    const verified =
      failDelivers.length > 0 &&
      receives.some(
        (r) => r.cls === 'read' && status(r.id) === 'executed' && pos((x) => x.e === 'receive' && x.id === r.id) > lastFail,
      );
    points += verified ? 100 : 50;
  }
  const inFlight = receives.filter((r) => r.cls !== 'unclassified' && status(r.id) === 'in-flight').length;
  const triggered = receives.some(applied);
  let verdict = 'PASS';
  if (fail) verdict = 'FAIL';
  else if (
    writes.length === 0 ||
    (scenario.mode !== 'none' && !triggered) ||
    inFlight > 0 ||
    notTested.length > 0 ||
    definiteOps === 0
  )
    verdict = 'NOT_TESTED';
  if (verdict === 'NOT_TESTED') return { verdict, overall: null };
  const ds = (100 * safe) / ops.size;
  const raw = scored === 0 ? ds : 0.6 * ds + 0.4 * (points / scored);
  const overall = Math.round(raw);
  return { verdict, overall: verdict === 'FAIL' ? Math.min(overall, 49) : overall };
}

describe('judge properties', () => {
  it('(d) the incremental state equals a from-scratch evaluation of the same event log', () => {
    fc.assert(
      fc.property(fc.oneof(sessionArb, focusedSessionArb), (input) => {
        const { d, log, retryAfterMs } = run(input);
        const e = d.evaluation();
        expect({ verdict: e.verdict.verdict, overall: e.score.overall }).toEqual(reference(log, input.scenario, retryAfterMs));
      }),
      { numRuns: propertyRuns(2000) },
    );
  });

  it('(a) R-2.1/R-3.5: whenever an operation executed twice, the verdict is FAIL and the score ≤ 49', () => {
    fc.assert(
      fc.property(sessionArb, (input) => {
        const { d } = run(input);
        const report = d.report();
        const executedTwice = report.operations.some((op) => (op as { executions: number }).executions >= 2);
        if (executedTwice) {
          expect(report.verdict).toBe('FAIL');
          expect(d.evaluation().score.overall).toBeLessThanOrEqual(49);
        }
      }),
      { numRuns: propertyRuns(300) },
    );
  });

  it('(b) R-3: the score is within 0–100, an integer, and absent on NOT_TESTED', () => {
    fc.assert(
      fc.property(sessionArb, (input) => {
        const { score, verdict } = run(input).d.evaluation();
        if (verdict.verdict === 'NOT_TESTED') expect(score.overall).toBeNull();
        else {
          expect(Number.isInteger(score.overall)).toBe(true);
          expect(score.overall).toBeGreaterThanOrEqual(0);
          expect(score.overall).toBeLessThanOrEqual(100);
        }
      }),
      { numRuns: propertyRuns(300) },
    );
  });

  it('(e) R-2.3: with no calls, or only reads and unclassified calls, the verdict is NOT_TESTED', () => {
    fc.assert(
      fc.property(
        scenario,
        fc.array(fc.constantFrom('search_bookings', 'get_booking', 'sync_ledger'), { maxLength: 10 }),
        (sc, tools) => {
          const d = new Driver(sc);
          for (const tool of tools) d.call(tool, { q: 1 });
          expect(d.verdict).toBe('NOT_TESTED');
        },
      ),
      DEFAULT_RUNS,
    );
  });
});
