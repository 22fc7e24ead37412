/**
 * The effects view's own cost (R-15, issue 39: "a snapshot and diff of 10 000 records ≤ 50 ms"): a read
 * tool's answer of 10,000 records read, snapshotted before and after (100 of them new, 10 doubled) and
 * judged, in-process, median of 15 rounds after a warm-up. No per-call cost exists to measure: the view is
 * read twice per session, never on a call. `npm run bench` prints it; `npm run bench:effects` alone. Beside
 * the wall time (what the bound is judged by) it prints the process's own CPU time per round and the
 * machine's 1-minute load: on a shared machine the wall time also counts the other processes.
 */
import { readAnswerItems } from '../src/domain/effects/answer-records.js';
import { judgeEffects } from '../src/domain/effects/effects-verdict.js';
import { takeSnapshot, type SnapshotResult } from '../src/domain/effects/snapshot.js';
import { loadavg } from 'node:os';
import { median, nowMs } from './measure.js';

export interface EffectsFigures {
  records: number;
  /** Median ms (wall) of reading two listings, snapshotting both and judging the diff. */
  medianMs: number;
  /** Median ms of this process's CPU time (user + system, every thread) in those rounds. */
  medianCpuMs: number;
  /** The machine's 1-minute load average when measured. */
  load: number;
  /** The bound, in ms. */
  targetMs: number;
}

const RECORDS = 10_000;
const TARGET_MS = 50;

function listing(count: number, doubled: number): string {
  const records = [];
  for (let i = 0; i < count; i++)
    records.push({
      id: `BK-${i}`,
      guest: `Guest ${i % 5000}`,
      date: `2026-05-${String((i % 28) + 1).padStart(2, '0')}`,
      nights: 1 + (i % 3),
      status: 'confirmed',
    });
  for (let i = 0; i < doubled; i++) records.push({ ...records[records.length - 1 - i]!, id: `BK-dup-${i}` });
  return JSON.stringify(records);
}

function snapshotOf(text: string): SnapshotResult {
  const read = readAnswerItems({ content: [{ type: 'text', text }] });
  if (!read.ok) throw new Error(`bench: ${read.reason}`);
  return takeSnapshot(read.value, ['guest', 'date']);
}

function round(before: string, after: string): { ms: number; cpuMs: number } {
  const cpu = process.cpuUsage();
  const start = nowMs();
  const result = judgeEffects(snapshotOf(before), snapshotOf(after));
  const ms = nowMs() - start;
  const used = process.cpuUsage(cpu);
  if (result.verdict !== 'DUPLICATE_EFFECT') throw new Error(`bench: expected DUPLICATE_EFFECT, got ${result.verdict}`);
  return { ms, cpuMs: (used.user + used.system) / 1000 };
}

export function measureEffects(): EffectsFigures {
  const before = listing(RECORDS - 100, 0);
  const after = listing(RECORDS, 10);
  round(before, after);
  const rounds = Array.from({ length: 15 }, () => round(before, after));
  return {
    records: RECORDS,
    medianMs: median(rounds.map((r) => r.ms)),
    medianCpuMs: median(rounds.map((r) => r.cpuMs)),
    load: loadavg()[0]!,
    targetMs: TARGET_MS,
  };
}

export function formatEffects(figures: EffectsFigures): string {
  const met = figures.medianMs <= figures.targetMs ? 'met' : 'NOT met';
  return `Effects view (in-process, two listings of ~${figures.records} records read, snapshotted and diffed): median ${figures.medianMs.toFixed(1)} ms (target ≤ ${figures.targetMs} ms: ${met}); CPU of this process ${figures.medianCpuMs.toFixed(1)} ms, 1-min load ${figures.load.toFixed(1)}`;
}

if (process.argv[1]?.endsWith('/bench/effects.js') === true) process.stdout.write(`${formatEffects(measureEffects())}\n`);
