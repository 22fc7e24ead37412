/**
 * The judge alone ("a session of 50,000 distinct writes must not be slower per call than one
 * of 100"), in-process, at N = 100 and N = 50,000: N distinct writes through the proxy's own call pipeline
 * (`CallPipeline`: the session's call handle, the answer judging, F1's replacement, the delivery) with an
 * upstream that answers at once and no report file, and the session's call handle alone (receive,
 * forwarded, answered, delivered and a verdict), so the pipeline's own share shows.
 */
import { ManualClock } from '../src/adapters/manual-clock.js';
import { CallPipeline } from '../src/app/pipeline/call-pipeline.js';
import type { UpstreamCallOutcome, UpstreamSide } from '../src/ports/upstream-side.port.js';
import { SeededRandom } from '../src/adapters/seeded-random.js';
import { evaluate } from '../src/domain/report.js';
import { EvaluationSession } from '../src/domain/session.js';
import { nowMs } from './measure.js';

export interface DomainFigures {
  /** Mean microseconds per call through the session's handle (all four steps and an evaluation) at each N. */
  meanMicros: Record<number, number>;
  /** mean(50,000) / mean(100). */
  ratio: number;
  /** Mean microseconds per call through `CallPipeline` (with an evaluation) at each N. */
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

function run(calls: number): number {
  const clock = new ManualClock(0);
  const session = newSession(clock);
  const start = nowMs();
  for (let i = 0; i < calls; i++) {
    const attempt = session.receive('create_order', { n: i, note: 'bench', idempotency_key: `k${i}` });
    attempt.forwarded();
    attempt.answered({ kind: 'executed', answer: { content: [{ type: 'text', text: `r${i}` }] } });
    attempt.delivered();
    evaluate(session);
    clock.advance(1);
  }
  return ((nowMs() - start) * 1000) / calls;
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

async function runPipeline(calls: number): Promise<number> {
  const clock = new ManualClock(0);
  const session = newSession(clock);
  const pipeline = new CallPipeline({
    session,
    upstream: ANSWERING_UPSTREAM,
    callTimeoutMs: 60_000,
    outputSchemaTools: new Set(),
    publish: null,
  });
  const start = nowMs();
  for (let i = 0; i < calls; i++) {
    await pipeline.call({ name: 'create_order', arguments: { n: i, note: 'bench', idempotency_key: `k${i}` } });
    evaluate(session);
    clock.advance(1);
  }
  return ((nowMs() - start) * 1000) / calls;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** Medians of 50 runs at N=100 and 3 at N=50,000 (after a warm-up), the handle and the pipeline interleaved. */
export async function measureDomain(): Promise<DomainFigures> {
  run(2000);
  await runPipeline(2000);
  const meanMicros: Record<number, number> = {};
  const pipelineMeanMicros: Record<number, number> = {};
  for (const calls of [100, 50_000]) {
    const handle: number[] = [];
    const pipeline: number[] = [];
    for (let r = 0; r < (calls > 1000 ? 3 : 50); r++) {
      handle.push(run(calls));
      pipeline.push(await runPipeline(calls));
    }
    meanMicros[calls] = median(handle);
    pipelineMeanMicros[calls] = median(pipeline);
  }
  return {
    meanMicros,
    ratio: meanMicros[50_000]! / meanMicros[100]!,
    pipelineMeanMicros,
    pipelineRatio: pipelineMeanMicros[50_000]! / pipelineMeanMicros[100]!,
  };
}
