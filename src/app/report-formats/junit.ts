/**
 * JUnit XML (issue 15): a projection of `check`'s cases in the shape GitHub's and GitLab's test-report
 * readers take — `<testsuites>` → one `<testsuite>` per path (a report file, a `--report-dir` folder, a
 * benchmark report) → one `<testcase classname name time file>` per session or run. FAIL is a `<failure>`
 * with the violations in words and the patch ids, NOT_TESTED a `<skipped>` with the reason (never green),
 * a harness failure an `<error>`. Reports hold no duration, so `time` is 0.
 */
import type { CheckedCase, CheckedSuite } from '../check/check-model.js';
import { statusLabel } from '../check/check-text.js';
import { xmlAttr, xmlText } from './escape.js';
import { violationText } from './words.js';

const TOOL = 'cuonztech-agent-harness';

function failureBody(c: CheckedCase): string {
  const lines = [c.reason, ...c.violations.map(violationText)];
  if (c.patches.length > 0) lines.push(`Prompt patches: ${c.patches.map((p) => p.id).join(', ')}`);
  return lines.join('\n');
}

function outcome(c: CheckedCase): string {
  switch (c.status) {
    case 'PASS':
      return '';
    case 'FAIL': {
      const type = c.violations[0]?.type ?? 'FAIL';
      return `      <failure message="${xmlAttr(c.reason)}" type="${xmlAttr(type)}">${xmlText(failureBody(c))}</failure>\n`;
    }
    case 'NOT_TESTED':
      return `      <skipped message="${xmlAttr(`NOT_TESTED: ${c.reason}`)}"/>\n`;
    case 'ERROR':
      return `      <error message="${xmlAttr(c.reason)}" type="${c.incomplete ? 'IncompleteReport' : 'HarnessError'}">${xmlText(`${c.path}\n${c.reason}`)}</error>\n`;
  }
}

function testcase(c: CheckedCase): string {
  const out = [`${statusLabel(c)}${c.score === null ? '' : ` — score ${c.score}/100`}`, c.reason].join('\n');
  return (
    `    <testcase classname="${xmlAttr(c.classname)}" name="${xmlAttr(c.baseline ? `${c.name} [baseline only]` : c.name)}" time="0" file="${xmlAttr(c.path)}">\n` +
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
}

function tally(cases: readonly CheckedCase[]): Tally {
  return {
    tests: cases.length,
    failures: cases.filter((c) => c.status === 'FAIL').length,
    errors: cases.filter((c) => c.status === 'ERROR').length,
    skipped: cases.filter((c) => c.status === 'NOT_TESTED').length,
  };
}

const counts = (t: Tally): string =>
  `tests="${t.tests}" failures="${t.failures}" errors="${t.errors}" skipped="${t.skipped}" time="0"`;

/** The JUnit XML document of the suites (UTF-8, well-formed whatever the names contain). */
export function buildJunit(suites: readonly CheckedSuite[], title = `${TOOL} check`): string {
  const parts = [
    '<?xml version="1.0" encoding="UTF-8"?>\n',
    `<testsuites name="${xmlAttr(title)}" ${counts(tally(suites.flatMap((s) => s.cases)))}>\n`,
  ];
  for (const suite of suites) {
    parts.push(`  <testsuite name="${xmlAttr(suite.name)}" ${counts(tally(suite.cases))}>\n`);
    parts.push(`    <properties><property name="reader" value="${xmlAttr(suite.reader)}"/></properties>\n`);
    for (const c of suite.cases) parts.push(testcase(c));
    parts.push('  </testsuite>\n');
  }
  parts.push('</testsuites>\n');
  return parts.join('');
}
