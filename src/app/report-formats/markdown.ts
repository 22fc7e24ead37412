/**
 * The Markdown summary for a pull request or `$GITHUB_STEP_SUMMARY`: the overall result, a
 * table with one row per session or run (verdict, score, reason), the violations in words, and the
 * prompt patches to copy (each once, in a code block). Every value from a report is escaped.
 */
import type { Patch } from '../../domain/report/patches.js';
import type { CheckedCase, CheckResult } from '../check/check-model.js';
import { gateName } from '../check/rate-gates.js';
import { honestyWords, measuredText, statusLabel } from '../check/check-text.js';
import { sourceCounts } from './attribution-summary.js';
import { mdFence, mdText } from './escape.js';
import { gateVerdict, overallOf } from './overall.js';
import { effectsLines, violationText } from './words.js';

const ICON: Record<CheckedCase['status'], string> = { PASS: '✅', FAIL: '❌', NOT_TESTED: '⚠️', ERROR: '💥' };

function headline(result: CheckResult): string {
  const { counts, exitCode } = result;
  const overall = overallOf(result);
  const baseline = counts.baseline > 0 ? ` (${counts.baseline} baseline only: no fault was injected)` : '';
  return [
    `## cuonztech-agent-harness check: ${ICON[overall.status]} ${overall.label}`,
    '',
    `${counts.total} session(s)/run(s): ${counts.pass} PASS${baseline}, ${counts.fail} FAIL, ${counts.notTested} NOT_TESTED, ${counts.error} harness error(s). Exit code ${exitCode}.`,
  ].join('\n');
}

/** The rate gates: one row per gate and group, a failed one first in the table's order with by how much. */
function gateSection(result: CheckResult): string[] {
  if (result.gates.length === 0) return [];
  const lines = ['### Rate gates', '', '| | gate | group | measured | result |', '| --- | --- | --- | --- | --- |'];
  for (const gate of result.gates) {
    lines.push(
      `| ${gate.passed ? '✅' : '❌'} | ${mdText(gateName(gate))} | ${mdText(gate.group)} | ${gate.rate.count}/${gate.rate.of} | ${mdText(gateVerdict(gate))} |`,
    );
  }
  return [...lines, ''];
}

function dimensions(c: CheckedCase): string {
  const d = c.document?.score.dimensions;
  if (d === undefined || c.score === null) return c.score === null ? 'no score' : `${c.score}/100`;
  const part = (v: number | null) => (v === null ? 'n/a' : `${v}`);
  return `${c.score}/100 (duplicate safety ${part(d.duplicateSafety)}, failure handling ${part(d.failureHandling)}, honesty ${honestyWords(c.honesty)})`;
}

function row(c: CheckedCase): string {
  const measured = measuredText(c);
  return `| ${ICON[c.status]} ${mdText(statusLabel(c))} | ${mdText(c.title)} | ${c.score === null ? '—' : `${c.score}/100`} | ${measured === '' ? '—' : mdText(measured)} | ${mdText(c.reason)} |`;
}

/** The summary table's head, in the full summary and in the step summary cut to GitHub's limit. */
const TABLE_HEAD = ['| result | session / run | score | honesty | reason |', '|---|---|---|---|---|'];
const FOOTER = '_Self-test results (UNVERIFIED_FOR_PRODUCTION), not a certification._';

/**
 * Violations listed per case (as the HTML report shows before its fold): GitHub refuses a step summary
 * over 1 MiB as a whole, and one session with thousands of duplicate writes would pass it alone.
 */
const VIOLATIONS_LISTED = 10;

function violationLines(c: CheckedCase): string[] {
  const listed = c.violations.slice(0, VIOLATIONS_LISTED).map((v) => `- ${mdText(violationText(v))}`);
  const more = c.violations.length - listed.length;
  return more > 0 ? [...listed, '', `… and ${more} more violation(s) (all of them are in the report file)`] : listed;
}

/** A run whose honesty, transaction or effects went wrong gets its details even when its verdict is PASS. */
const dishonest = (c: CheckedCase): boolean =>
  c.honesty === 'FALSE_SUCCESS' ||
  c.honesty === 'FALSE_FAILURE' ||
  c.lostTransaction === true ||
  (c.effects !== null && c.effects.verdict !== 'EXACTLY_ONCE' && c.effects.verdict !== 'NO_EFFECT');

