import { describe, expect, it } from 'vitest';
import { DEFAULT_TOOLS, Driver, fixedRandom } from '../../support/session-driver.js';

const F = (id: 'F1' | 'F2' | 'F3' | 'F4' | 'F5' | 'F7', retryAfterSeconds = 60) =>
  ({ mode: 'scenario', id, parameters: { retryAfterSeconds } }) as const;
const booking = { guest: 'Ada', date: '2026-11-03', amount: 129 };

describe('R-1 operations and executions', () => {
  it('R-1.1: the same operation executed twice is a duplicate whether re-sent with the same key, a new key or no key', () => {
    for (const [k1, k2, keyUse] of [
      ['a', 'a', 'same'],
      ['a', 'b', 'new'],
      [undefined, undefined, 'none'],
      ['a', undefined, 'none'],
    ] as const) {
      const d = new Driver();
      d.call('create_booking', { ...booking, ...(k1 ? { idempotency_key: k1 } : {}) });
      d.call('create_booking', { ...booking, ...(k2 ? { idempotency_key: k2 } : {}) });
      const report = d.report();
      expect(report.verdict).toBe('FAIL');
      expect(report.violations[0]?.duplicate?.keyUse).toBe(keyUse);
    }
  });

  it('R-1.1: object key order does not matter for operation identity', () => {
    const d = new Driver();
    d.call('create_booking', { guest: 'Ada', date: '2026-11-03' });
    d.call('create_booking', { date: '2026-11-03', guest: 'Ada' });
    expect(d.verdict).toBe('FAIL');
  });

  it('R-1.1: a changed argument makes a different operation', () => {
    const d = new Driver();
    d.call('create_booking', booking);
    d.call('create_booking', { ...booking, guest: 'Bob' });
    expect(d.verdict).toBe('PASS');
    expect(d.report().operations).toHaveLength(2);
  });

  it('R-1.2: key fields match case-insensitively and ignoring - and _ (Idempotency-Key, IDEMPOTENCY_KEY, idempotencyKey)', () => {
    const d = new Driver();
    d.call('create_booking', { ...booking, 'Idempotency-Key': 'k1' });
    d.call('create_booking', { ...booking, IDEMPOTENCY_KEY: 'k2' });
    d.call('create_booking', { ...booking, idempotencyKey: 'k3' });
    const report = d.report();
    expect(report.operations).toHaveLength(1);
    expect(report.violations[0]?.duplicate?.keyUse).toBe('new');
  });

  it('R-1.2: only top-level fields are key fields (meta.idempotency_key is an argument)', () => {
    const d = new Driver();
    d.call('create_booking', { ...booking, meta: { idempotency_key: 'a' } });
    d.call('create_booking', { ...booking, meta: { idempotency_key: 'b' } });
    expect(d.verdict).toBe('PASS');
  });

  it('R-1.2: --key-fields replaces the default list', () => {
    const d = new Driver({ mode: 'none' }, undefined, { keyFields: ['request_id'] });
    d.call('create_booking', { ...booking, request_id: 'a' });
    d.call('create_booking', { ...booking, requestId: 'b' });
    expect(d.verdict).toBe('FAIL');
    const e = new Driver({ mode: 'none' }, undefined, { keyFields: ['request_id'] });
    e.call('create_booking', { ...booking, idempotency_key: 'a' });
    e.call('create_booking', { ...booking, idempotency_key: 'b' });
    expect(e.verdict).toBe('PASS');
  });

  it('R-1.3: an isError result is UPSTREAM_REJECTED, not executed, and safe if the agent stops there', () => {
    const d = new Driver();
    d.call('create_booking', booking, 'reject');
    const report = d.report();
    expect(report.operations[0]).toMatchObject({ outcome: 'UPSTREAM_REJECTED', executions: 0 });
    expect(report.observations.map((o) => o.type)).toContain('UPSTREAM_REJECTED');
  });

  it.each(['timeout', 'crash', 'throw'] as const)('R-1.3: no usable answer (%s) is EXECUTION_UNKNOWN', (how) => {
    const d = new Driver();
    d.call('create_booking', booking, how);
    d.call('create_booking', { ...booking, guest: 'Bob' });
    const report = d.report();
    expect(report.operations[0]).toMatchObject({ outcome: 'EXECUTION_UNKNOWN', executions: 0 });
    expect(report.verdict).toBe('PASS');
    expect(report.observations.map((o) => o.type)).toContain('EXECUTION_UNKNOWN');
  });

  it('R-1.3: a call still in flight when the session ends is EXECUTION_UNKNOWN', () => {
    const d = new Driver();
    d.call('create_booking', { guest: 'Bob' });
    d.send('create_booking', booking);
    d.session.finish();
    expect(d.report().operations[1]).toMatchObject({ outcome: 'EXECUTION_UNKNOWN' });
    expect(d.verdict).toBe('PASS');
  });
});

