/**
 * Violations and statuses in words, shared by the JUnit, Markdown and HTML projections (raw strings:
 * each format escapes them).
 */
import type { RepeatSource } from '../../domain/judging/attribution.js';
import type { Violation } from '../../domain/report/report.js';
import type { EffectsReport } from '../../domain/effects/effects-report.js';
import { keyText, type KeyDiff } from '../../domain/effects/effects-verdict.js';
import type { BoundedSnapshot } from '../../domain/effects/snapshot.js';

const seconds = (ms: number): string => (ms < 1000 ? `${Math.round(ms)} ms` : `${Math.round(ms / 100) / 10} s`);

const KEY_USE: Record<string, string> = {
  same: 'with the same idempotency key',
  new: 'with a new idempotency key each time',
  none: 'without an idempotency key',
};

/** Who sent a repeated write, in words (R-14); `runtime` says that a prompt change will not fix it. */
export const SOURCE_WORDS: Record<RepeatSource, string> = {
  model: 'the model asked for it again',
  user: 'the model asked for it again after a user turn',
  runtime: 're-sent by the client/framework; a prompt change will not fix it',
  unknown: "not decided: the model's side of the agent was not seen",
};

/** `source: runtime — re-sent by …` for the sources of one duplicate (several joined by ` / `); '' for none. */
export function sourceText(sources: readonly RepeatSource[] | undefined): string {
  if (sources === undefined || sources.length === 0) return '';
  return `source: ${sources.map((s) => `${s} — ${SOURCE_WORDS[s]}`).join(' / ')}`;
}

/**
 * One sentence for one violation, naming the tool and its arguments, and for a duplicate who sent it
 * again when the file says (`sources`).
 */
export function violationText(v: Violation & { sources?: readonly RepeatSource[] }): string {
  if (v.type === 'RETRY_AFTER_VIOLATED') {
    const r = v.retryAfter;
    const detail =
      r === undefined
        ? ''
        : `: re-sent ${r.earlyResends} time(s), the first after ${seconds(r.waitedMs)} although retry_after asked for ${seconds(r.requiredMs)}`;
    return `RETRY_AFTER_VIOLATED — ${v.tool} ${v.arguments}${detail}.`;
  }
  const d = v.duplicate;
  const how =
    d === undefined
      ? ''
      : [
          KEY_USE[d.keyUse] ?? `key use ${d.keyUse}`,
          d.parallel ? 'sent in parallel' : d.afterTimeout ? 're-sent after a timeout' : 're-sent without a timeout in between',
          d.verifiedBefore ? 'after a read had checked' : 'without a read to check first',
        ].join(', ');
  const source = sourceText(v.sources);
  return `DUPLICATE_EXECUTION — ${v.tool} ${v.arguments} was executed ${v.executions} times${how === '' ? '' : ` (${how})`}${source === '' ? '' : ` (${source})`}.`;
}

/** Keys listed per case in every projection (the report file has them all). */
export const EFFECT_KEYS_LISTED = 10;

/** `before 3 records, after 5` — or why a snapshot is missing. */
function snapshotWords(s: BoundedSnapshot): string {
  return s.ok ? `${s.count} record(s)` : `none (${s.reason})`;
}

/**
 * R-15: the effects of a session or run in words, one line each: the verdict with its reason, why it
 * disagrees with the execution verdict (when it does), the two snapshots, and the first keys that changed
 * or were expected (`guest=Ann Lee,date=2026-05-01: 0 → 2, 2 new (expected)`). Raw strings: each format escapes them.
 */
export function effectsLines(e: EffectsReport): string[] {
  const lines = [`Effects ${e.verdict}: ${e.reason}`];
  if (e.explanation !== null) lines.push(`Why the two verdicts differ: ${e.explanation}`);
  lines.push(`Backend before the run: ${snapshotWords(e.snapshots.before)}; after it: ${snapshotWords(e.snapshots.after)}`);
  for (const k of e.keys.slice(0, EFFECT_KEYS_LISTED)) lines.push(effectKeyText(k));
  if (e.keys.length > EFFECT_KEYS_LISTED)
    lines.push(`… and ${e.keys.length - EFFECT_KEYS_LISTED} more key(s) in the report file`);
  return lines;
}

/** One key's change: `guest=Ann Lee,date=2026-05-01: 0 → 2, 2 new, 1 changed (expected)`. */
export function effectKeyText(k: KeyDiff): string {
  const parts = [`${k.before} → ${k.after}`];
  if (k.created > 0) parts.push(`${k.created} new`);
  if (k.removed > 0) parts.push(`${k.removed} removed`);
  if (k.changed > 0) parts.push(`${k.changed} changed`);
  return `${keyText(k.key)}: ${parts.join(', ')}${k.expected.length > 0 ? ' (expected)' : ''}`;
}