/** R-15: the effects verdict, why it differs from the execution verdict, the snapshots and the keys. */
function effectsDetail(c: CheckedCase): string[] {
  if (c.effects === null) return [];
  const [verdict, ...rest] = effectsLines(c.effects);
  return ['', `**${mdText(verdict!)}**`, '', ...rest.map((line) => `- ${mdText(line)}`)];
}

function details(c: CheckedCase): string[] {
  if (c.status === 'PASS' && !c.baseline && !dishonest(c)) return [];
  const lines = [
    `### ${ICON[c.status]} ${mdText(statusLabel(c))}: ${mdText(c.title)}`,
    '',
    `**Score:** ${dimensions(c)}  `,
    `**Why:** ${mdText(c.reason)}`,
  ];
  if (c.lostTransaction === true) lines.push('', '**Lost transaction:** the write never executed and the agent ended the run.');
  lines.push(...effectsDetail(c));
  if (c.violations.length > 0) lines.push('', `**Violations (${c.violations.length}):**`, '', ...violationLines(c));
  if (c.patches.length > 0) lines.push('', `**Prompt patches:** ${c.patches.map((p) => mdText(p.id)).join(', ')} (texts below)`);
  for (const f of c.findings)
    lines.push('', `**Finding ${mdText(f.id)} (${mdText(f.behaviour)}):** ${mdText(f.trigger)} ${mdText(f.text)}`);
  return [...lines, ''];
}

function patchSection(patches: readonly Patch[]): string[] {
  if (patches.length === 0) return [];
  const lines = [
    '## Prompt patches to copy',
    '',
    "Suggestions, not verified fixes: add one to the agent's system prompt, re-run the same scenario several times and compare.",
    '',
  ];
  for (const p of patches)
    lines.push(`### [${mdText(p.severity)}] ${mdText(p.id)}`, '', `**Trigger:** ${mdText(p.trigger)}`, '', mdFence(p.text), '');
  return lines;
}

/** The Markdown document (ends with a newline). */
export function buildMarkdown(result: CheckResult): string {
  const cases = result.suites.flatMap((s) => s.cases);
  const patches = new Map<string, Patch>();
  for (const p of cases.flatMap((c) => c.patches)) if (!patches.has(p.id)) patches.set(p.id, p);
  // concat, not push(...): tens of thousands of cases would overflow the call stack as arguments.
  const bySource = sourceCounts(cases);
  const lines = [headline(result), ''].concat(
    gateSection(result),
    bySource === null ? [] : [`**Repeated writes by source:** ${bySource}`, ''],
    TABLE_HEAD,
    cases.map(row),
    [''],
    cases.flatMap(details),
    patchSection([...patches.values()]),
  );
  lines.push(FOOTER, '');
  return lines.join('\n');
}

/** GitHub refuses a step summary over 1 MiB as a whole: the upload fails and nothing is shown. */
export const STEP_SUMMARY_MAX_BYTES = 1024 * 1024;

const utf8Length = (text: string): number => new TextEncoder().encode(text).length;

/**
 * What is appended to `$GITHUB_STEP_SUMMARY`: the Markdown summary; when that is over GitHub's limit, the
 * headline and as many table rows as fit — the cases that did not pass first — then how many were left out.
 * `maxBytes` is GitHub's limit; a test gives a small one to cut a small result.
 */
export function buildStepSummary(result: CheckResult, maxBytes = STEP_SUMMARY_MAX_BYTES): string {
  const full = buildMarkdown(result);
  if (utf8Length(full) <= maxBytes) return full;
  const cases = result.suites.flatMap((s) => s.cases);
  const ordered = [...cases.filter((c) => c.status !== 'PASS'), ...cases.filter((c) => c.status === 'PASS')];
  const head = `${headline(result)}\n\n${gateSection(result)
    .map((line) => `${line}\n`)
    .join('')}${TABLE_HEAD.join('\n')}\n`;
  const tail = (left: number) =>
    `\n… and ${left} more row(s): the whole summary is over GitHub’s 1 MiB step summary limit; every case is in check's ` +
    '--markdown, --junit and --html files and in the report files.\n\n' +
    `${FOOTER}\n`;
  const budget = maxBytes - utf8Length(head) - utf8Length(tail(cases.length));
  const rows: string[] = [];
  let used = 0;
  for (const c of ordered) {
    const line = `${row(c)}\n`;
    const size = utf8Length(line);
    if (used + size > budget) break;
    rows.push(line);
    used += size;
  }
  return `${head}${rows.join('')}${tail(cases.length - rows.length)}`;
}
