/**
 * F6's pending late writes (R-16.1, issue 40: "the pending late write costs a timer, not a loop: 10 000
 * parallel F6 sessions stay within the RSS limit of the existing 10 000-parallel case, and a session without
 * F6 pays nothing per call"), in-process: `sessions` sessions, each its own `CallPipeline` with the real
 * timer (`SystemClock`, `--land-after 600000`), each sent one write at once — under F6 each write then waits
 * for its landing, under F1 it is answered and done. Per round: the heap and RSS growth of the F6 sessions
 * and of as many F1 sessions side by side (interleaved, median of `rounds`), the time to send them, and the
 * time for `landPending()` to land every waiting write (then the upstream must have executed each once),
 * and the process's peak RSS over the round; then one line: the target (`checkLateWrites`, the limit of
 * `npm run bench`'s 10 000-parallel case) met or not met. `npm run bench:late` (`-- --sessions N --rounds R`).
 */
import { SeededRandom } from '../src/adapters/time/seeded-random.js';
import { SystemClock } from '../src/adapters/time/system-clock.js';
import { CallPipeline } from '../src/app/pipeline/call-pipeline.js';
import { EvaluationSession } from '../src/domain/judging/session.js';
import type { UpstreamCallOutcome, UpstreamSide } from '../src/ports/upstream-side.port.js';
import { median, nowMs } from './measure.js';
import { checkLateWrites, targetLine } from './targets.js';

export interface LateWriteFigures {
  sessions: number;
  rounds: number;
  /** Median heap growth per session, in bytes, with one write waiting to land (F6) and answered (F1). */
  heapBytesPerSession: { F6: number; F1: number };
  /** Median RSS growth of a round, in MB. */
  rssGrowthMb: { F6: number; F1: number };
  /**
   * Median peak RSS of the bench process during a round (sampled every few ms from the first send to the
   * last landing), in MB: what the target reads for F6.
   */
  peakRssMb: { F6: number; F1: number };
  /** Median ms to send one write in every session. */
  sendMs: { F6: number; F1: number };
  /** Median ms for `landPending()` to land every waiting F6 write. */
  landMs: number;
}

/** An upstream that executes every call at once and counts it. */
class CountingUpstream implements UpstreamSide {
  executed = 0;
  connect = async () => ({});
  listTools = async () => [];
  onExit(): void {}
  close = async () => undefined;
  async callTool(): Promise<UpstreamCallOutcome> {
    this.executed++;
    return { kind: 'result', result: { content: [{ type: 'text', text: `ok ${this.executed}` }] } };
  }
}

function pipelineFor(id: 'F1' | 'F6', clock: SystemClock, upstream: UpstreamSide): CallPipeline {
  const session = new EvaluationSession(
    {
      scenario: { mode: 'scenario', id, ...(id === 'F6' ? { parameters: { landAfterMs: 600_000 } } : {}) },
      keyFields: ['idempotency_key'],
    },
    { classOf: (name) => (name === 'create_order' ? 'write' : 'read'), acceptsKey: () => true },
    clock,
    SeededRandom.fromSeed(1),
  );
  return new CallPipeline({
    session,
    upstream,
    callTimeoutMs: 60_000,
    outputSchemaTools: new Set(),
    publish: null,
    timer: clock,
  });
}

const settle = async (): Promise<void> => {
  globalThis.gc?.();
  await new Promise((resolve) => setImmediate(resolve));
  globalThis.gc?.();
};

