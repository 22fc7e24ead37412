/**
 * One run: one reference agent against a fresh simulated backend under one scenario, through a fresh
 * EvaluationSession — the same judge and fault pipeline as the proxy — in virtual time. The backend's
 * bookings are listed through the effects view (R-15, the one `proxy` and `trial` use: `search_bookings`
 * called by the harness itself, never through the agent's pipeline) before the agent's first call and
 * after every write has landed, and judged beside the execution verdict.
 */
import { effectsReport, executionFactsOf } from '../../domain/effects/effects-report.js';
import type { ToolView } from '../../domain/effects/effects-settings.js';
import type { EffectsVerdict } from '../../domain/effects/effects-verdict.js';
import { DEFAULT_KEY_FIELDS } from '../../domain/judging/key-fields.js';
import type { ScenarioId } from '../../domain/faults/index.js';
import { evaluate, scoreInputsOf } from '../../domain/report/report.js';
import type { ScoreInputs } from '../../domain/report/score.js';
import type { ToolCatalog } from '../../domain/judging/session-state.js';
import type { Verdict } from '../../domain/report/verdict.js';
import type { RandomSource } from '../../ports/random.port.js';
import { snapshotEffects } from '../effects/effects-view.js';
import { openEvaluationSession, type BenchmarkDeps } from './benchmark-deps.js';
import { callThroughHarness, harnessPipeline } from './harness-call.js';
import type { AgentContext, BookingRequest } from './agent-context.js';
import type { ReferenceAgent } from './reference-agents.js';

/** The room every run books. */
export const BENCHMARK_BOOKING: Readonly<BookingRequest> = Object.freeze({
  guest: 'Ada Lovelace',
  date: '2026-11-03',
  room: 'standard',
  nights: 2,
});

/**
 * The benchmark's effects view: every booking the backend holds (`search_bookings` with no filter), one
 * effect per guest and date, the run's booking expected once.
 */
export const BENCHMARK_EFFECTS_VIEW: Readonly<ToolView> = Object.freeze({
  tool: 'search_bookings',
  arguments: {},
  path: [],
  keyFields: ['guest', 'date'],
  expectations: [
    {
      text: `guest=${BENCHMARK_BOOKING.guest},date=${BENCHMARK_BOOKING.date}`,
      values: [BENCHMARK_BOOKING.guest, BENCHMARK_BOOKING.date],
    },
  ],
});

/** What the effects view judged of one run. */
export interface RunEffects {
  verdict: EffectsVerdict;
  reason: string;
  /** Where it disagrees with the execution verdict, why; else null. */
  explanation: string | null;
}

export interface RunSpec {
  agent: ReferenceAgent;
  scenario: ScenarioId;
  /** 1-based run number within its (agent, scenario) pair. */
  run: number;
  catalog: ToolCatalog;
  /** The backend's tools that declare an `outputSchema`, listed once per benchmark. */
  outputSchemaTools: ReadonlySet<string>;
  jitterMs: number;
  random: RandomSource;
}

/** How one run was judged. */
export interface RunOutcome {
  verdict: Verdict;
  reason: string;
  inputs: ScoreInputs;
  /** Executions of writes as the harness counted them and as the backend's ledger has them. */
  executions: { harness: number; backend: number };
  /** The effects verdict by the backend's listing before and after the run. */
  effects: RunEffects;
}

/** Plays one run and judges it. */
export async function runScenario(spec: RunSpec, deps: BenchmarkDeps): Promise<RunOutcome> {
  const clock = deps.newClock();
  const backend = deps.newBackend();
  await backend.connect();
  const before = await snapshotEffects(backend, BENCHMARK_EFFECTS_VIEW);
  const open = deps.openSession ?? openEvaluationSession;
  const settings = {
    // Each fault's parameters at their defaults (F2's retry_after: 60 s), as the proxy runs it.
    scenario: { mode: 'scenario', id: spec.scenario },
    keyFields: DEFAULT_KEY_FIELDS,
  } as const;
  const session = open(settings, spec.catalog, clock, spec.random);
  const pipeline = harnessPipeline(session, backend, spec.outputSchemaTools, clock);
  const context: AgentContext = {
    booking: BENCHMARK_BOOKING,
    key: `${spec.agent.id}-${spec.scenario}-${spec.run}`,
    call: (tool, args) => {
      // Drawn in [0, jitterMs): even at the 60000 ms maximum below the 60 s retry_after, so a re-send
      // "at once" stays early and jitter cannot change a verdict. For the same reason a late write (F6)
      // lands only while the agent waits, never during a call's jitter: a check "at once" stays early.
      clock.advance(Math.floor(spec.random.next() * spec.jitterMs));
      return callThroughHarness(pipeline, tool, args);
    },
    wait: async (ms) => {
      clock.advance(ms);
      await pipeline.landingsDue();
    },
  };
  await spec.agent.run(context);
  // F6: a late write still waiting lands before the run is judged, as behind the proxy.
  await pipeline.landPending();
  session.finish();
  const after = await snapshotEffects(backend, BENCHMARK_EFFECTS_VIEW);
  await backend.close();
  const { verdict } = evaluate(session);
  const effects = effectsReport(BENCHMARK_EFFECTS_VIEW, before, after, executionFactsOf(session, verdict.verdict));
  let harness = 0;
  for (const op of session.operations.values()) harness += op.executions;
  return {
    verdict: verdict.verdict,
    reason: verdict.reason,
    inputs: scoreInputsOf(session),
    executions: { harness, backend: backend.writesExecuted() },
    effects: { verdict: effects.verdict, reason: effects.reason, explanation: effects.explanation },
  };
}
