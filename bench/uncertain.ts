/**
 * The judge's cost per uncertain attempt: N writes of one tool are in flight at once (distinct
 * orders of one customer, so they agree on most fields), then every one of them ends with an unknown
 * outcome (the upstream timed out) in arrival order. Each settled attempt is judged against the writes
 * that arrived while it was in flight; this times each `answered()` through the session's call handle
 * and reports the median and the 99th percentile per settled attempt at N = 1000, 2000, 4000 and 8000
 * (and the whole run), side by side. A linear judge shows the same time per attempt at every N.
 *
 *   npm run build && node dist/bench/uncertain.js [--sizes 1000,2000,4000,8000] [--rounds 3]
 */
import { ManualClock } from '../src/adapters/time/manual-clock.js';
import { SeededRandom } from '../src/adapters/time/seeded-random.js';
import type { CallAttempt } from '../src/domain/judging/call-attempt.js';
import { EvaluationSession } from '../src/domain/judging/session.js';
import { median, nowMs, p99 } from './measure.js';

export interface UncertainFigures {
  /** Per N: median and p99 of the microseconds one settled attempt took, and the whole run in ms. */
  perSize: Record<number, { medianMicros: number; p99Micros: number; totalMs: number }>;
}

function newSession(): EvaluationSession {
  return new EvaluationSession(
    { scenario: { mode: 'none' }, keyFields: ['idempotency_key'] },
    { classOf: (name) => (name === 'create_order' ? 'write' : 'read'), acceptsKey: () => true },
    new ManualClock(0),
    SeededRandom.fromSeed(1),
  );
}

/** One round: N writes in flight, then each answered "unknown (timeout)"; the time of each answer in µs. */
function round(writes: number): { micros: number[]; totalMs: number } {
  const session = newSession();
  const attempts: CallAttempt[] = [];
  for (let n = 0; n < writes; n++) {
    const attempt = session.receive('create_order', { customer: 'Anna Muster', n, note: 'bench', idempotency_key: `k${n}` });
    attempt.forwarded();
    attempts.push(attempt);
  }
  const micros: number[] = [];
  const start = nowMs();
  for (const attempt of attempts) {
    const before = nowMs();
    attempt.answered({ kind: 'unknown', reason: 'timeout' });
    micros.push((nowMs() - before) * 1000);
    attempt.delivered();
  }
  return { micros, totalMs: nowMs() - start };
}

export function measureUncertain(sizes: readonly number[], rounds: number): UncertainFigures {
  round(500);
  const perSize: UncertainFigures['perSize'] = {};
  for (const writes of sizes) {
    const micros: number[] = [];
    const totals: number[] = [];
    for (let r = 0; r < rounds; r++) {
      const result = round(writes);
      micros.push(...result.micros);
      totals.push(result.totalMs);
    }
    perSize[writes] = { medianMicros: median(micros), p99Micros: p99(micros), totalMs: median(totals) };
  }
  return { perSize };
}

function flag(name: string): string | undefined {
  const index = process.argv.indexOf(`--${name}`);
  return index < 0 ? undefined : process.argv[index + 1];
}

if (process.argv[1]?.endsWith('uncertain.js') === true) {
  const sizes = (flag('sizes') ?? '1000,2000,4000,8000').split(',').map(Number);
  const rounds = Number(flag('rounds') ?? '3');
  const { perSize } = measureUncertain(sizes, rounds);
  const lines = [
    'N writes in flight, all ending unknown | median µs per settled attempt | p99 µs | whole run ms (median of rounds)',
  ];
  for (const n of sizes) {
    const f = perSize[n]!;
    lines.push(
      `${String(n).padStart(5)} | ${f.medianMicros.toFixed(1).padStart(9)} | ${f.p99Micros.toFixed(1).padStart(9)} | ${f.totalMs.toFixed(0).padStart(7)}`,
    );
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}
