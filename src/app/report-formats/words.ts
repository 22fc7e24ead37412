/**
 * Violations and statuses in words, shared by the JUnit, Markdown and HTML projections (raw strings:
 * each format escapes them).
 */
import type { RepeatSource } from '../../domain/attribution.js';
import type { Violation } from '../../domain/report.js';

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
