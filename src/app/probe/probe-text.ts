/**
 * What `probe` prints: one table row per probe (tool, probe, label, reason), each tool's verdict and where
 * it reads the key, then one summary line. The exit code of a probe run (docs/commands/probe.md): 2 when a
 * tool BREAKS its promise, 3 when a tool could not be judged at all, 0 otherwise.
 */
import { PROBES } from '../../domain/probe/probes.js';
import type { ProbeReport } from './probe-service.js';

/** Probes whose label never changes the verdict (P4's fingerprint, P7's key location). */
const REPORTED_ONLY: ReadonlySet<string> = new Set(PROBES.filter((p) => !p.judged).map((p) => p.id));

export const PROBE_EXIT = { ok: 0, breaks: 2, inconclusive: 3 } as const;

export function probeExitCode(report: ProbeReport): number {
  if (report.tools.some((t) => t.verdict === 'BREAKS')) return PROBE_EXIT.breaks;
  if (report.tools.some((t) => t.verdict === 'INCONCLUSIVE')) return PROBE_EXIT.inconclusive;
  return PROBE_EXIT.ok;
}

/** Reasons a stateful server gives when it still holds what an earlier call (or probe run) made. */
const STALE_STATE = /^(the server refused the example|the first call made no effect)/;

/**
 * `reset`: whether `--reset-command` was given. Without it, a tool left INCONCLUSIVE because the server
 * refused the example or the first call made no effect gets a hint line: a second probe run of a stateful
 * server finds what the first one made.
 */
export function formatProbeTable(report: ProbeReport, { reset = false }: { reset?: boolean } = {}): string {
  const rows: string[][] = [['tool', 'probe', 'label', 'reason']];
  for (const tool of report.tools) {
    for (const probe of tool.probes)
      rows.push([
        tool.tool,
        probe.probe,
        probe.label,
        (REPORTED_ONLY.has(probe.probe) ? `reported: ${probe.reason}` : probe.reason) +
          (probe.evidence.effects === undefined ? '' : `; effects ${probe.evidence.effects.verdict}`),
      ]);
    const skippedBy = new Map<string, string[]>();
    for (const skipped of tool.skipped) skippedBy.set(skipped.why, [...(skippedBy.get(skipped.why) ?? []), skipped.probe]);
    for (const [why, probes] of skippedBy) rows.push([tool.tool, probes.join(','), '-', `not run: ${why}`]);
    rows.push([tool.tool, 'verdict', tool.verdict, `${tool.reason}; key read from: ${tool.keyLocation}`]);
  }
  const widths = [0, 1, 2].map((i) => Math.max(...rows.map((row) => row[i]!.length)));
  const lines = rows.map((row) =>
    row
      .map((cell, i) => (i < 3 ? cell.padEnd(widths[i]!) : cell))
      .join('  ')
      .trimEnd(),
  );
  const count = (verdict: string) => report.tools.filter((t) => t.verdict === verdict).length;
  lines.push(
    '',
    `probe: ${report.tools.length} tool(s): ${count('KEEPS')} KEEPS, ${count('BREAKS')} BREAKS, ${count('NO_PROMISE')} NO_PROMISE, ${count('INCONCLUSIVE')} INCONCLUSIVE; effects ${report.countWith === null ? 'judged by the answers (no --count-with)' : `counted with ${report.countWith}`} → exit ${probeExitCode(report)}`,
  );
  const stale = report.tools.some((t) => t.verdict === 'INCONCLUSIVE' && t.probes.some((p) => STALE_STATE.test(p.reason)));
  if (stale && !reset)
    lines.push(
      'hint: a stateful server keeps what earlier calls made, an earlier probe run included: give --reset-command CMD to restore it before each probe (docs/commands/probe.md)',
    );
  return `${lines.join('\n')}\n`;
}
