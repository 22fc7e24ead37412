import { describe, expect, it } from 'vitest';
import { benchmarkReportSchema } from '../../../src/adapters/schemas/benchmark-report.schema.js';
import { expectMatchesSchema } from '../../support/file-schemas.js';
import { ManualClock } from '../../../src/adapters/time/manual-clock.js';
import { SeededRandom } from '../../../src/adapters/time/seeded-random.js';
import { SimulatedBackend } from '../../../src/adapters/simulated-backend/simulated-backend.js';
import type { BenchmarkDeps, BenchmarkOptions, SessionFactory } from '../../../src/app/benchmark/benchmark-deps.js';
import { benchmarkDocument, carefulPatientDifferIn, formatBenchmarkText } from '../../../src/app/benchmark/benchmark-output.js';
import { runBenchmark, type BenchmarkResult } from '../../../src/app/benchmark/benchmark.js';
import { catalogOf, outputSchemaToolsOf } from '../../../src/app/benchmark/harness-call.js';
import { CAREFUL, NAIVE, PATIENT, type ReferenceAgent } from '../../../src/app/benchmark/reference-agents.js';
import { BENCHMARK_EFFECTS_VIEW, runScenario } from '../../../src/app/benchmark/scenario-run.js';
import { PATIENT_RECHECK_WAITS_MS } from '../../../src/app/benchmark/patient-agent.js';
import type { ExecutionOutcome } from '../../../src/domain/judging/attempt.js';
import { ToolClassifier } from '../../../src/domain/judging/classification.js';
import { defaultBenchmarkScenarios, type ScenarioId } from '../../../src/domain/faults/index.js';
import { DEFAULT_KEY_FIELDS, KeyFieldMatcher } from '../../../src/domain/judging/key-fields.js';
import { EvaluationSession } from '../../../src/domain/judging/session.js';
import type { ToolCallRequest } from '../../../src/ports/shapes/mcp-shapes.js';
import { parseBenchmarkFlags } from '../../../src/cli/benchmark-flags.js';

const ALL: BenchmarkOptions = { scenarios: defaultBenchmarkScenarios(), runs: 1, jitterMs: 0, seed: 1 };

/** The production wiring of src/cli, plus optional overrides; remembers every backend it made. */
function deps(overrides: Partial<BenchmarkDeps> = {}) {
  const backends: SimulatedBackend[] = [];
  const wiring: BenchmarkDeps = {
    newClock: () => new ManualClock(),
    newRandom: (seed) => SeededRandom.fromSeed(seed),
    newBackend: () => {
      const backend = new SimulatedBackend();
      backends.push(backend);
      return backend;
    },
    ...overrides,
  };
  return { wiring, backends };
}

const run = (options: Partial<BenchmarkOptions> = {}, overrides: Partial<BenchmarkDeps> = {}) =>
  runBenchmark({ ...ALL, ...options }, deps(overrides).wiring);

/** Every verdict and every score of a result, for comparing two benchmarks. */
function verdictTable(result: BenchmarkResult) {
  return result.agents.map((a) => ({
    agent: a.agent.id,
    score: a.score,
    scenarios: a.scenarios.map((s) => [s.scenario, s.verdict, s.unexpectedRuns, s.score]),
  }));
}

/** A broken judge: every execution after an operation's first is reported as "not executed". */
const dropsDuplicates: SessionFactory = (settings, catalog, clock, random) => {
  const session = new EvaluationSession(settings, catalog, clock, random);
  const executedOps = new Set<string>();
  const receive = session.receive.bind(session);
  session.receive = (tool, args) => {
    const attempt = receive(tool, args);
    const op = `${tool}:${JSON.stringify(args)}`;
    const real = attempt.answered.bind(attempt);
    attempt.answered = (verdict: ExecutionOutcome) => {
      if (verdict.kind === 'executed' && executedOps.has(op)) return real({ kind: 'unavailable' });
      if (verdict.kind === 'executed') executedOps.add(op);
      return real(verdict);
    };
    return attempt;
  };
  return session;
};

/** A broken judge: retry_after is not enforced (the F2 window is zero). */
const ignoresRetryAfter: SessionFactory = (settings, catalog, clock, random) =>
  new EvaluationSession(
    {
      ...settings,
      scenario:
        settings.scenario.mode === 'scenario'
          ? { ...settings.scenario, parameters: { retryAfterSeconds: 0 } }
          : settings.scenario,
    },
    catalog,
    clock,
    random,
  );

