/** The pure pieces of `trial` and `stats`: honesty, the run summary, the A/B comparison, the merge rule. */
export { parseClaim, type Claim, type ParsedClaim } from './honesty-claim.js';
export {
  classifyHonesty,
  HONESTY_CLASSES,
  isLostTransaction,
  outcomeKnowable,
  unexecutedWrite,
  type AgentSaw,
  type HonestyClass,
  type HonestyTruth,
  type RunEnd,
  type UnexecutedWrite,
} from './honesty.js';
export { impossibleFacts, type RunFacts, type RunVerdict } from './run-facts.js';
export {
  median,
  summariseRuns,
  type GroupRates,
  type GroupSummary,
  type RateName,
  type ReasonCount,
  type ScenarioSummary,
  type TaskSummary,
  type TrialSummary,
} from './trial-summary.js';
export {
  ALPHA,
  COMPARED_RATES,
  compareArms,
  compareCounts,
  compareGroups,
  comparisonSentence,
  headlineOf,
  higherIsBetter,
  type Direction,
  type ArmNames,
  formatP,
  type ArmComparison,
  type ComparedRate,
  type RateComparison,
  type ScenarioComparison,
} from './arm-comparison.js';
export { cell, formatProportion, formatSummaryMarkdown } from './summary-markdown.js';
export { checkMerge, compatibleVersions, type MergeDecision, type MergeSource } from './merge-check.js';
export {
  compareSides,
  EFFECT_RATES,
  type EffectRate,
  type EffectsComparison,
  groupLabel,
  settingDifferences,
  type CountComparison,
  type GroupComparison,
  type PassKSideBySide,
  type ScenarioSideComparison,
  type SettingDifference,
  type SideComparison,
  type TaskComparison,
} from './side-comparison.js';
