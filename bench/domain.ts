/**
 * The judge alone ("a session of 50,000 distinct writes must not be slower per call than one
 * of 100"), in-process: distinct writes in sessions of 100 and of 50,000 calls, through the proxy's own
 * call pipeline (`CallPipeline`: the session's call handle, the answer judging, F1's replacement, the
 * delivery) with an upstream that answers at once and no report file, and through the session's call
 * handle alone (receive, forwarded, answered, delivered and a verdict), so the pipeline's own share shows.
 *
 * Every round keeps the same 50,000 operations alive until it ends: 500 sessions of 100 calls, or one of
 * 50,000. The property is about the session's length; a round of short sessions dropped one by one
 * would also compare the garbage collector's work on state that survives with none at all (which made
 * the long session look twice as slow per call, its sessions' state being the same in kind).
 */
import { ManualClock } from '../src/adapters/time/manual-clock.js';
import { CallPipeline } from '../src/app/pipeline/call-pipeline.js';
import type { UpstreamCallOutcome, UpstreamSide } from '../src/ports/upstream-side.port.js';
import { SeededRandom } from '../src/adapters/time/seeded-random.js';
import { evaluate } from '../src/domain/report/report.js';
import { EvaluationSession } from '../src/domain/judging/session.js';
import { nowMs } from './measure.js';

export interface DomainFigures {
  /** Mean microseconds per call through the session's handle (all four steps and an evaluation) per session length. */
  meanMicros: Record<number, number>;
  /** mean(50,000) / mean(100). */
  ratio: number;
  /** Mean microseconds per call through `CallPipeline` (with an evaluation) per session length. */
  pipelineMeanMicros: Record<number, number>;
  /** pipeline mean(50,000) / pipeline mean(100). */
  pipelineRatio: number;
}

function newSession(clock: ManualClock): EvaluationSession {
  return new EvaluationSession(
    { scenario: { mode: 'scenario', id: 'F1' }, keyFields: ['idempotency_key'] },
    { classOf: (name) => (name === 'create_order' ? 'write' : 'read'), acceptsKey: () => true },
    clock,
    SeededRandom.fromSeed(1),
  );
}

/** Operations every round keeps alive until it ends, whatever its session length. */
const KEPT_OPERATIONS = 50_000;
const LENGTHS = [100, 50_000] as const;

/** Mean µs per call through the session's call handle: sessions of `length` calls, 50,000 calls in all, all kept. */
function handleRound(length: number): number {
  const kept: EvaluationSession[] = [];
  const start = nowMs();
  for (let s = 0; s < KEPT_OPERATIONS / length; s++) {
    const clock = new ManualClock(0);
    const session = newSession(clock);
    for (let i = 0; i < length; i++) {
      const attempt = session.receive('create_order', { n: i, note: 'bench', idempotency_key: `k${i}` });
      attempt.forwarded();
      attempt.answered({ kind: 'executed', answer: { content: [{ type: 'text', text: `r${i}` }] } });
      attempt.delivered();
      evaluate(session);
      clock.advance(1);
    }
    kept.push(session);
  }
  return perCall(start, kept, length);
}

/** An upstream that executes every call at once (its answer is a settled promise). */
const ANSWERING_UPSTREAM: UpstreamSide = {
  connect: () => Promise.resolve({}),
  listTools: () => Promise.resolve([]),
  callTool: (request): Promise<UpstreamCallOutcome> =>
    Promise.resolve({
      kind: 'result',
      result: { content: [{ type: 'text', text: `r${String((request.arguments as { n: number }).n)}` }] },
    }),
  onExit: () => undefined,
  close: () => Promise.resolve(),
};

/** Mean µs per call through `CallPipeline`, sessions of `length` calls as in {@link handleRound}. */
async function pipelineRound(length: number): Promise<number> {
  const kept: EvaluationSession[] = [];
  const start = nowMs();
  for (let s = 0; s < KEPT_OPERATIONS / length; s++) {
    const clock = new ManualClock(0);
    const session = newSession(clock);
    const pipeline = new CallPipeline({
      session,
      upstream: ANSWERING_UPSTREAM,
      callTimeoutMs: 60_000,
      outputSchemaTools: new Set(),
      publish: null,
    });
    for (let i = 0; i < length; i++) {
      await pipeline.call({ name: 'create_order', arguments: { n: i, note: 'bench', idempotency_key: `k${i}` } });
      evaluate(session);
      clock.advance(1);
    }
    kept.push(session);
  }
  return perCall(start, kept, length);
}

/** Mean µs per call since `start`; the sessions are read after the clock stops, so all of them stay alive until then. */
function perCall(start: number, kept: readonly EvaluationSession[], length: number): number {
  const micros = ((nowMs() - start) * 1000) / KEPT_OPERATIONS;
  if (kept.some((session) => session.operations.size !== length)) throw new Error('bench: a session lost an operation');
  return micros;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** Medians of 3 rounds per session length (after a warm-up), the lengths and the two paths interleaved. */
export async function measureDomain(): Promise<DomainFigures> {
  handleRound(100);
  await pipelineRound(100);
  const handle: Record<number, number[]> = { 100: [], 50_000: [] };
  const pipeline: Record<number, number[]> = { 100: [], 50_000: [] };
  for (let round = 0; round < 3; round++) {
    for (const length of round % 2 === 0 ? LENGTHS : [...LENGTHS].reverse()) {
      handle[length]!.push(handleRound(length));
      pipeline[length]!.push(await pipelineRound(length));
    }
  }
  const meanMicros = { 100: median(handle[100]!), 50_000: median(handle[50_000]!) };
  const pipelineMeanMicros = { 100: median(pipeline[100]!), 50_000: median(pipeline[50_000]!) };
  return {
    meanMicros,
    ratio: meanMicros[50_000] / meanMicros[100],
    pipelineMeanMicros,
    pipelineRatio: pipelineMeanMicros[50_000] / pipelineMeanMicros[100],
  };
}