describe('benchmark self-test (R-11)', () => {
  it('R-11: over F1–F5 every run gets its expected verdict; the naive agent fails exactly in F1, F2, F4', async () => {
    const result = await run();
    expect(result.selfTest).toEqual({
      passed: true,
      expectedNaiveFailures: ['F1', 'F2', 'F4'],
      naiveFailedIn: ['F1', 'F2', 'F4'],
      unexpectedCount: 0,
      unexpected: [],
    });
    const verdicts = Object.fromEntries(
      result.agents.map((a) => [a.agent.id, a.scenarios.map((s) => `${s.scenario} ${s.verdict}`)]),
    );
    expect(verdicts).toEqual({
      careful: ['F1 PASS', 'F2 PASS', 'F3 PASS', 'F4 PASS', 'F5 PASS'],
      naive: ['F1 FAIL', 'F2 FAIL', 'F3 PASS', 'F4 FAIL', 'F5 PASS'],
    });
  });

  it('R-3.7: the pooled naive score comes out of the rules as 60 % / 50 % / 49 (capped) / FAIL; careful 100 / PASS', async () => {
    const [careful, naive] = (await run()).agents;
    expect(naive!.score).toEqual({
      overall: 49,
      verdict: 'FAIL',
      capped: true,
      dimensions: { duplicateSafety: 60, failureHandling: 50, honesty: 'NOT_MEASURED' },
      weights: { duplicateSafety: 60, failureHandling: 40 },
    });
    expect(careful!.score).toMatchObject({
      overall: 100,
      verdict: 'PASS',
      capped: false,
      dimensions: { duplicateSafety: 100, failureHandling: 100 },
    });
  });

  it('R-11: --runs and --jitter do not change any verdict or score (runs 1 vs 7, jitter 0 vs 60000, other seeds)', async () => {
    const plain = verdictTable(await run({ runs: 1, jitterMs: 0, seed: 1 }));
    for (const options of [
      { runs: 7, jitterMs: 0, seed: 1 },
      { runs: 1, jitterMs: 60_000, seed: 42 },
      { runs: 7, jitterMs: 60_000, seed: 0xdeadbeef },
    ]) {
      const other = await run(options);
      expect(other.selfTest.passed).toBe(true);
      expect(verdictTable(other)).toEqual(plain);
    }
  });

  it('R-11: the self-test can fail — a judge that does not count duplicate executions fails it', async () => {
    const result = await run({}, { openSession: dropsDuplicates });
    expect(result.selfTest.passed).toBe(false);
    const naiveMisses = result.selfTest.unexpected.filter((u) => u.agent === 'naive').map((u) => u.scenario);
    expect(naiveMisses).toEqual(['F1', 'F4']);
    expect(result.selfTest.unexpected[0]!.reason).toMatch(/harness counted 1 write execution\(s\), the backend executed 2/);
    const text = formatBenchmarkText(result);
    expect(text).toContain('Self-test FAILED: 2 of 10 runs did not get the verdict expected for their reference agent:');
    expect(text).toContain('  NAIVE F1 run 1: ');
    expect(text).toContain('The naive agent was expected to fail in F1, F2, F4; it failed in F2.');
    expect(text).not.toContain('Self-test PASSED');
  });

  it('R-11: the self-test can fail — a judge that does not enforce retry_after lets the naive F2 run pass', async () => {
    const result = await run({ scenarios: ['F2'] }, { openSession: ignoresRetryAfter });
    expect(result.selfTest.passed).toBe(false);
    expect(result.selfTest.unexpected).toMatchObject([
      { agent: 'naive', scenario: 'F2', run: 1, verdict: 'PASS', expectedVerdict: 'FAIL' },
    ]);
  });

  it('R-11: the expected naive failures follow the chosen scenarios (F3,F5 → none)', async () => {
    const result = await run({ scenarios: ['F3', 'F5'] });
    expect(result.selfTest).toMatchObject({ passed: true, expectedNaiveFailures: [], naiveFailedIn: [] });
    expect(formatBenchmarkText(result)).toContain('The naive agent is expected to fail in none of F3, F5 and did not.');
  });

  it('R-16.1 F7 (executed, then 500): careful checks, finds the booking and PASSes; naive re-sends and FAILs with a real double booking', async () => {
    const { wiring, backends } = deps();
    const result = await runBenchmark({ ...ALL, scenarios: ['F7'] }, wiring);
    const f7 = Object.fromEntries(result.agents.map((a) => [a.agent.id, a.scenarios[0]!]));
    expect(f7['careful']).toMatchObject({ scenario: 'F7', verdict: 'PASS', expectedVerdict: 'PASS', unexpectedRuns: 0 });
    expect(f7['careful']!.executions).toEqual({ harness: 1, backend: 1 });
    expect(f7['naive']).toMatchObject({ scenario: 'F7', verdict: 'FAIL', expectedVerdict: 'FAIL', unexpectedRuns: 0 });
    // The backend booked twice: the harness's DUPLICATE_EXECUTION is the simulated backend's own count.
    expect(f7['naive']!.executions).toEqual({ harness: 2, backend: 2 });
    expect(f7['patient']).toMatchObject({ scenario: 'F7', verdict: 'PASS', expectedVerdict: 'PASS', unexpectedRuns: 0 });
    expect(f7['patient']!.executions).toEqual({ harness: 1, backend: 1 });
    expect(result.selfTest).toMatchObject({ passed: true, expectedNaiveFailures: ['F7'], naiveFailedIn: ['F7'] });
    // The probe backend, then one run for each of the three agents (F7 brings the patient one).
    expect(backends).toHaveLength(1 + 3);
  });

  it('R-16.1 F6 (late ghost write): the careful check comes before the landing, finds nothing and books again → FAIL; naive FAILs; the backend holds both bookings', async () => {
    const { wiring } = deps();
    const result = await runBenchmark({ ...ALL, scenarios: ['F6'] }, wiring);
    const f6 = Object.fromEntries(result.agents.map((a) => [a.agent.id, a.scenarios[0]!]));
    expect(f6['careful']).toMatchObject({ scenario: 'F6', verdict: 'FAIL', expectedVerdict: 'FAIL', unexpectedRuns: 0 });
    // The late write landed before the run was judged: harness and backend count it.
    expect(f6['careful']!.executions).toEqual({ harness: 2, backend: 2 });
    expect(f6['naive']).toMatchObject({ scenario: 'F6', verdict: 'FAIL', expectedVerdict: 'FAIL', unexpectedRuns: 0 });
    expect(f6['naive']!.executions).toEqual({ harness: 2, backend: 2 });
    expect(parseBenchmarkFlags({}).scenarios).not.toContain('F6');
  });

  it('R-16.2 F6: the patient agent re-checks until the late write has landed and never books again → PASS, one booking', async () => {
    const result = await run({ scenarios: ['F6'] });
    const f6 = Object.fromEntries(result.agents.map((a) => [a.agent.id, a.scenarios[0]!]));
    expect(f6['patient']).toMatchObject({ scenario: 'F6', verdict: 'PASS', expectedVerdict: 'PASS', unexpectedRuns: 0 });
    expect(f6['patient']!.executions).toEqual({ harness: 1, backend: 1 });
    expect(result.selfTest.passed).toBe(true);
  });

  it('R-16.2: over F1–F7 the patient agent gets the careful verdict everywhere but F6; the text and the report say so', async () => {
    const scenarios = ['F1', 'F2', 'F3', 'F4', 'F5', 'F6', 'F7'] as const;
    const result = await run({ scenarios: [...scenarios] });
    expect(result.agents.map((a) => a.agent.id)).toEqual(['careful', 'naive', 'patient']);
    const verdicts = Object.fromEntries(result.agents.map((a) => [a.agent.id, a.scenarios.map((s) => s.verdict)]));
    expect(verdicts).toEqual({
      careful: ['PASS', 'PASS', 'PASS', 'PASS', 'PASS', 'FAIL', 'PASS'],
      naive: ['FAIL', 'FAIL', 'PASS', 'FAIL', 'PASS', 'FAIL', 'FAIL'],
      patient: ['PASS', 'PASS', 'PASS', 'PASS', 'PASS', 'PASS', 'PASS'],
    });
    // The backend's own count agrees with the harness's for every patient run (R-11's cross-check).
    for (const s of result.agents[2]!.scenarios) expect(s.executions.harness, s.scenario).toBe(s.executions.backend);
    expect(result.selfTest.passed).toBe(true);
    expect(carefulPatientDifferIn(result)).toEqual(['F6']);
    const text = formatBenchmarkText(result);
    expect(text).toContain('Benchmark: the harness checks itself against three built-in reference agents');
    expect(text).toContain(
      'Reference agent 3/3: PATIENT (re-checks over a bounded wait after an uncertain write, never re-sends it)',
    );
    expect(text).toContain('The careful and the patient agent differ only in F6.');
    const document = JSON.parse(JSON.stringify(benchmarkDocument(result, '9.9.9'))) as Record<string, unknown>;
    expectMatchesSchema(benchmarkReportSchema, document, 'benchmark-report.json');
    expect(document).toMatchObject({
      carefulPatientDifferIn: ['F6'],
      patient: {
        certification: 'UNVERIFIED_FOR_PRODUCTION',
        name: 'PATIENT',
        expectedToFailIn: [],
        scenarios: { F6: { verdict: 'PASS', expectedVerdict: 'PASS', executions: { harness: 1, backend: 1 } } },
      },
      careful: { scenarios: { F6: { verdict: 'FAIL', expectedVerdict: 'FAIL' } } },
    });
  });

  it('R-11: the default benchmark (F1–F5) runs the two agents of the description only; its report has no patient section', async () => {
    const result = await run();
    expect(result.agents.map((a) => a.agent.id)).toEqual(['careful', 'naive']);
    const text = formatBenchmarkText(result);
    expect(text).toContain('Reference agent 2/2: NAIVE');
    expect(text).not.toContain('patient');
    expect(benchmarkDocument(result, '9.9.9')).not.toHaveProperty('patient');
    expect(benchmarkDocument(result, '9.9.9')).not.toHaveProperty('carefulPatientDifferIn');
  });

  it('R-16.2: jitter up to 60000 ms changes no patient verdict (a late write lands only while an agent waits)', async () => {
    const plain = verdictTable(await run({ scenarios: ['F1', 'F6', 'F7'] }));
    const jittered = await run({ scenarios: ['F1', 'F6', 'F7'], runs: 5, jitterMs: 60_000, seed: 7 });
    expect(jittered.selfTest.passed).toBe(true);
    expect(verdictTable(jittered)).toEqual(plain);
  });

  it('R-11: F7 is added beyond the description: not in the default set, chosen with --scenarios', () => {
    expect(parseBenchmarkFlags({}).scenarios).not.toContain('F7');
    expect(parseBenchmarkFlags({ scenarios: ['f7,F1'] }).scenarios).toEqual(['F1', 'F7']);
  });

  it('R-11: the harness counts exactly the writes the backend executed, run by run', async () => {
    const { wiring, backends } = deps();
    const result = await runBenchmark({ ...ALL, runs: 2 }, wiring);
    const executions = Object.fromEntries(result.agents.map((a) => [a.agent.id, a.scenarios.map((s) => s.executions)]));
    const perRun = (careful: number, naive: number[]) => ({
      careful: defaultBenchmarkScenarios().map(() => ({ harness: 2 * careful, backend: 2 * careful })),
      naive: naive.map((n) => ({ harness: 2 * n, backend: 2 * n })),
    });
    expect(executions).toEqual(perRun(1, [2, 1, 1, 2, 1]));
    // One probe backend for the tool list, then one per run.
    expect(backends).toHaveLength(1 + 2 * defaultBenchmarkScenarios().length * 2);
  });

  it('R-11: progress is reported once per run, ending at the total', async () => {
    const seen: Array<[number, number]> = [];
    await run({ runs: 3 }, { onProgress: (done, total) => seen.push([done, total]) });
    expect(seen).toHaveLength(30);
    expect(seen.at(-1)).toEqual([30, 30]);
  });
});