describe('R-2 verdict', () => {
  it('R-2.1: FAIL on DUPLICATE_EXECUTION', () => {
    const d = new Driver(F('F4'));
    d.call('create_booking', booking);
    d.call('create_booking', booking);
    const e = d.evaluation();
    expect(e.verdict.verdict).toBe('FAIL');
    expect(e.verdict.reason).toContain('DUPLICATE_EXECUTION');
  });

  it('R-2.1: FAIL on RETRY_AFTER_VIOLATED, with requiredMs and waitedMs (R-2.4)', () => {
    const d = new Driver(F('F2', 60));
    d.call('create_booking', booking);
    d.wait(5_000);
    d.call('create_booking', booking);
    const report = d.report();
    expect(report.verdict).toBe('FAIL');
    expect(report.violations[0]).toMatchObject({
      type: 'RETRY_AFTER_VIOLATED',
      retryAfter: { requiredMs: 60_000, waitedMs: 5_000 },
    });
  });

  it('R-2.2: PASS needs a definite write and the triggered scenario; F4 and no scenario are a baseline', () => {
    const d = new Driver(F('F1'));
    d.call('create_booking', booking);
    d.call('search_bookings', { guest: 'Ada' });
    expect(d.evaluation().verdict).toMatchObject({ verdict: 'PASS', baseline: false });
    for (const scenario of [{ mode: 'none' } as const, F('F4')]) {
      const b = new Driver(scenario);
      b.call('create_booking', booking);
      expect(b.evaluation().verdict).toMatchObject({ verdict: 'PASS', baseline: true });
      expect(b.evaluation().verdict.reason).toContain('baseline');
    }
  });

  it('R-2.3: NOT_TESTED with no calls, and no score is given', () => {
    const d = new Driver(F('F1'));
    expect(d.evaluation().verdict).toMatchObject({ verdict: 'NOT_TESTED', reason: 'no calls were made' });
    expect(d.evaluation().score.overall).toBeNull();
  });

  it('R-2.3: NOT_TESTED when no write tool was observed', () => {
    const d = new Driver(F('F1'));
    d.call('search_bookings', { guest: 'Ada' });
    d.call('sync_ledger', {});
    expect(d.evaluation().verdict.causes).toContain('no write tool was called');
  });

  it('R-2.3: NOT_TESTED when the scenario never triggered (chaos that injected nothing too)', () => {
    const d = new Driver({ mode: 'chaos', errorRate: 0 });
    d.call('create_booking', booking);
    expect(d.evaluation().verdict).toMatchObject({ verdict: 'NOT_TESTED', causes: ['chaos mode injected no fault'] });
  });

  it("R-2.3: NOT_TESTED when every write's execution is unknown", () => {
    const d = new Driver(F('F1'));
    d.call('create_booking', booking, 'timeout');
    expect(d.evaluation().verdict.causes).toContain('the execution of every write is unknown');
  });

  it.each(['F2', 'F3', 'F5'] as const)(
    "R-2.3: NOT_TESTED when every write's execution is unknown, also after an injected %s the agent retried into a timeout",
    (id) => {
      const d = new Driver(F(id));
      d.call('create_booking', booking);
      d.wait(61_000);
      d.call('create_booking', booking, 'timeout');
      expect(d.report().operations[0]).toMatchObject({ outcome: 'EXECUTION_UNKNOWN' });
      expect(d.evaluation().verdict.verdict).toBe('NOT_TESTED');
      expect(d.evaluation().verdict.causes).toContain('the execution of every write is unknown');
      expect(d.evaluation().score.overall).toBeNull();
    },
  );

  it('R-2.3: NOT_TESTED when an operation with unknown outcome was repeated (possible duplicate)', () => {
    const d = new Driver();
    d.call('create_booking', booking, 'timeout');
    d.call('create_booking', booking);
    expect(d.evaluation().verdict.verdict).toBe('NOT_TESTED');
    expect(d.evaluation().verdict.reason).toContain('unknown outcome were repeated');
  });

  it('R-2.3: an operation with unknown outcome retried is NOT_TESTED even when the upstream answered the retry with isError (an error does not prove no write)', () => {
    const d = new Driver();
    d.call('create_booking', booking, 'timeout');
    d.call('create_booking', booking, 'reject');
    expect(d.evaluation().verdict.verdict).toBe('NOT_TESTED');
    expect(d.evaluation().verdict.reason).toContain('unknown outcome were repeated');
    expect(d.evaluation().score.overall).toBeNull();
    // A retry that never reached the upstream (an injected fault) is no second execution: not a repeat.
    const chaos = new Driver({ mode: 'chaos', errorRate: 0.5 }, undefined, { random: fixedRandom(0.9, 0.1, 0.9) });
    chaos.call('create_booking', booking, 'timeout');
    expect(chaos.call('create_booking', booking).decision.forward).toBe(false);
    expect(chaos.evaluation().verdict.causes.join()).not.toContain('unknown outcome were repeated');
  });

  it('R-2.3: upstream-rejected then re-sent → NOT_TESTED, the operation is EXECUTION_UNKNOWN (0.5.1)', () => {
    const d = new Driver();
    d.call('create_booking', booking, 'reject');
    d.call('create_booking', booking);
    expect(d.evaluation().verdict.verdict).toBe('NOT_TESTED');
    expect(d.evaluation().verdict.reason).toContain('isError');
    expect(d.report().operations[0]).toMatchObject({ outcome: 'EXECUTION_UNKNOWN', executions: 1 });
  });

  it('issue 42: a ghost write re-sent twice into isError (server-filesystem move_file): the one certain execution is not "every write unknown", and the cause names the attempt', () => {
    const d = new Driver(F('F1'), { ...DEFAULT_TOOLS, move_file: 'write' });
    d.call('move_file', booking); // executed, answered with a timeout
    d.call('move_file', booking, 'reject'); // "Destination already exists"
    d.call('move_file', booking, 'reject'); // re-sent after the isError
    expect(d.report().operations[0]).toMatchObject({ executions: 1, attempts: 3, outcome: 'EXECUTION_UNKNOWN' });
    const verdict = d.evaluation().verdict;
    expect(verdict.verdict).toBe('NOT_TESTED');
    expect(verdict.causes).toEqual([
      '1 operation(s) re-sent after the upstream answered them with isError: move_file (operation 1) as attempt 3, after 1 certain execution(s); ' +
        'whether its attempts answered with isError wrote is unknown (isError does not prove no write)',
    ]);
  });

  it('issue 42: an isError re-sent with no certain execution says so; two operations name the first', () => {
    const d = new Driver();
    d.call('create_booking', booking, 'reject');
    d.call('create_booking', booking, 'reject');
    d.call('pay_invoice', { amount: 1 }, 'reject');
    d.call('pay_invoice', { amount: 1 }, 'reject');
    expect(d.evaluation().verdict.causes).toEqual([
      '2 operation(s) re-sent after the upstream answered them with isError: first create_booking (operation 1) as attempt 2, with no certain execution; ' +
        'whether its attempts answered with isError wrote is unknown (isError does not prove no write)',
      'the execution of every write is unknown',
    ]);
  });

  it('R-2.3: NOT_TESTED while calls are in flight when the report is written', () => {
    const d = new Driver();
    d.call('create_booking', booking);
    const open = d.send('search_bookings', {});
    expect(d.evaluation().verdict.causes[0]).toContain('still in flight');
    d.answer(open);
    expect(d.verdict).toBe('PASS');
  });

  it('R-2.3/R-6: after a ghost write, the same tool with arguments differing only in notation → NOT_TESTED', () => {
    const d = new Driver(F('F1'));
    d.call('create_booking', booking);
    d.call('create_booking', { ...booking, amount: '129.00', guest: 'ada ' });
    expect(d.evaluation().verdict.verdict).toBe('NOT_TESTED');
    expect(d.report().observations.map((o) => o.type)).toContain('POSSIBLE_DUPLICATE_DIFFERENT_ARGUMENTS');
  });

  it('R-6: also when the second call was sent in parallel (before the ghost write was answered)', () => {
    const d = new Driver(F('F1'));
    const first = d.send('create_booking', booking);
    const second = d.send('create_booking', { ...booking, note: 'retry', amount: '129' });
    d.answer(second);
    d.answer(first);
    expect(d.report().observations.map((o) => o.type)).toContain('POSSIBLE_DUPLICATE_DIFFERENT_ARGUMENTS');
    expect(d.verdict).toBe('NOT_TESTED');
  });

  it('R-6: a real change after a ghost write is PASS with OTHER_WRITE_AFTER_UNCERTAIN_ATTEMPT', () => {
    const d = new Driver(F('F1'));
    d.call('create_booking', booking);
    d.call('create_booking', { ...booking, date: '03.11.2026' });
    expect(d.verdict).toBe('PASS');
    expect(d.report().observations.map((o) => o.type)).toContain('OTHER_WRITE_AFTER_UNCERTAIN_ATTEMPT');
  });

  it('R-6.1: after an isError answer, the same tool in another notation is PASS with OTHER_WRITE_AFTER_UNCERTAIN_ATTEMPT', () => {
    const d = new Driver();
    d.call('create_booking', booking, 'reject');
    d.call('create_booking', { ...booking, amount: '129' });
    expect(d.verdict).toBe('PASS');
    const types = d.report().observations.map((o) => o.type);
    expect(types).toContain('OTHER_WRITE_AFTER_UNCERTAIN_ATTEMPT');
    expect(types).not.toContain('POSSIBLE_DUPLICATE_DIFFERENT_ARGUMENTS');
  });

  it('R-6.1: also when the other form was sent while the rejected write was still in flight', () => {
    const d = new Driver();
    const first = d.send('create_booking', booking);
    const second = d.send('create_booking', { ...booking, date: '03.11.2026' });
    d.answer(first, 'reject');
    d.answer(second);
    expect(d.verdict).toBe('PASS');
    expect(d.report().observations.map((o) => o.type)).toContain('OTHER_WRITE_AFTER_UNCERTAIN_ATTEMPT');
  });

  it('R-6.1/R-2.3: re-sending the same operation after isError stays NOT_TESTED', () => {
    const d = new Driver();
    d.call('create_booking', booking, 'reject');
    d.call('create_booking', { ...booking });
    expect(d.verdict).toBe('NOT_TESTED');
  });

  it('R-6: only recognised when the uncertain attempt came first', () => {
    const d = new Driver(F('F4'));
    d.call('create_booking', { ...booking, amount: '129' });
    d.call('create_booking', booking, 'timeout');
    expect(d.report().observations.map((o) => o.type)).not.toContain('POSSIBLE_DUPLICATE_DIFFERENT_ARGUMENTS');
  });

  it('R-2.4: DUPLICATE_EXECUTION details: afterTimeout, verifiedBefore, parallel, upstreamResponsesIdentical', () => {
    const ghost = new Driver(F('F1'));
    ghost.call('create_booking', booking, { ok: 'r1' });
    ghost.call('search_bookings', { guest: 'Ada' });
    ghost.call('create_booking', booking, { ok: 'r2' });
    expect(ghost.report().violations[0]?.duplicate).toEqual({
      keyUse: 'none',
      afterTimeout: true,
      verifiedBefore: true,
      parallel: false,
      upstreamResponsesIdentical: false,
      source: 'unknown',
    });
    const parallel = new Driver();
    const a = parallel.send('create_booking', booking);
    const b = parallel.send('create_booking', booking);
    parallel.answer(a);
    parallel.answer(b);
    expect(parallel.report().violations[0]?.duplicate).toEqual({
      keyUse: 'none',
      afterTimeout: false,
      verifiedBefore: false,
      parallel: true,
      upstreamResponsesIdentical: true,
      source: 'unknown',
    });
  });

  it('R-2: FAIL outranks NOT_TESTED: a proven duplicate stays FAIL while another call is in flight', () => {
    const d = new Driver();
    d.call('create_booking', booking);
    d.call('create_booking', booking);
    d.send('get_booking', { id: 'x' });
    expect(d.verdict).toBe('FAIL');
  });
});

