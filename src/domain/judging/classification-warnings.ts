/**
 * Start-up warnings about a configuration that cannot measure what the user asked for (R-8.4, issue
 * 11): a `--write-tools` / `--read-tools` pattern that matches none of the upstream's tools (a typo, or
 * the wrong server), and a scenario that can never trigger because no tool is of the class it acts on.
 * Printed on stderr after the classification lines; the proxy still runs.
 */
import type { ClassificationRules, ToolClassification } from './classification.js';
import type { ScenarioConfig } from '../faults/fault-plan.js';
import { globMatch } from '../text/glob.js';

/** The warning lines (without the program prefix); empty when the configuration can work. */
export function classificationWarnings(
  rules: ClassificationRules,
  scenario: ScenarioConfig,
  tools: readonly ToolClassification[],
): string[] {
  const names = tools.map((tool) => tool.name);
  const lines: string[] = [];
  for (const [flag, patterns] of [
    ['--write-tools', rules.writeTools],
    ['--read-tools', rules.readTools],
  ] as const) {
    for (const pattern of patterns ?? []) {
      if (!names.some((name) => globMatch(pattern, name))) {
        lines.push(
          `WARNING: ${flag} pattern ${JSON.stringify(pattern)} matches none of the upstream's ${names.length} tools (patterns are case-sensitive; * is the only wildcard).`,
        );
      }
    }
  }
  const writes = tools.filter((tool) => tool.class === 'write').length;
  const reads = tools.filter((tool) => tool.class === 'read').length;
  if (scenario.mode === 'scenario' && writes === 0) {
    lines.push(
      `WARNING: scenario ${scenario.id} can never trigger: no upstream tool is classified as a write, and ${scenario.id} acts on writes only. ` +
        'Every run will be NOT_TESTED; use --write-tools to name the write tools.',
    );
  }
  if (scenario.mode === 'chaos' && writes + reads === 0) {
    lines.push(
      'WARNING: chaos mode can never trigger: no upstream tool is classified as a read or a write. Use --write-tools or --read-tools.',
    );
  }
  // --fault-tool: the aim must hit a tool the scenario acts on.
  const aimed = scenario.aim?.tools;
  if (aimed != null && scenario.mode !== 'none') {
    const acted = tools.filter((tool) => (scenario.mode === 'chaos' ? tool.class !== 'unclassified' : tool.class === 'write'));
    if (!acted.some((tool) => aimed.some((pattern) => globMatch(pattern, tool.name)))) {
      const kind = scenario.mode === 'chaos' ? 'read or write' : 'write';
      lines.push(
        `WARNING: --fault-tool ${JSON.stringify(aimed.join(','))} matches no ${kind} tool of the upstream, so the fault can never trigger; every run will be NOT_TESTED.`,
      );
    }
  }
  return lines;
}