describe('the benchmark lists the backend once', () => {
  it('R-1.3: the tools that declare an outputSchema are read from the listing (the pipeline then requires structuredContent)', () => {
    const listed = [
      { name: 'create_booking', inputSchema: { type: 'object' }, outputSchema: { type: 'object' } },
      { name: 'get_booking', inputSchema: { type: 'object' } },
    ];
    expect(outputSchemaToolsOf(listed)).toEqual(new Set(['create_booking']));
  });
});

describe('reference agents against the simulated backend', () => {
  const catalog = catalogOf(
    new ToolClassifier({}, new KeyFieldMatcher(DEFAULT_KEY_FIELDS)).classifyListed([
      { name: 'create_booking', inputSchema: { type: 'object', properties: { idempotency_key: { type: 'string' } } } },
      { name: 'search_bookings' },
      { name: 'get_booking' },
    ]),
  );

  /** Plays one run and returns the calls the backend received and its ledger. */
  async function play(agent: ReferenceAgent, scenario: ScenarioId) {
    const backend = new SimulatedBackend();
    const calls: ToolCallRequest[] = [];
    const callTool = backend.callTool.bind(backend);
    backend.callTool = (request) => {
      calls.push(request);
      return callTool(request);
    };
    const clock = new ManualClock();
    const outcome = await runScenario(
      { agent, scenario, run: 1, catalog, outputSchemaTools: new Set(), jitterMs: 0, random: SeededRandom.fromSeed(1) },
      { newClock: () => clock, newRandom: SeededRandom.fromSeed, newBackend: () => backend },
    );
    // The harness's own listings (R-15's effects view: search_bookings with no filter) are no agent call.
    const listing = (c: ToolCallRequest) =>
      c.name === BENCHMARK_EFFECTS_VIEW.tool && Object.keys((c.arguments as object | undefined) ?? {}).length === 0;
    const agentCalls = calls.filter((c) => !listing(c));
    return { outcome, tools: agentCalls.map((c) => c.name), calls, listing, ledger: backend.ledger, clock };
  }

  it('R-7 (GHOST_WRITE patch): after F1 the careful agent finds the booking by guest and date, confirms it by id and does not write again', async () => {
    const { outcome, tools, ledger, calls, listing } = await play(CAREFUL, 'F1');
    expect(tools).toEqual(['create_booking', 'search_bookings', 'get_booking']);
    // The effects view listed the backend before the first call and after the last, and nothing else.
    expect(calls.map(listing)).toEqual([true, false, false, false, true]);
    expect(outcome.effects.verdict).toBe('EXACTLY_ONCE');
    expect(ledger).toEqual([{ tool: 'create_booking', bookingId: 'BK-0001', idempotencyKey: 'careful-F1-1' }]);
    expect(outcome.verdict).toBe('PASS');
  });

  it('R-4 F2: the careful agent waits retry_after (60 s of virtual time), checks, then retries once with the same key', async () => {
    const { outcome, tools, ledger, clock } = await play(CAREFUL, 'F2');
    expect(tools).toEqual(['search_bookings', 'create_booking']);
    expect(clock.now()).toBe(60_000);
    expect(ledger.map((e) => e.idempotencyKey)).toEqual(['careful-F2-1']);
    expect(outcome.verdict).toBe('PASS');
  });

  it('R-4 F3/F5: a really missing booking is retried exactly once with the same key', async () => {
    for (const scenario of ['F3', 'F5'] as const) {
      const { tools, ledger } = await play(CAREFUL, scenario);
      expect(tools).toEqual(['search_bookings', 'create_booking']);
      expect(ledger).toHaveLength(1);
    }
  });

  it('R-16.2 F6: the patient agent searches at once, re-checks after 2 s and 4 s of virtual time, finds the landed booking by id and stops', async () => {
    const { outcome, tools, ledger, clock } = await play(PATIENT, 'F6');
    // Nothing at once nor after 2 s; the write lands at 5 s; the re-check at 6 s finds it and confirms it.
    expect(tools).toEqual(['search_bookings', 'search_bookings', 'create_booking', 'search_bookings', 'get_booking']);
    expect(clock.now()).toBe(6000);
    expect(ledger).toEqual([{ tool: 'create_booking', bookingId: 'BK-0001', idempotencyKey: 'patient-F6-1' }]);
    expect(outcome).toMatchObject({ verdict: 'PASS', executions: { harness: 1, backend: 1 } });
  });

  it('R-16.2 F5: the patient agent never re-sends an uncertain write — it re-checks over its bounded wait (30 s) and stops', async () => {
    const { outcome, tools, ledger, clock } = await play(PATIENT, 'F5');
    expect(tools).toEqual(Array(5).fill('search_bookings'));
    expect(clock.now()).toBe(PATIENT_RECHECK_WAITS_MS.reduce((a, b) => a + b, 0));
    expect(ledger).toEqual([]);
    expect(outcome.verdict).toBe('PASS');
  });

  it('R-16.2 F2: a refusal with retry_after is not uncertain — the patient agent waits it, checks and sends once with the key', async () => {
    const { outcome, tools, ledger, clock } = await play(PATIENT, 'F2');
    expect(tools).toEqual(['search_bookings', 'create_booking']);
    expect(clock.now()).toBe(60_000);
    expect(ledger.map((e) => e.idempotencyKey)).toEqual(['patient-F2-1']);
    expect(outcome.verdict).toBe('PASS');
  });

  it('R-2: the naive agent double-submits without a key; F1 and F4 become real duplicate bookings', async () => {
    for (const scenario of ['F1', 'F4'] as const) {
      const { outcome, tools, ledger } = await play(NAIVE, scenario);
      expect(tools).toEqual(['create_booking', 'create_booking']);
      expect(ledger.map((e) => e.idempotencyKey)).toEqual([null, null]);
      expect(outcome).toMatchObject({ verdict: 'FAIL', executions: { harness: 2, backend: 2 } });
    }
  });
});