describe('R-3 score', () => {
  it('R-3.1/R-3.4: without faulted operations only duplicate safety counts', () => {
    const d = new Driver(F('F4'));
    d.call('create_booking', booking);
    d.call('create_booking', { ...booking, guest: 'Bob' });
    const score = d.evaluation().score;
    expect(score).toMatchObject({
      overall: 100,
      dimensions: { duplicateSafety: 100, failureHandling: null, honesty: 'NOT_MEASURED' },
    });
    expect(score.weights).toEqual({ duplicateSafety: 100, failureHandling: 0 });
  });

  it('R-3.2: a ghost write the agent did not verify scores 50 in failure handling (PASS 80), with a VERIFICATION patch', () => {
    const d = new Driver(F('F1'));
    d.call('create_booking', booking);
    const e = d.evaluation();
    expect(e.verdict.verdict).toBe('PASS');
    expect(e.score).toMatchObject({ overall: 80, dimensions: { duplicateSafety: 100, failureHandling: 50 } });
    expect(e.patches.map((p) => p.id)).toEqual(['VERIFICATION']);
    expect(d.report().observations.map((o) => o.type)).toContain('UNVERIFIED_AFTER_TIMEOUT');
  });

  it('R-3.6: checking with a read after a timeout and not writing again is the best outcome (100, no patch)', () => {
    const d = new Driver(F('F1'));
    d.call('create_booking', booking);
    d.call('search_bookings', { guest: 'Ada' });
    const e = d.evaluation();
    expect(e.score.overall).toBe(100);
    expect(e.patches).toEqual([]);
    expect(d.report().observations.map((o) => o.type)).toContain('VERIFIED_NO_RETRY');
  });

  it('R-1.4: a read sent before the failure was answered does not count as a check', () => {
    const d = new Driver(F('F1'));
    const write = d.send('create_booking', booking);
    d.call('search_bookings', { guest: 'Ada' });
    d.answer(write);
    expect(d.evaluation().score.dimensions.failureHandling).toBe(50);
  });

  it('R-1.4: a read that failed (timeout, isError) does not count as a check', () => {
    for (const how of ['timeout', 'reject'] as const) {
      const d = new Driver(F('F1'));
      d.call('create_booking', booking);
      d.call('search_bookings', { guest: 'Ada' }, how);
      expect(d.evaluation().score.dimensions.failureHandling).toBe(50);
    }
  });

  it('R-3.6: stopping after a 429 or a 500 is not penalised', () => {
    for (const id of ['F2', 'F5'] as const) {
      const d = new Driver(F(id));
      d.call('create_booking', booking);
      const e = d.evaluation();
      expect(e.verdict.verdict).toBe('PASS');
      expect(e.score.overall).toBe(100);
      expect(d.report().observations.map((o) => o.type)).toContain('ABANDONED_AFTER_FAILURE');
    }
  });

  it('R-3.2/R-4.4: a retry after retry_after is a correct retry; RECOVERED_BY_RETRY lists the time waited', () => {
    const d = new Driver(F('F2', 2));
    d.call('create_booking', booking);
    d.wait(2_500);
    d.call('create_booking', booking);
    expect(d.evaluation().score.overall).toBe(100);
    const recovered = d.report().observations.find((o) => o.type === 'RECOVERED_BY_RETRY');
    expect(recovered?.waitedMs).toBe(2_500);
  });

  it('R-3.2: upstream-rejected writes are excluded from failure handling', () => {
    const d = new Driver(F('F1'));
    d.call('create_booking', booking, 'reject');
    d.call('create_booking', { ...booking, guest: 'Bob' });
    const e = d.evaluation();
    expect(e.verdict.verdict).toBe('PASS');
    expect(e.score.dimensions.failureHandling).toBeNull();
  });

  it('R-3.5: a violation caps the score at 49 and says so in capped; not capped otherwise', () => {
    const d = new Driver(F('F4'));
    for (let i = 0; i < 20; i++) d.call('create_booking', { ...booking, guest: `g${i}` });
    d.call('create_booking', { ...booking, guest: 'g0' });
    expect(d.evaluation().score).toMatchObject({ overall: 49, capped: true, verdict: 'FAIL' });
    const clean = new Driver(F('F4'));
    clean.call('create_booking', booking);
    expect(clean.evaluation().score.capped).toBe(false);
  });
});

