/**
 * JUnit XML: a projection of `check`'s cases in the shape GitHub's and GitLab's test-report
 * readers take — `<testsuites>` → one `<testsuite>` per path (a report file, a `--report-dir` folder, a
 * benchmark report) → one `<testcase classname name time file>` per session or run. FAIL is a `<failure>`
 * with the violations in words and the patch ids, NOT_TESTED a `<skipped>` with the reason (never green),
 * a harness failure an `<error>`. `time` is a trial run's duration; a proxy report holds none, so 0.
 */
import type { CheckedCase, CheckedSuite } from '../check/check-model.js';
import { measuredText, statusLabel } from '../check/check-text.js';
import { xmlAttr, xmlText } from './escape.js';
import { violationText } from './words.js';

const TOOL = 'cuonztech-agent-harness';

function failureBody(c: CheckedCase): string {
  const lines = [c.reason, ...c.violations.map(violationText)];
  if (c.patches.length > 0) lines.push(`Prompt patches: ${c.patches.map((p) => p.id).join(', ')}`);
  for (const f of c.findings) lines.push(`Finding ${f.id} (${f.behaviour}): ${f.trigger} A prompt change will not fix it.`);
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

/** The JUnit XML document of the suites (UTF-8, well-formed whatever the names contain). */
export function buildJunit(suites: readonly CheckedSuite[], title = `${TOOL} check`): string {
  const parts = [
    '<?xml version="1.0" encoding="UTF-8"?>\n',
    `<testsuites name="${xmlAttr(title)}" ${counts(tally(suites.flatMap((s) => s.cases)))}>\n`,
  ];
  const names = uniqueNames(suites.flatMap((s) => s.cases));
  let next = 0;
  for (const suite of suites) {
    parts.push(`  <testsuite name="${xmlAttr(suite.name)}" ${counts(tally(suite.cases))}>\n`);
    parts.push(`    <properties><property name="reader" value="${xmlAttr(suite.reader)}"/></properties>\n`);
    for (const c of suite.cases) parts.push(testcase(c, names[next++]!));
    parts.push('  </testsuite>\n');
  }
  parts.push('</testsuites>\n');
  return parts.join('');
}