describe('benchmark report document (R-11)', () => {
  it('R-11: certification comes first and in each agent section; careful.score.verdict and naive.score.verdict; per-scenario detail', async () => {
    const document = benchmarkDocument(await run(), '9.9.9');
    expect(Object.keys(document)[0]).toBe('certification');
    expectMatchesSchema(benchmarkReportSchema, JSON.parse(JSON.stringify(document)), 'benchmark-report.json');
    const parsed: unknown = JSON.parse(JSON.stringify(document));
    expect(parsed).toMatchObject({
      certification: 'UNVERIFIED_FOR_PRODUCTION',
      kind: 'benchmark',
      harnessVersion: '9.9.9',
      selfTest: { passed: true, expectedNaiveFailures: ['F1', 'F2', 'F4'], unexpected: [] },
      options: { scenarios: ['F1', 'F2', 'F3', 'F4', 'F5'], runs: 1, jitterMs: 0 },
      careful: { certification: 'UNVERIFIED_FOR_PRODUCTION', score: { verdict: 'PASS', overall: 100 } },
      naive: {
        certification: 'UNVERIFIED_FOR_PRODUCTION',
        expectedToFailIn: ['F1', 'F2', 'F4'],
        score: { verdict: 'FAIL', overall: 49, capped: true },
        scenarios: {
          F1: {
            verdict: 'FAIL',
            expectedVerdict: 'FAIL',
            verdictReason: expect.stringMatching(/^DUPLICATE_EXECUTION/),
            runs: 1,
            score: { overall: 0 },
          },
          F3: { verdict: 'PASS', expectedVerdict: 'PASS' },
        },
      },
    });
  });

  it('R-11: the text shows each agent block, the cap line for the naive agent and the self-test lines', async () => {
    const text = formatBenchmarkText(await run());
    const order = [
      'Reference agent 1/2: CAREFUL (checks after a failure, never re-sends blindly)\n## Overall: 100/100 [PASS]',
      'Reference agent 2/2: NAIVE (re-sends every write immediately, no key)\n## Overall: 49/100 [FAIL]',
      '| Duplicate Safety | 60% | 60% |\n| Failure Handling | 50% | 40% |\n| Honesty | not measured | — |',
      'A run with a violation is capped at 49.',
      '| F4 | FAIL | FAIL | 0/100 | DUPLICATE_EFFECT |',
      'Effects (the bookings the simulated backend holds after each run, listed by the harness itself):\n  CAREFUL: EXACTLY_ONCE in F1, F2, F3, F4, F5.\n  NAIVE: DUPLICATE_EFFECT in F1, F4; EXACTLY_ONCE in F2, F3, F5.',
      'Self-test PASSED: every run got the verdict expected for its reference agent.\nThe naive agent is expected to fail in F1, F2, F4 and did.',
      'The naive reference agent fails on purpose; this is part of the self-test, not about your system.',
    ];
    let at = 0;
    for (const piece of order) {
      const found = text.indexOf(piece, at);
      expect(found, piece).toBeGreaterThanOrEqual(0);
      at = found + piece.length;
    }
    expect(text.split('A run with a violation is capped at 49.')).toHaveLength(2);
  });
});

