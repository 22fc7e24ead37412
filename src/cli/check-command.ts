/**
 * `check`: the CI gate. Reads report files, `--report-dir` folders and benchmark reports,
 * prints one line per session or run, optionally writes JUnit, Markdown and HTML, and exits by verdict
 * (0 all PASS, 2 a FAIL, 3 a NOT_TESTED and no FAIL, 1 the harness itself failed); with rate gates
 * (`--min-pass-rate`, …, `rate-gates.ts`) the rates of trial folders decide instead. The work lives in
 * `check-run.ts`, loaded only when the command runs.
 */
import { withValue } from './flag-spec.js';
import type { CAC } from 'cac';
import { PROGRAM_NAME } from '../version.js';
import type { CommandContext } from './io.js';
import { parseCheckFlags } from './check-flags.js';

export function defineCheckCommand(cli: CAC, context: CommandContext): void {
  cli
    .command('check [...paths]', 'CI gate over reports: exit 0 PASS, 2 FAIL, 3 NOT_TESTED')
    .option(withValue('junit'), 'Write JUnit XML (one testsuite per path, one testcase per session or run)')
    .option(withValue('markdown'), 'Write a Markdown summary (also appended to $GITHUB_STEP_SUMMARY when set)')
    .option(withValue('html'), 'Write a self-contained HTML report with a timeline of the calls')
    .option(
      withValue('journal'),
      "With --html: the proxy's --journal file, so the timeline shows every call with its time, in the real order",
    )
    .option(
      withValue('fail-on'),
      "What fails the check: FAIL, NOT_TESTED (both by default), a trial run's FALSE_SUCCESS, FALSE_FAILURE, LOST_TRANSACTION, an effects verdict DUPLICATE_EFFECT, LOST_EFFECT, EFFECTS_UNKNOWN; or none",
    )
    .option(withValue('min-score'), 'A PASS scoring below n (0–100) counts as FAIL')
    .option(
      withValue('min-pass-rate'),
      'Rate gate (trial folders): every arm and scenario needs a PASS rate of at least r (0.9 or 90%)',
    )
    .option(withValue('max-duplicate-rate'), 'Rate gate: runs with a duplicate execution at most r of the judged runs')
    .option(withValue('max-false-success-rate'), 'Rate gate: FALSE_SUCCESS answers at most r of the measured answers')
    .option(withValue('max-lost-transaction-rate'), 'Rate gate: lost transactions at most r of the judged runs')
    .option(
      withValue('bound'),
      'Judge every rate gate on that bound of its 95 % Wilson interval, not the point: lower for a min gate and upper for a max gate pass only at 95 % confidence',
    )
    .example(`${PROGRAM_NAME} check out/harness-report.json --junit out/junit.xml`)
    .example(`${PROGRAM_NAME} check trial-out --max-duplicate-rate 0.05 --bound upper --junit junit.xml`)
    .action((paths: string[]) => {
      const extra = Array.isArray(cli.options['--']) ? (cli.options['--'] as string[]) : [];
      const flags = parseCheckFlags([...paths, ...extra], context.values);
      return import('./check-run.js').then((m) => m.runCheckCommand(flags, context.io));
    });
}
