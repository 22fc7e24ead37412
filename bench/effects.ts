/**
 * The effects view's own cost (R-15, issue 39: "a snapshot and diff of 10 000 records ≤ 50 ms"): a read
 * tool's answer of 10,000 records read, snapshotted before and after (100 of them new, 10 doubled) and
 * judged, in-process, median of 7 rounds after a warm-up. No per-call cost exists to measure: the view is
 * read twice per session, never on a call. `npm run bench` prints it; `npm run bench:effects` alone.
 */
import { readAnswerItems } from '../src/domain/effects/answer-records.js';
import { judgeEffects } from '../src/domain/effects/effects-verdict.js';
import { takeSnapshot, type SnapshotResult } from '../src/domain/effects/snapshot.js';
import { nowMs } from './measure.js';

export interface EffectsFigures {
  records: number;
  /** Median ms of reading two listings, snapshotting both and judging the diff. */
  medianMs: number;
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

function round(before: string, after: string): number {
  const start = nowMs();
  const result = judgeEffects(snapshotOf(before), snapshotOf(after));
  const ms = nowMs() - start;
  if (result.verdict !== 'DUPLICATE_EFFECT') throw new Error(`bench: expected DUPLICATE_EFFECT, got ${result.verdict}`);
  return ms;
}

export function measureEffects(): EffectsFigures {
  const before = listing(RECORDS - 100, 0);
  const after = listing(RECORDS, 10);
  round(before, after);
  const times: number[] = [];
  for (let i = 0; i < 7; i++) times.push(round(before, after));
  times.sort((a, b) => a - b);
  return { records: RECORDS, medianMs: times[3]!, targetMs: TARGET_MS };
}

export function formatEffects(figures: EffectsFigures): string {
  const met = figures.medianMs <= figures.targetMs ? 'met' : 'NOT met';
  return `Effects view (in-process, two listings of ~${figures.records} records read, snapshotted and diffed): median ${figures.medianMs.toFixed(1)} ms (target ≤ ${figures.targetMs} ms: ${met})`;
}

if (process.argv[1]?.endsWith('/bench/effects.js') === true) process.stdout.write(`${formatEffects(measureEffects())}\n`);
