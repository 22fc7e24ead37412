/**
 * JUnit XML: a projection of `check`'s cases in the shape GitHub's and GitLab's test-report
 * readers take — `<testsuites>` → one `<testsuite>` per path (a report file, a `--report-dir` folder, a
 * benchmark report) → one `<testcase classname name time file>` per session or run. FAIL is a `<failure>`
 * with the violations in words and the patch ids, NOT_TESTED a `<skipped>` with the reason (never green),
 * a harness failure an `<error>`. `time` is a trial run's duration; a proxy report holds none, so 0.
 */
import type { CheckedCase, CheckedSuite } from '../check/check-model.js';
import type { RateGateOutcome } from '../check/rate-gates.js';
import { measuredText, statusLabel } from '../check/check-text.js';
import { xmlAttr, xmlText } from './escape.js';
import { effectsLines, violationText } from './words.js';

const TOOL = 'cuonztech-agent-harness';

function failureBody(c: CheckedCase): string {
  const lines = [c.reason, ...c.violations.map(violationText)];
  if (c.patches.length > 0) lines.push(`Prompt patches: ${c.patches.map((p) => p.id).join(', ')}`);
  for (const f of c.findings) lines.push(`Finding ${f.id} (${f.behaviour}): ${f.trigger} A prompt change will not fix it.`);
  if (c.effects !== null) lines.push(...effectsLines(c.effects));
  return lines.join('\n');
}

function outcome(c: CheckedCase): string {
  switch (c.status) {
    case 'PASS':
      return '';
    case 'FAIL': {
      const type = c.gatedBy[0] ?? c.violations[0]?.type ?? 'FAIL';
      return `      <failure message="${xmlAttr(c.reason)}" type="${xmlAttr(type)}">${xmlText(failureBody(c))}</failure>\n`;
    }
    case 'NOT_TESTED':
      return `      <skipped message="${xmlAttr(`NOT_TESTED: ${c.reason}`)}"/>\n`;
    case 'ERROR':
      return `      <error message="${xmlAttr(c.reason)}" type="${c.incomplete ? 'IncompleteReport' : 'HarnessError'}">${xmlText(`${c.path}\n${c.reason}`)}</error>\n`;
  }
}

/** Seconds as JUnit writes them: the run's duration when the file has one, else 0. */
const secondsOf = (c: CheckedCase): number => (c.durationMs === null ? 0 : Math.round(c.durationMs) / 1000);

function testcase(c: CheckedCase, name: string): string {
  const measured = measuredText(c);
  const out = [
    `${statusLabel(c)}${c.score === null ? '' : ` — score ${c.score}/100`}${measured === '' ? '' : ` — ${measured}`}`,
    c.reason,
    ...(c.effects === null ? [] : effectsLines(c.effects)),
  ].join('\n');
  return (
    `    <testcase classname="${xmlAttr(c.classname)}" name="${xmlAttr(c.baseline ? `${name} [baseline only]` : name)}" time="${secondsOf(c)}" file="${xmlAttr(c.path)}">\n` +
    outcome(c) +
    `      <system-out>${xmlText(out)}</system-out>\n` +
    '    </testcase>\n'
  );
}

interface Tally {
  tests: number;
  failures: number;
  errors: number;
  skipped: number;
  seconds: number;
}

function tally(cases: readonly CheckedCase[]): Tally {
  return {
    tests: cases.length,
    failures: cases.filter((c) => c.status === 'FAIL').length,
    errors: cases.filter((c) => c.status === 'ERROR').length,
    skipped: cases.filter((c) => c.status === 'NOT_TESTED').length,
    // Summed in milliseconds: a sum of thousands of floating-point seconds prints as 12.300000000001.
    seconds: cases.reduce((ms, c) => ms + Math.round(c.durationMs ?? 0), 0) / 1000,
  };
}

const counts = (t: Tally): string =>
  `tests="${t.tests}" failures="${t.failures}" errors="${t.errors}" skipped="${t.skipped}" time="${t.seconds}"`;

/**
 * Each case's `name`, unique with its `classname` in the document: CI readers key a test by the pair, so
 * two cases sharing it (the same report file name in two folders) would be merged into one. A pair seen
 * before gets the file's path appended, and a number if even that repeats (a path named twice).
 */
function uniqueNames(cases: readonly CheckedCase[]): string[] {
  const seen = new Set<string>();
  return cases.map((c) => {
    let name = c.name;
    if (seen.has(`${c.classname}\u0000${name}`)) name = `${c.name} [${c.path}]`;
    for (let n = 2; seen.has(`${c.classname}\u0000${name}`); n++) name = `${c.name} [${c.path}] #${n}`;
    seen.add(`${c.classname}\u0000${name}`);
    return name;
  });
}

/**
 * The rate gates as one more `<testsuite name="rate gates">`: a testcase per gate and group
 * (`--max-duplicate-rate 5 % F1`), a failed gate a `<failure type="RATE_GATE">` saying by how much.
 */
function gateSuite(gates: readonly RateGateOutcome[]): string {
  const failed = gates.filter((gate) => !gate.passed).length;
  const lines = [
    `  <testsuite name="rate gates" tests="${gates.length}" failures="${failed}" errors="0" skipped="0" time="0">\n`,
  ];
  for (const gate of gates) {
    const name = `--${gate.flag} ${gate.group}`;
    lines.push(`    <testcase classname="${TOOL}.rate-gate" name="${xmlAttr(name)}" time="0">\n`);
    if (!gate.passed)
      lines.push(`      <failure message="${xmlAttr(gate.message)}" type="RATE_GATE">${xmlText(gate.message)}</failure>\n`);
    lines.push(`      <system-out>${xmlText(gate.message)}</system-out>\n`, '    </testcase>\n');
  }
  lines.push('  </testsuite>\n');
  return lines.join('');
}

/** The JUnit XML document of the suites and the rate gates (UTF-8, well-formed whatever the names contain). */
export function buildJunit(
  suites: readonly CheckedSuite[],
  title = `${TOOL} check`,
  gates: readonly RateGateOutcome[] = [],
): string {
  const total = tally(suites.flatMap((s) => s.cases));
  total.tests += gates.length;
  total.failures += gates.filter((gate) => !gate.passed).length;
  const parts = ['<?xml version="1.0" encoding="UTF-8"?>\n', `<testsuites name="${xmlAttr(title)}" ${counts(total)}>\n`];
  const names = uniqueNames(suites.flatMap((s) => s.cases));
  let next = 0;
  for (const suite of suites) {
    parts.push(`  <testsuite name="${xmlAttr(suite.name)}" ${counts(tally(suite.cases))}>\n`);
    parts.push(`    <properties><property name="reader" value="${xmlAttr(suite.reader)}"/></properties>\n`);
    for (const c of suite.cases) parts.push(testcase(c, names[next++]!));
    parts.push('  </testsuite>\n');
  }
  if (gates.length > 0) parts.push(gateSuite(gates));
  parts.push('</testsuites>\n');
  return parts.join('');
}
