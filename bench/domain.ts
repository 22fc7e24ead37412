/**
 * The judge alone (issue 2: "a session of 50,000 distinct writes must not be slower per call than one
 * of 100"): feeds N distinct writes through `EvaluationSession`'s call handle (receive, forwarded, answered, delivered
 * and a verdict) in-process, and reports the mean time per call at N = 100 and N = 50,000.
 */
import { ManualClock } from '../src/adapters/manual-clock.js';
import { SeededRandom } from '../src/adapters/seeded-random.js';
import { evaluate } from '../src/domain/report.js';
import { EvaluationSession } from '../src/domain/session.js';
import { nowMs } from './measure.js';

export interface DomainFigures {
  /** Mean microseconds per call (all four events and an evaluation) at each N. */
  meanMicros: Record<number, number>;
  /** mean(50,000) / mean(100). */
  ratio: number;
}

function run(calls: number): number {
  const clock = new ManualClock(0);
  const session = new EvaluationSession(
    { scenario: { mode: 'scenario', id: 'F1', retryAfterSeconds: 60 }, keyFields: ['idempotency_key'] },
    { classOf: (name) => (name === 'create_order' ? 'write' : 'read'), acceptsKey: () => true },
    clock,
    SeededRandom.fromSeed(1),
  );
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

/** Median of 5 runs at each size (after a warm-up). */
export function measureDomain(): DomainFigures {
  run(2000);
  const meanMicros: Record<number, number> = {};
  for (const calls of [100, 50_000]) {
    const runs = Array.from({ length: calls > 1000 ? 3 : 50 }, () => run(calls)).sort((a, b) => a - b);
    meanMicros[calls] = runs[Math.floor(runs.length / 2)]!;
  }
  return { meanMicros, ratio: meanMicros[50_000]! / meanMicros[100]! };
}
