/**
 * The console projection of `check`: one line per session or run, then one summary line. Tool names and
 * arguments never reach these lines raw: reasons come from the harness, and control characters in a
 * path are shown escaped so a hostile file name cannot rewrite the terminal.
 */
import type { CaseStatus, CheckedCase, CheckResult } from './check-model.js';

/** Control characters (C0, DEL, C1) shown as `\uXXXX`, so a line stays one line. */
export function printable(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

const LABEL: Record<CaseStatus, string> = { PASS: 'PASS', FAIL: 'FAIL', NOT_TESTED: 'NOT_TESTED', ERROR: 'ERROR' };

/** The status as shown: a baseline PASS and an incomplete report say so. */
export function statusLabel(c: CheckedCase): string {
  if (c.baseline) return 'PASS (baseline only)';
  if (c.incomplete) return `ERROR (incomplete, ${c.verdict ?? '?'} so far)`;
  return LABEL[c.status];
}

function caseLine(c: CheckedCase): string {
  const score = c.score === null ? '' : ` score ${c.score}/100;`;
  const patches = c.patches.length === 0 ? '' : ` patches: ${c.patches.map((p) => p.id).join(', ')}`;
  return printable(`${statusLabel(c).padEnd(10)} ${c.title}:${score} ${c.reason}${patches ? `;${patches}` : ''}`);
}

/** Every case's line and the summary (ends with a newline). */
export function formatCheckText(result: CheckResult): string {
  const lines = result.suites.flatMap((s) => s.cases.map(caseLine));
  const { counts } = result;
  const baseline = counts.baseline > 0 ? ` (${counts.baseline} baseline only)` : '';
  lines.push(
    `check: ${counts.total} session(s)/run(s): ${counts.pass} PASS${baseline}, ${counts.fail} FAIL, ${counts.notTested} NOT_TESTED, ` +
      `${counts.error} harness error(s) → exit ${result.exitCode}`,
  );
  return `${lines.join('\n')}\n`;
}
