/**
 * `compare`: two sides — each the merged summary of one or more trial folders — side by side, per arm and
 * scenario and per task. Every rate difference comes from the same code as a trial's patch A/B
 * (`compareGroups`, `comparisonSentence`): B − A with its 95 % Newcombe interval and Fisher's exact p.
 * Also the duplicate rate by source, pass^k at the largest k both sides have, and the settings that
 * differ between the sides (each trial's `provenance.settings`). Side A plays the baseline, side B the
 * treatment.
 */
import { REPEAT_SOURCES, type RepeatSource } from '../judging/attribution.js';
import type { ArmCount, PassK, Proportion } from '../statistics/index.js';
import { compareCounts, compareGroups, comparisonSentence, type ArmNames, type RateComparison } from './arm-comparison.js';
import { groupLabel } from './group-label.js';
import type { GroupSummary, TrialSummary } from './trial-summary.js';

/** A count of the two sides compared (a rate that is not one of COMPARED_RATES, e.g. a duplicate source). */
export type CountComparison = Omit<RateComparison, 'rate'>;

/** pass^k of both sides at the largest k both measured (τ-bench; no interval: it is a mean over tasks). */
export interface PassKSideBySide {
  k: number;
  a: number;
  b: number;
}

/** the effect rates compared, each side over its runs with an effects view only. */
export type EffectRate = 'duplicateEffect' | 'lostEffect' | 'exactlyOnce' | 'unknown';
export const EFFECT_RATES: readonly EffectRate[] = ['duplicateEffect', 'lostEffect', 'exactlyOnce', 'unknown'];

export interface EffectsComparison {
  /** Runs with an effects view on side A and side B (a side with 0 has no effect rates: never pooled). */
  viewed: [number, number];
  /** Each rate on both sides with its 95 % Wilson interval, and B − A (Newcombe, Fisher) where both sides viewed. */
  rates: Record<EffectRate, CountComparison & { a: Proportion; b: Proportion }>;
}

export interface GroupComparison {
  /** Judged runs (PASS or FAIL) of side A and side B. */
  judged: [number, number];
  rates: RateComparison[];
  /** the duplicate rate by who sent the write again. */
  duplicateBySource: Record<RepeatSource, CountComparison>;
  passK: PassKSideBySide | null;
  /** the effect rates; null when neither side had a run with an effects view. */
  effects: EffectsComparison | null;
}

export interface TaskComparison extends GroupComparison {
  taskId: string;
}

export interface ScenarioSideComparison extends GroupComparison {
  arm: string;
  scenario: string;
  /** One sentence a person can act on: the rate with the smallest p (as in the patch A/B). */
  sentence: string;
  /** The tasks both sides ran in this arm and scenario. */
  tasks: TaskComparison[];
}

export interface SettingDifference {
  setting: string;
  /** The value in side A and side B; `(not set)` when the side did not record the setting. */
  a: string;
  b: string;
  /** The file the value was read from in side A and side B (`provenance.settingFiles`), when recorded. */
  aFile?: string;
  bFile?: string;
}

export interface SideComparison {
  names: ArmNames;
  /** Arm and scenario groups both sides ran, ordered by arm, then scenario. */
  scenarios: ScenarioSideComparison[];
  /** Groups only one side ran (`F2` or `patched F1`): listed, never compared. */
  onlyA: string[];
  onlyB: string[];
}

const counts = (rate: Proportion): ArmCount => ({ count: rate.count, of: rate.of });

export { groupLabel };

function passKBoth(a: readonly PassK[], b: readonly PassK[]): PassKSideBySide | null {
  const k = Math.min(a.length, b.length);
  if (k === 0) return null;
  return { k, a: a[k - 1]!.value, b: b[k - 1]!.value };
}

function compareEffects(a: GroupSummary, b: GroupSummary): EffectsComparison | null {
  if (a.effects.viewed === 0 && b.effects.viewed === 0) return null;
  const rates = {} as EffectsComparison['rates'];
  for (const rate of EFFECT_RATES) {
    const [ra, rb] = [a.effects[rate], b.effects[rate]];
    rates[rate] = { ...compareCounts(counts(ra), counts(rb)), a: ra, b: rb };
  }
  return { viewed: [a.effects.viewed, b.effects.viewed], rates };
}

function compareGroup(a: GroupSummary, b: GroupSummary): GroupComparison {
  const duplicateBySource = {} as Record<RepeatSource, CountComparison>;
  for (const source of REPEAT_SOURCES)
    duplicateBySource[source] = compareCounts(counts(a.duplicateBySource[source]), counts(b.duplicateBySource[source]));
  return {
    judged: [a.pass + a.fail, b.pass + b.fail],
    rates: compareGroups(a, b),
    duplicateBySource,
    passK: passKBoth(a.passK, b.passK),
    effects: compareEffects(a, b),
  };
}

/** Compares side B with side A in every arm and scenario both ran, and in every task of it both ran. */
export function compareSides(
  a: TrialSummary,
  b: TrialSummary,
  names: ArmNames = { baseline: 'A', treatment: 'B' },
): SideComparison {
  const scenarios: ScenarioSideComparison[] = [];
  const onlyA: string[] = [];
  for (const groupA of a.scenarios) {
    const groupB = b.scenarios.find((entry) => entry.arm === groupA.arm && entry.scenario === groupA.scenario);
    const label = groupLabel(groupA.arm, groupA.scenario);
    if (groupB === undefined) {
      onlyA.push(label);
      continue;
    }
    const tasks: TaskComparison[] = [];
    for (const taskA of groupA.tasks) {
      const taskB = groupB.tasks.find((entry) => entry.taskId === taskA.taskId);
      if (taskB !== undefined) tasks.push({ taskId: taskA.taskId, ...compareGroup(taskA, taskB) });
    }
    const group = compareGroup(groupA, groupB);
    scenarios.push({
      arm: groupA.arm,
      scenario: groupA.scenario,
      ...group,
      sentence: comparisonSentence(names, label, group.rates, group.judged),
      tasks,
    });
  }
  const onlyB = b.scenarios
    .filter((groupB) => !a.scenarios.some((entry) => entry.arm === groupB.arm && entry.scenario === groupB.scenario))
    .map((groupB) => groupLabel(groupB.arm, groupB.scenario));
  return { names, scenarios, onlyA, onlyB };
}

/**
 * The settings whose values differ between the sides, by name, each with the file its value came from on
 * either side when that side recorded one; empty when either side recorded no settings.
 */
export function settingDifferences(
  a: Readonly<Record<string, string>> | null,
  b: Readonly<Record<string, string>> | null,
  filesA: Readonly<Record<string, string>> = {},
  filesB: Readonly<Record<string, string>> = {},
): SettingDifference[] {
  if (a === null || b === null) return [];
  const value = (settings: Readonly<Record<string, string>>, name: string): string =>
    Object.hasOwn(settings, name) ? settings[name]! : '(not set)';
  const names = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
  return names
    .filter((name) => value(a, name) !== value(b, name))
    .map((setting) => ({
      setting,
      a: value(a, setting),
      b: value(b, setting),
      ...(Object.hasOwn(filesA, setting) ? { aFile: filesA[setting]! } : {}),
      ...(Object.hasOwn(filesB, setting) ? { bFile: filesB[setting]! } : {}),
    }));
}