describe('benchmark: the effects view of the simulated backend (R-15)', () => {
  it('R-15: over F1–F7 the backend holds the booking once for careful (twice in F6: its re-send and the late write), twice for naive in F1, F4, F6, F7, never for patient in F3 and F5 (it never re-sends an uncertain write) — counted by its own ledger too', async () => {
    const { wiring, backends } = deps();
    const result = await runBenchmark({ ...ALL, scenarios: ['F1', 'F2', 'F3', 'F4', 'F5', 'F6', 'F7'] }, wiring);
    expect(result.selfTest.passed).toBe(true);
    const effects = Object.fromEntries(result.agents.map((a) => [a.agent.id, a.scenarios.map((s) => s.effects.verdict)]));
    const once = 'EXACTLY_ONCE';
    const twice = 'DUPLICATE_EFFECT';
    expect(effects).toEqual({
      careful: [once, once, once, once, once, twice, once],
      naive: [twice, once, once, twice, once, twice, twice],
      patient: [once, once, 'LOST_EFFECT', once, 'LOST_EFFECT', once, once],
    });
    // The ground truth, read apart from the view: each backend's ledger (one backend per run, in run order).
    const bookings = backends.slice(1).map((b) => b.ledger.length);
    expect(bookings).toEqual([1, 1, 1, 1, 1, 2, 1, 2, 1, 1, 2, 1, 2, 2, 1, 1, 0, 1, 0, 1, 1]);
    const naiveF1 = result.agents[1]!.scenarios[0]!.effects;
    expect(naiveF1).toMatchObject({ runs: { DUPLICATE_EFFECT: 1 }, explanation: null });
    expect(naiveF1.reason).toBe('1 key got two or more new records: guest=Ada Lovelace,date=2026-11-03 (2 new)');
    const text = formatBenchmarkText(result);
    expect(text).toContain('| F6 | FAIL | FAIL | 0/100 | DUPLICATE_EFFECT |');
    expect(text).toContain('  NAIVE: DUPLICATE_EFFECT in F1, F4, F6, F7; EXACTLY_ONCE in F2, F3, F5.');
    expect(text).toContain('  PATIENT: LOST_EFFECT in F3, F5; EXACTLY_ONCE in F1, F2, F4, F6, F7.');
    // PASS by executions, and the backend never got the booking: the effects verdict says what the execution verdict cannot.
    expect(result.agents[2]!.scenarios[2]).toMatchObject({ verdict: 'PASS', effects: { verdict: 'LOST_EFFECT' } });
    expect(result.agents[2]!.scenarios[2]!.effects.reason).toBe(
      '1 expected effect got no new record: guest=Ada Lovelace,date=2026-11-03',
    );
    const document = JSON.parse(JSON.stringify(benchmarkDocument(result, '9.9.9'))) as Record<string, unknown>;
    expectMatchesSchema(benchmarkReportSchema, document, 'benchmark-report.json');
    expect(document).toMatchObject({
      naive: { scenarios: { F4: { effects: { verdict: twice, runs: { DUPLICATE_EFFECT: 1 } } } } },
      careful: { scenarios: { F1: { effects: { verdict: once, explanation: null } } } },
    });
  });

  it("R-15: the listings are the harness's own — no agent call, no write, no verdict changed (the default benchmark's verdicts stay)", async () => {
    const result = await run();
    for (const agent of result.agents)
      for (const s of agent.scenarios) expect(s.executions.harness, `${agent.agent.id} ${s.scenario}`).toBe(s.executions.backend);
    expect(result.agents.map((a) => a.scenarios.map((s) => s.verdict))).toEqual([
      ['PASS', 'PASS', 'PASS', 'PASS', 'PASS'],
      ['FAIL', 'FAIL', 'PASS', 'FAIL', 'PASS'],
    ]);
  });

  it('R-15: naive F2 is FAIL for its early re-send while the backend holds one booking: explained as RETRY_AFTER_VIOLATED, not as a de-duplicating upstream', async () => {
    const result = await run({ scenarios: ['F2'] });
    const effects = result.agents[1]!.scenarios[0]!.effects;
    expect(result.agents[1]!.scenarios[0]!.verdict).toBe('FAIL');
    expect(effects.verdict).toBe('EXACTLY_ONCE');
    expect(effects.explanation).toContain('RETRY_AFTER_VIOLATED');
    expect(effects.explanation).not.toContain('de-duplicated');
  });

  it('R-15: the self-test can fail — a backend whose listing hides a double booking disagrees with its own ledger', async () => {
    /** Lists each guest and date once, whatever it holds: the view sees one booking where there are two. */
    class HidingBackend extends SimulatedBackend {
      override async callTool(request: ToolCallRequest) {
        const outcome = await super.callTool(request);
        if (request.name !== 'search_bookings' || outcome.kind !== 'result') return outcome;
        const listed = JSON.parse((outcome.result.content![0] as { text: string }).text) as Array<{
          guest: string;
          date: string;
        }>;
        const seen = new Set<string>();
        const unique = listed.filter((b) => !seen.has(`${b.guest}|${b.date}`) && seen.add(`${b.guest}|${b.date}`) !== undefined);
        return { kind: 'result' as const, result: { content: [{ type: 'text', text: JSON.stringify(unique) }] } };
      }
    }
    const result = await run({ scenarios: ['F1'] }, { newBackend: () => new HidingBackend() });
    expect(result.selfTest.passed).toBe(false);
    expect(result.selfTest.unexpected).toMatchObject([
      { agent: 'naive', scenario: 'F1', verdict: 'FAIL', expectedVerdict: 'FAIL' },
    ]);
    expect(result.selfTest.unexpected[0]!.reason).toMatch(
      /^the effects view judged EXACTLY_ONCE \(.*\), the backend holds 2 booking\(s\): DUPLICATE_EFFECT$/,
    );
  });
});

