/** Statistics of many runs: pure and deterministic; how each figure is computed is in docs/statistics.md. */
export { assertCount, type ArmCount } from './counts.js';
export { logChoose, logFactorial } from './log-factorial.js';
export { proportion, wilsonInterval, Z_95, type Proportion } from './wilson.js';
export { MAX_PASS_K, passHatK, passKCurve, type PassK, type TaskTally } from './pass-k.js';
export { fisherExactTwoSided } from './fisher.js';
export { differenceOfProportions, type Difference } from './difference.js';
