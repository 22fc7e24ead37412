/**
 * The count of repeated writes by who sent them, shared by the Markdown summary and the HTML
 * page: `1 model, 1 user, 1 runtime (re-sent by the client/framework: a prompt change will not fix
 * these), 0 unknown`. Only when a case's file says who sent its repeats.
 */
import type { RepeatSource } from '../../domain/judging/attribution.js';
import { REPEAT_SOURCES } from '../../domain/judging/attribution.js';
import { countBySource } from '../check/check-attribution.js';
import type { CheckedCase } from '../check/check-model.js';

/** The sources of a case's repeats: its attribution entries, else its violations' own sources (one per duplicate). */
function sourcesOf(c: CheckedCase): RepeatSource[] {
  if (c.attribution.length > 0) return c.attribution.map((a) => a.source);
  return c.violations.flatMap((v) => v.sources);
}

/** The counts in words, or null when no case says who sent its repeats. */
export function sourceCounts(cases: readonly CheckedCase[]): string | null {
  const all = cases.flatMap(sourcesOf);
  if (all.length === 0) return null;
  const counts = countBySource(all.map((source) => ({ source })));
  return REPEAT_SOURCES.map(
    (s) =>
      `${counts[s]} ${s}${s === 'runtime' && counts.runtime > 0 ? ' (re-sent by the client/framework: a prompt change will not fix these)' : ''}`,
  ).join(', ');
}
