/**
 * `probe --markdown` and `probe --junit`: the same rows as the table. Markdown: one table per run, every
 * outside text (tool names, the server's words) made inert. JUnit: one suite per tool, one case per probe;
 * a judged probe whose label breaks the promise is a failure, an inconclusive or not-run probe is skipped.
 */
import { BREAKING_LABELS } from '../../domain/probe/probe-judge.js';
import { PROBES } from '../../domain/probe/probes.js';
import { markdownInline } from '../../domain/text/markdown-text.js';
import { xmlAttr, xmlText } from '../report-formats/escape.js';
import type { ProbeReport } from './probe-service.js';
import { probeExitCode } from './probe-text.js';

const JUDGED: ReadonlySet<string> = new Set(PROBES.filter((p) => p.judged).map((p) => p.id));
const SENDS = new Map(PROBES.map((p) => [p.id as string, p.sends]));

export function probeMarkdown(report: ProbeReport): string {
  const lines = [
    `## probe${report.server === null ? '' : `: ${markdownInline(report.server)}`}`,
    '',
    '| tool | verdict | key read from | probes |',
    '|---|---|---|---|',
  ];
  for (const tool of report.tools) {
    const probes = tool.probes.map((p) => `${p.probe} ${markdownInline(p.label)}`).join(', ');
    lines.push(`| ${markdownInline(tool.tool)} | **${tool.verdict}** | ${markdownInline(tool.keyLocation)} | ${probes} |`);
  }
  lines.push('', '| tool | probe | label | reason |', '|---|---|---|---|');
  for (const tool of report.tools)
    for (const p of tool.probes)
      lines.push(`| ${markdownInline(tool.tool)} | ${p.probe} | ${markdownInline(p.label)} | ${markdownInline(p.reason)} |`);
  lines.push(
    '',
    `Effects ${report.countWith === null ? 'judged by the answers (no --count-with)' : `counted with ${markdownInline(report.countWith)}`}; exit ${probeExitCode(report)}.`,
    '',
  );
  return lines.join('\n');
}

export function probeJunit(report: ProbeReport): string {
  let tests = 0;
  let failures = 0;
  let skipped = 0;
  const suites: string[] = [];
  for (const tool of report.tools) {
    const cases: string[] = [];
    let toolFailures = 0;
    let toolSkipped = 0;
    for (const p of tool.probes) {
      const name = `${p.probe} ${SENDS.get(p.probe) ?? ''}`;
      let body = '';
      if (JUDGED.has(p.probe) && BREAKING_LABELS.has(p.label)) {
        body = `<failure message="${xmlAttr(p.label)}" type="BREAKS">${xmlText(p.reason)}</failure>`;
        toolFailures++;
      } else if (p.label === 'inconclusive') {
        body = `<skipped message="${xmlAttr(`inconclusive: ${p.reason}`)}"/>`;
        toolSkipped++;
      }
      cases.push(
        `    <testcase classname="probe.${xmlAttr(tool.tool)}" name="${xmlAttr(name)}">${body}<system-out>${xmlText(`${p.label}: ${p.reason}`)}</system-out></testcase>`,
      );
    }
    for (const s of tool.skipped) {
      cases.push(
        `    <testcase classname="probe.${xmlAttr(tool.tool)}" name="${xmlAttr(`${s.probe} ${SENDS.get(s.probe) ?? ''}`)}"><skipped message="${xmlAttr(`not run: ${s.why}`)}"/></testcase>`,
      );
      toolSkipped++;
    }
    const count = tool.probes.length + tool.skipped.length;
    tests += count;
    failures += toolFailures;
    skipped += toolSkipped;
    suites.push(
      `  <testsuite name="${xmlAttr(`${tool.tool}: ${tool.verdict}`)}" tests="${count}" failures="${toolFailures}" errors="0" skipped="${toolSkipped}">\n${cases.join('\n')}\n  </testsuite>`,
    );
  }
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="cuonztech-agent-harness probe" tests="${tests}" failures="${failures}" errors="0" skipped="${skipped}">\n${suites.join('\n')}\n</testsuites>\n`;
}