async function round(id: 'F1' | 'F6', sessions: number) {
  const clock = new SystemClock();
  const upstream = new CountingUpstream();
  await settle();
  const heapBefore = process.memoryUsage().heapUsed;
  const rssBefore = process.memoryUsage().rss;
  let peakRss = rssBefore;
  const sample = () => (peakRss = Math.max(peakRss, process.memoryUsage().rss));
  const sampler = setInterval(sample, 5);
  const start = nowMs();
  const pipelines: CallPipeline[] = [];
  const answers: Array<Promise<unknown>> = [];
  for (let i = 0; i < sessions; i++) {
    const pipeline = pipelineFor(id, clock, upstream);
    pipelines.push(pipeline);
    answers.push(pipeline.call({ name: 'create_order', arguments: { n: i, idempotency_key: `k${i}` } }));
  }
  await Promise.all(answers);
  const sendMs = nowMs() - start;
  await settle();
  const heapBytes = (process.memoryUsage().heapUsed - heapBefore) / sessions;
  const rssMb = (process.memoryUsage().rss - rssBefore) / 2 ** 20;
  const waiting = id === 'F6' ? sessions - upstream.executed : 0;
  const landStart = nowMs();
  await Promise.all(pipelines.map((pipeline) => pipeline.landPending()));
  const landMs = nowMs() - landStart;
  clearInterval(sampler);
  sample();
  const peakRssMb = peakRss / 2 ** 20;
  if (upstream.executed !== sessions)
    throw new Error(`bench: ${id}: the upstream executed ${upstream.executed} of ${sessions} writes`);
  if (id === 'F6' && waiting !== sessions) throw new Error(`bench: F6: ${sessions - waiting} writes landed before their time`);
  return { heapBytes, rssMb, sendMs, landMs, peakRssMb };
}

export async function measureLateWrites(sessions = 10_000, rounds = 3): Promise<LateWriteFigures> {
  const runs: Record<'F1' | 'F6', Array<Awaited<ReturnType<typeof round>>>> = { F1: [], F6: [] };
  await round('F6', Math.min(sessions, 500)); // warm-up
  for (let r = 0; r < rounds; r++) {
    for (const id of r % 2 === 0 ? (['F6', 'F1'] as const) : (['F1', 'F6'] as const)) runs[id].push(await round(id, sessions));
  }
  const med = (id: 'F1' | 'F6', pick: (run: Awaited<ReturnType<typeof round>>) => number) => median(runs[id].map(pick));
  return {
    sessions,
    rounds,
    heapBytesPerSession: { F6: med('F6', (r) => r.heapBytes), F1: med('F1', (r) => r.heapBytes) },
    rssGrowthMb: { F6: med('F6', (r) => r.rssMb), F1: med('F1', (r) => r.rssMb) },
    peakRssMb: { F6: med('F6', (r) => r.peakRssMb), F1: med('F1', (r) => r.peakRssMb) },
    sendMs: { F6: med('F6', (r) => r.sendMs), F1: med('F1', (r) => r.sendMs) },
    landMs: med('F6', (r) => r.landMs),
  };
}

export function formatLateWrites(f: LateWriteFigures): string {
  return (
    `F6 pending late writes (in-process, ${f.sessions} sessions, one write each, median of ${f.rounds}): ` +
    `heap per session ${Math.round(f.heapBytesPerSession.F6)} B waiting vs ${Math.round(f.heapBytesPerSession.F1)} B under F1; ` +
    `RSS growth ${f.rssGrowthMb.F6.toFixed(1)} MB vs ${f.rssGrowthMb.F1.toFixed(1)} MB; ` +
    `peak RSS of the process ${f.peakRssMb.F6.toFixed(0)} MB vs ${f.peakRssMb.F1.toFixed(0)} MB; ` +
    `sent in ${f.sendMs.F6.toFixed(0)} ms vs ${f.sendMs.F1.toFixed(0)} ms; landPending() landed all in ${f.landMs.toFixed(0)} ms\n` +
    targetLine(checkLateWrites({ sessions: f.sessions, rounds: f.rounds, peakRssMb: f.peakRssMb.F6 }))
  );
}

function flag(argv: readonly string[], name: string, fallback: number): number {
  const at = argv.indexOf(name);
  const value = at < 0 ? NaN : Number(argv[at + 1]);
  return Number.isInteger(value) && value > 0 ? value : fallback;
}

if (process.argv[1]?.endsWith('/bench/late-writes.js') === true) {
  const argv = process.argv.slice(2);
  measureLateWrites(flag(argv, '--sessions', 10_000), flag(argv, '--rounds', 3)).then(
    (figures) => console.log(formatLateWrites(figures)),
    (error: unknown) => {
      console.error(error instanceof Error ? error.message : String(error));
      process.exitCode = 1;
    },
  );
}
