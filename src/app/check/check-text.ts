/**
 * The console projection of `check`: one line per session or run, then one summary line. Tool names and
 * arguments never reach these lines raw: reasons come from the harness, and controls, bidi overrides and
 * invisible characters in a path or a report's text are shown escaped (the domain's terminal escape), so a
 * hostile file name can neither rewrite the terminal nor pass for another name.
 */
import { escapeTerminalText } from '../../domain/text/terminal-text.js';
import { GATED_EFFECTS, type CaseStatus, type CheckedCase, type CheckResult, type GatedVerdict } from './check-model.js';

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
  // R-15: what the backend held, beside the verdict (its reason and explanation are in each projection's details).
  if (c.effects !== null) parts.push(`effects ${c.effects.verdict}`);
  return parts.join(', ');
}

/**
 * `--fail-on DUPLICATE_EFFECT` (or another effects value) over cases without an effects view: those cases
 * cannot hit the gate, and a CI job that believes it gates on the backend should hear so. Null when every
 * case had a view or no effects value was named.
 */
export function effectsGateNotice(result: CheckResult, failOn: ReadonlySet<GatedVerdict>): string | null {
  const named = GATED_EFFECTS.filter((v) => failOn.has(v));
  const without = result.counts.total - result.counts.withEffects - result.counts.error;
  if (named.length === 0 || without <= 0) return null;
  return (
    `--fail-on ${named.join(',')}: ${without} of ${result.counts.total} session(s)/run(s) had no effects view, ` +
    'so nothing was judged of them (give --effects-tool or --effects-command with --effect-key, docs/effects.md)'
  );
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