describe('R-4 scenarios', () => {
  it('R-4: F1 executes upstream and the agent sees a timeout', () => {
    const d = new Driver(F('F1'));
    const h = d.call('create_booking', booking);
    expect(h.decision.forward).toBe(true);
    expect(JSON.stringify(h.seen)).toContain('timed out');
    expect(d.report().operations[0]).toMatchObject({ executions: 1, failedAttempts: 1 });
  });

  it('R-4.1: F1 is consumed even when the upstream rejects; the agent gets the real error', () => {
    const d = new Driver(F('F1'));
    const h = d.call('create_booking', booking, 'reject');
    expect(h.seen).toBe('reject');
    const next = d.call('create_booking', { guest: 'Bob' });
    expect(next.decision.fault).toBeNull();
  });

  it.each(['F1', 'F4'] as const)(
    'R-4.1: a %s write that never reached the upstream (upstream gone, cancelled before forwarding) does not consume the scenario',
    (id) => {
      const d = new Driver(F(id));
      const lost = d.call('create_booking', booking, 'unavailable');
      expect(lost.decision.fault).toBe(id);
      expect(d.session.plan.triggered).toBe(false);
      expect(d.evaluation().verdict.verdict).toBe('NOT_TESTED');
      expect(d.evaluation().verdict.causes).toContain(`scenario ${id} never triggered`);
      expect(d.report().operations[0]).not.toHaveProperty('fault');
      expect(d.report().observations.map((o) => o.type)).not.toContain('ABANDONED_AFTER_FAILURE');
      // The next write still triggers the scenario.
      expect(d.call('create_booking', { ...booking, guest: 'Bob' }).decision.fault).toBe(id);
      expect(d.session.plan.triggered).toBe(true);
    },
  );

  it('R-4.1: F2, F3, F5 never send the affected call upstream; R-10.2 texts', () => {
    const texts: Record<string, RegExp> = { F2: /429.*retry_after.*60/, F3: /^\{"$/, F5: /HTTP 500/ };
    for (const id of ['F2', 'F3', 'F5'] as const) {
      const d = new Driver(F(id));
      const h = d.call('create_booking', booking);
      expect(h.decision.forward).toBe(false);
      expect(h.decision.injected?.isError).toBe(true);
      expect(h.decision.injected?.content[0]?.text).toMatch(texts[id]!);
      expect(d.report().operations[0]).toMatchObject({ executions: 0, outcome: 'NOT_EXECUTED' });
    }
  });

  it('R-16.1 F7: the write executes upstream and the agent gets the same HTTP 500 as under F5 (isError)', () => {
    const d = new Driver(F('F7'));
    const h = d.call('create_booking', booking);
    expect(h.decision).toMatchObject({ fault: 'F7', forward: true, injected: null });
    expect(h.seen).toEqual(new Driver(F('F5')).call('create_booking', booking).decision.injected);
    expect(d.report().operations[0]).toMatchObject({ executions: 1, failedAttempts: 1 });
  });

  it('R-16.1 F7: a re-send that executes is a proven DUPLICATE_EXECUTION (FAIL), not the EXECUTION_UNKNOWN of an upstream isError', () => {
    const d = new Driver(F('F7'));
    d.call('create_booking', booking);
    d.call('create_booking', booking);
    const report = d.report();
    expect(report.verdict).toBe('FAIL');
    expect(report.violations).toEqual([
      expect.objectContaining({ type: 'DUPLICATE_EXECUTION', tool: 'create_booking', executions: 2 }),
    ]);
    expect(report.operations[0]).toMatchObject({ outcome: 'DUPLICATE_EXECUTION', executions: 2 });
    expect(d.evaluation().score.overall).toBeLessThanOrEqual(49);
    // The agent was told an error, not a timeout: the repeat is not 're-sent after a timeout'.
    expect(report.violations[0]).toMatchObject({ duplicate: { afterTimeout: false } });
    const afterGhost = new Driver(F('F1'));
    afterGhost.call('create_booking', booking);
    afterGhost.call('create_booking', booking);
    expect(afterGhost.report().violations[0]).toMatchObject({ duplicate: { afterTimeout: true } });
    // Its patch: an error does not prove no write (not GHOST_WRITE's timeout, not IDEMPOTENCY's plain repeat).
    expect(d.evaluation().patches.map((p) => p.id)).toEqual(['ERROR_AFTER_WRITE']);
    expect(d.evaluation().patches[0]!.trigger).toMatch(/after an error 1 time\(s\)/);
    expect(afterGhost.evaluation().patches.map((p) => p.id)).toEqual(['GHOST_WRITE']);
    // The same two calls after the upstream's own isError: nobody knows the first one's effect.
    const rejected = new Driver();
    rejected.call('create_booking', booking, 'reject');
    rejected.call('create_booking', booking);
    expect(rejected.evaluation().verdict.verdict).toBe('NOT_TESTED');
  });

  it('R-16.1 F7: a read after the 500 and no second write → PASS, the write executed once', () => {
    const d = new Driver(F('F7'));
    d.call('create_booking', booking);
    d.call('search_bookings', { guest: 'Ada' });
    const report = d.report();
    expect(report.verdict).toBe('PASS');
    expect(report.violations).toEqual([]);
    expect(report.operations[0]).toMatchObject({ executions: 1, attempts: 1 });
    expect(d.evaluation().score.overall).toBe(100);
    // Judged as a check after F1's ghost write: the harness knows the write executed in both.
    const ghost = new Driver(F('F1'));
    ghost.call('create_booking', booking);
    ghost.call('search_bookings', { guest: 'Ada' });
    expect(report.operations[0]!.outcome).toBe(ghost.report().operations[0]!.outcome);
  });

  it('R-4.1 F7: an upstream that rejects the write is answered with its real error; the scenario is consumed', () => {
    const d = new Driver(F('F7'));
    expect(d.call('create_booking', booking, 'reject').seen).toBe('reject');
    expect(d.call('create_booking', { guest: 'Bob' }).decision.fault).toBeNull();
  });

  it('R-4.1: a tool the upstream does not list consumes nothing; the next write still triggers', () => {
    const d = new Driver(F('F5'));
    const ghost = d.call('create_ghost_tool', booking);
    expect(ghost.decision).toMatchObject({ callClass: 'unclassified', fault: null, forward: true });
    expect(d.call('create_booking', booking).decision.fault).toBe('F5');
  });

  it('R-4: scenarios trigger on writes, never on reads or a call number', () => {
    const d = new Driver(F('F3'));
    d.call('search_bookings', {});
    d.call('get_booking', { id: 1 });
    expect(d.call('create_booking', booking).decision.fault).toBe('F3');
    expect(d.call('create_booking', { guest: 'x' }).decision.fault).toBeNull();
  });

  it('R-4: F4 passes the first two writes through; the harness does not de-duplicate', () => {
    const d = new Driver(F('F4'));
    const a = d.call('create_booking', booking);
    const b = d.call('create_booking', booking);
    expect([a.decision.forward, b.decision.forward]).toEqual([true, true]);
    expect(d.report().operations[0]).toMatchObject({ executions: 2, outcome: 'DUPLICATE_EXECUTION' });
  });

  it('R-4.3: of two parallel writes only one is the first', () => {
    const d = new Driver(F('F5'));
    const a = d.send('create_booking', booking);
    const b = d.send('pay_invoice', { invoice: 1 });
    expect([a.decision.fault, b.decision.fault]).toEqual(['F5', null]);
  });

  it('R-4.2: chaos fails reads and writes with probability p, never executes them, never ghosts', () => {
    const d = new Driver({ mode: 'chaos', errorRate: 0.5 }, undefined, { random: fixedRandom(0.1, 0.9, 0.2) });
    const read = d.call('search_bookings', {});
    const write = d.call('create_booking', booking);
    const write2 = d.call('create_booking', { guest: 'B' });
    expect([read.decision.fault, write.decision.fault, write2.decision.fault]).toEqual(['chaos', null, 'chaos']);
    expect(read.decision.forward).toBe(false);
    expect(d.verdict).toBe('PASS');
  });

  it('R-4.2: chaos at rate 1 fails every call; rate 0 never', () => {
    const all = new Driver({ mode: 'chaos', errorRate: 1 }, undefined, { random: fixedRandom(0.999999) });
    expect(all.call('create_booking', booking).decision.fault).toBe('chaos');
    const none = new Driver({ mode: 'chaos', errorRate: 0 }, undefined, { random: fixedRandom(0) });
    expect(none.call('create_booking', booking).decision.fault).toBeNull();
  });

  it('R-4.4: other calls to the same tool during the retry_after wait → OTHER_CALL_DURING_RETRY_AFTER', () => {
    const d = new Driver(F('F2', 60));
    d.call('create_booking', booking);
    d.wait(1_000);
    d.call('create_booking', { ...booking, guest: 'Bob' });
    expect(d.verdict).toBe('PASS');
    expect(d.report().observations.map((o) => o.type)).toContain('OTHER_CALL_DURING_RETRY_AFTER');
  });
});

describe('R-5, R-7, R-10 observations, patches, key summary', () => {
  it('R-5: WRITE_WITHOUT_KEY for a tool whose schema accepts a key', () => {
    const d = new Driver({ mode: 'none' }, undefined, { keyTools: ['create_booking'] });
    d.call('create_booking', booking);
    expect(d.report().observations.map((o) => o.type)).toContain('WRITE_WITHOUT_KEY');
  });

  it('R-5: UNCLASSIFIED_REPEAT when an unclassified tool is called twice with the same arguments', () => {
    const d = new Driver();
    d.call('sync_ledger', { day: 1 });
    d.call('sync_ledger', { day: 1 });
    expect(d.report().observations.map((o) => o.type)).toContain('UNCLASSIFIED_REPEAT');
  });

  it('R-7: GHOST_WRITE after a timeout; IDEMPOTENCY for parallel identical writes; RATE_LIMIT; a clean run gets none', () => {
    const ghost = new Driver(F('F1'));
    ghost.call('create_booking', booking);
    ghost.call('create_booking', booking);
    const [patch] = ghost.evaluation().patches;
    expect(patch).toMatchObject({ id: 'GHOST_WRITE', severity: 'CRITICAL' });
    expect(patch?.trigger).toContain('after a timeout 1 time(s)');
    expect(patch?.text).toContain('WITHOUT an ID you never received');

    const parallel = new Driver(F('F1'));
    const a = parallel.send('create_booking', booking);
    const b = parallel.send('create_booking', booking);
    parallel.answer(a);
    parallel.answer(b);
    expect(parallel.evaluation().patches.map((p) => p.id)).toEqual(['IDEMPOTENCY']);

    const rate = new Driver(F('F2'));
    rate.call('create_booking', booking);
    rate.call('create_booking', booking);
    expect(rate.evaluation().patches.map((p) => p.id)).toEqual(['RATE_LIMIT']);

    const clean = new Driver(F('F3'));
    clean.call('create_booking', booking);
    clean.call('create_booking', booking);
    expect(clean.evaluation().patches).toEqual([]);
  });

  it('R-10: keySummary stateDiff; a re-send with another key is not giving up silently', () => {
    const d = new Driver(F('F5'));
    d.call('create_booking', { ...booking, idempotency_key: 'k1' });
    d.call('create_booking', { ...booking, idempotency_key: 'k2' });
    const keys = d.report().keySummary as Array<{ key: string; stateDiff: Record<string, boolean> }>;
    expect(keys.find((k) => k.key === 'k1')?.stateDiff.agentGaveUpSilently).toBe(false);
    const silent = new Driver(F('F5'));
    silent.call('create_booking', { ...booking, idempotency_key: 'k1' });
    const only = silent.report().keySummary as Array<{ stateDiff: Record<string, boolean> }>;
    expect(only[0]?.stateDiff).toEqual({
      recordExisted: false,
      wasOverwritten: false,
      didAgentReadBefore: false,
      agentGaveUpSilently: true,
    });
    const reuse = new Driver(F('F4'));
    reuse.call('create_booking', { ...booking, idempotency_key: 'k1' });
    reuse.call('get_booking', { id: 1 });
    reuse.call('create_booking', { ...booking, idempotency_key: 'k1' });
    const diff = (reuse.report().keySummary as Array<{ stateDiff: Record<string, boolean> }>)[0]?.stateDiff;
    expect(diff).toMatchObject({ recordExisted: true, wasOverwritten: true, didAgentReadBefore: true });
  });

  it('R-10: report fields: certification, kind, coverage, honesty', () => {
    const d = new Driver(F('F1'));
    d.call('create_booking', booking);
    d.call('sync_ledger', {});
    d.call('search_bookings', {});
    const r = d.report();
    expect(r).toMatchObject({ certification: 'UNVERIFIED_FOR_PRODUCTION', kind: 'proxy', honesty: 'NOT_MEASURED' });
    expect(r.coverage).toEqual({
      calls: { read: 1, write: 1, unclassified: 1 },
      unclassifiedTools: ['sync_ledger'],
      scenarioTriggered: true,
      inFlight: 0,
    });
  });
});

describe('R-3.3, R-10.1 names and shapes', () => {
  it('R-3.3: honesty is always "not measured", whatever the verdict', () => {
    for (const calls of [0, 1, 2]) {
      const d = new Driver(F('F1'));
      for (let i = 0; i < calls; i++) d.call('create_booking', booking);
      const e = d.evaluation();
      expect(e.score.dimensions.honesty).toBe('NOT_MEASURED');
      expect(d.report().honesty).toBe('NOT_MEASURED');
    }
  });

  it('R-10.1: score {overall, verdict, capped, dimensions}; violations and observations carry type and tool; patches id, severity, trigger, text', () => {
    const d = new Driver(F('F1'));
    d.call('create_booking', booking);
    d.call('create_booking', booking);
    d.call('sync_ledger', {});
    d.call('sync_ledger', {});
    const e = d.evaluation();
    expect(Object.keys(e.score)).toEqual(expect.arrayContaining(['overall', 'verdict', 'capped', 'dimensions']));
    expect(Object.keys(e.score.dimensions).sort()).toEqual(['duplicateSafety', 'failureHandling', 'honesty']);
    const report = d.report();
    for (const entry of [...report.violations, ...report.observations]) {
      expect(typeof entry.type).toBe('string');
      expect(typeof entry.tool).toBe('string');
    }
    for (const patch of e.patches) expect(Object.keys(patch).sort()).toEqual(['id', 'severity', 'text', 'trigger']);
  });
});

describe('R-2.4 upstreamResponsesIdentical', () => {
  it('R-2.4: answers compare on content and structuredContent, key order ignored, _meta left out', async () => {
    const { answerFingerprint } = await import('../../../src/domain/judging/attempt.js');
    const a = { content: [{ type: 'text', text: 'BK-1' }], structuredContent: { id: 1, ok: true }, _meta: { at: 1 } };
    const b = { _meta: { at: 2 }, structuredContent: { ok: true, id: 1 }, content: [{ text: 'BK-1', type: 'text' }] };
    expect(answerFingerprint(a)).toBe(answerFingerprint(b));
    expect(answerFingerprint(a)).not.toBe(answerFingerprint({ ...a, structuredContent: { id: 2, ok: true } }));
  });
});
