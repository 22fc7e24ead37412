/**
 * `compare`: side A and side B, each one or more trial folders merged exactly as `stats` merges them
 * (`mergeFolders`, the one reader of trial folders), then side B against side A per arm, scenario and task
 * (`compareSides`, the patch A/B's numbers). Refused with one line, naming the folder or the setting:
 * a side without folders, a path that is not a trial folder, a side `stats` would not merge, sides made by
 * incompatible harness versions or of different task sets, and sides without a common scenario.
 */
import {
  compareSides,
  compatibleVersions,
  settingDifferences,
  type SettingDifference,
  type SideComparison,
} from '../../domain/trial/index.js';
import { mergeFolders, type StatsInput, type StatsResult } from '../stats/stats.js';

export interface CompareResult {
  a: StatsResult;
  b: StatsResult;
  /** The settings that differ between the sides (`provenance.settings`), by name. */
  settings: SettingDifference[];
  comparison: SideComparison;
}

export type CompareOutcome = { ok: true; result: CompareResult } | { ok: false; message: string };

const refuse = (message: string): CompareOutcome => ({ ok: false, message: `cannot compare: ${message}` });

function tasksOf(result: StatsResult): string {
  const ids = new Set<string>();
  for (const group of result.summary.scenarios) for (const task of group.tasks) ids.add(task.taskId);
  return [...ids].sort().join(', ') || '(none judged)';
}

function mergeSide(
  name: string,
  inputs: readonly StatsInput[],
): { ok: true; result: StatsResult } | { ok: false; message: string } {
  if (inputs.length === 0) return { ok: false, message: `cannot compare: side ${name} has no trial folder` };
  for (const input of inputs) {
    if (input.kind === 'unusable' && input.notFolder !== true) return { ok: false, message: `${input.path} ${input.problem}` };
    if (input.kind !== 'trial') {
      const what = input.kind === 'unusable' ? 'a folder' : 'a trial folder (summary.json and runs/, written by trial --out)';
      return { ok: false, message: `${input.path} is not ${what}; compare takes trial folders` };
    }
  }
  const merged = mergeFolders(inputs);
  if (!merged.ok) return { ok: false, message: `side ${name}: ${merged.message}` };
  return merged;
}

/** Merges each side and compares B with A, or refuses with one line. */
export function compareFolders(sideA: readonly StatsInput[], sideB: readonly StatsInput[]): CompareOutcome {
  const a = mergeSide('A', sideA);
  if (!a.ok) return a;
  const b = mergeSide('B', sideB);
  if (!b.ok) return b;
  const first = (result: StatsResult) => result.sources[0]!;
  const [sourceA, sourceB] = [first(a.result), first(b.result)];
  if (!compatibleVersions(sourceA.harnessVersion, sourceB.harnessVersion))
    return refuse(
      `side A (${sourceA.path}) was made by harness ${sourceA.harnessVersion} and side B (${sourceB.path}) by ${sourceB.harnessVersion}; their reports differ`,
    );
  const [tasksA, tasksB] = [tasksOf(a.result), tasksOf(b.result)];
  if (tasksA !== tasksB)
    return refuse(
      `setting "tasks" differs: side A ran tasks ${tasksA} and side B ran ${tasksB}; compare trials of the same tasks`,
    );
  const comparison = compareSides(a.result.summary, b.result.summary);
  if (comparison.scenarios.length === 0)
    return refuse(
      `the sides have no scenario in common: side A ran ${comparison.onlyA.join(', ')}, side B ran ${comparison.onlyB.join(', ')}`,
    );
  return {
    ok: true,
    result: {
      a: a.result,
      b: b.result,
      settings: settingDifferences(a.result.settings, b.result.settings, a.result.settingFiles, b.result.settingFiles),
      comparison,
    },
  };
}
