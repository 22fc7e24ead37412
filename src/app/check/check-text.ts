/**
 * The console projection of `check`: one line per session or run, then one summary line. Tool names and
 * arguments never reach these lines raw: reasons come from the harness, and controls, bidi overrides and
 * invisible characters in a path or a report's text are shown escaped (the domain's terminal escape), so a
 * hostile file name can neither rewrite the terminal nor pass for another name.
 */
import { escapeTerminalText } from '../../domain/terminal-text.js';
import type { CaseStatus, CheckedCase, CheckResult } from './check-model.js';

/** What could drive the terminal or hide itself shown as `\uXXXX`, so a line stays one honest line. */
export const printable = escapeTerminalText;

const LABEL: Record<CaseStatus, string> = { PASS: 'PASS', FAIL: 'FAIL', NOT_TESTED: 'NOT_TESTED', ERROR: 'ERROR' };

/** The status as shown: a baseline PASS and an incomplete report say so. */
export function statusLabel(c: CheckedCase): string {
  if (c.baseline) return 'PASS (baseline only)';
  if (c.incomplete) return `ERROR (incomplete, ${c.verdict ?? '?'} so far)`;
  return LABEL[c.status];
}

/** The honesty class as shown: the class, or "not measured". */
export function honestyWords(honesty: CheckedCase['honesty']): string {
  return honesty === null || honesty === 'NOT_MEASURED' ? 'not measured' : honesty;
}

/**
 * What a trial run measured beyond its verdict, as `honesty FALSE_SUCCESS, lost transaction`; empty for
 * a proxy session (honesty is not measured there, R-3.3, and a lost transaction is a trial's notion) and
 * for a run file that records neither. A replayed session or run starts with `replayed from a recording`. Shared by every projection, so each shows the same words.
 */
export function measuredText(c: CheckedCase): string {
  const parts: string[] = [];
  // docs/replay.md: a replay repeats a recorded sample; every projection says so before anything else.
  if (c.replayed) parts.push('replayed from a recording');
  if (c.honesty !== null && !(c.honesty === 'NOT_MEASURED' && c.lostTransaction === null))
    parts.push(`honesty ${honestyWords(c.honesty)}`);
  if (c.lostTransaction !== null) parts.push(c.lostTransaction ? 'lost transaction' : 'no lost transaction');
  return parts.join(', ');
}

function caseLine(c: CheckedCase): string {
  const score = c.score === null ? '' : ` score ${c.score}/100;`;
  const measured = measuredText(c);
  const findings = c.findings.map((f) => `${f.id} (${f.behaviour})`);
  const patches =
    (c.patches.length === 0 ? '' : ` patches: ${c.patches.map((p) => p.id).join(', ')}`) +
    (findings.length === 0 ? '' : `${c.patches.length === 0 ? '' : ';'} findings: ${findings.join(', ')}`);
  return printable(
    `${statusLabel(c).padEnd(10)} ${c.title}:${score}${measured === '' ? '' : ` ${measured};`} ${c.reason}${patches ? `;${patches}` : ''}`,
  );
}

/** Every case's line and the summary (ends with a newline). */
export function formatCheckText(result: CheckResult): string {
  const lines = result.suites.flatMap((s) => s.cases.map(caseLine));
  for (const gate of result.gates) lines.push(escapeTerminalText(`rate gate ${gate.message}`));
  const { counts } = result;
  const baseline = counts.baseline > 0 ? ` (${counts.baseline} baseline only)` : '';
  lines.push(
    `check: ${counts.total} session(s)/run(s): ${counts.pass} PASS${baseline}, ${counts.fail} FAIL, ${counts.notTested} NOT_TESTED, ` +
      `${counts.error} harness error(s)${gateTally(result)} → exit ${result.exitCode}`,
  );
  return `${lines.join('\n')}\n`;
}

/** `; rate gates: 1 of 3 failed` (empty without a gate). */
function gateTally(result: CheckResult): string {
  if (result.gates.length === 0) return '';
  const failed = result.gates.filter((gate) => !gate.passed).length;
  return `; rate gates: ${failed} of ${result.gates.length} failed`;
}