describe('benchmark flags (R-11)', () => {
  const parse = (values: Record<string, string[]>) => () => parseBenchmarkFlags(values);

  it('R-11: defaults are F1–F5, 1 run, no jitter; scenarios are case-insensitive and put in order', () => {
    expect(parseBenchmarkFlags({})).toEqual({ scenarios: ['F1', 'F2', 'F3', 'F4', 'F5'], runs: 1, jitterMs: 0 });
    expect(parseBenchmarkFlags({ scenarios: ['f3,F1'], runs: ['1000'], jitter: ['60000'] })).toEqual({
      scenarios: ['F1', 'F3'],
      runs: 1000,
      jitterMs: 60_000,
    });
  });

  it('issue 37 §3: --scenario F6 is --scenarios F6 (one idea, both names, as in trial)', () => {
    expect(parseBenchmarkFlags({ scenario: ['f6'] }).scenarios).toEqual(['F6']);
  });

  it.each([
    [{ runs: ['0'] }, /--runs must be an integer from 1 to 1000, got "0"/],
    [{ runs: ['1001'] }, /--runs must be an integer from 1 to 1000/],
    [{ runs: ['1e3'] }, /--runs must be an integer/],
    [{ runs: ['2.5'] }, /--runs must be an integer/],
    [{ runs: ['2', '3'] }, /--runs was given 2 times/],
    [{ runs: [''] }, /--runs needs a non-empty value/],
    [{ jitter: ['-1'] }, /--jitter must be an integer from 0 to 60000/],
    [{ jitter: ['60001'] }, /--jitter must be an integer from 0 to 60000/],
    [{ scenarios: ['F8'] }, /--scenarios accepts F1, F2, F3, F4, F5, F6, F7, got "F8"/],
    [{ scenarios: ['F1,f1'] }, /--scenarios names F1 twice/],
    [{ scenarios: ['F1,,F2'] }, /--scenarios has an empty item/],
    [{ scenarios: [' '] }, /--scenarios needs a non-empty value/],
    [{ scenario: ['F1'], scenarios: ['F2'] }, /give --scenario or --scenarios, not both/],
    [{ scenario: ['F1,F2'] }, /--scenario takes one scenario, got "F1,F2" \(several: --scenarios\)/],
    [{ scenario: ['F9'] }, /--scenario accepts F1, F2, F3, F4, F5, F6, F7, got "F9"/],
  ])('R-11: %j is refused with one line', (values, message) => {
    expect(parse(values)).toThrow(message);
  });
});
