/**
 * The label of an arm and scenario group, on its own so that what needs only the label (the flags of
 * `check`, loaded by every command's start-up) does not load the trial's domain and its statistics.
 */

/** `F1`, or `F1 (arm patched)` for an arm other than the baseline. */
export function groupLabel(arm: string, scenario: string): string {
  return arm === 'baseline' ? scenario : `${scenario} (arm ${arm})`;
}
