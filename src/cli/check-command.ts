/**
 * `check`: the CI gate. Reads report files, `--report-dir` folders and benchmark reports,
 * prints one line per session or run, optionally writes JUnit, Markdown and HTML, and exits by verdict
 * (0 all PASS, 2 a FAIL, 3 a NOT_TESTED and no FAIL, 1 the harness itself failed); with rate gates
 * (`--min-pass-rate`, …, `rate-gates.ts`) the rates of trial folders decide instead. The work lives in
 * `check-run.ts`, loaded only when the command runs.
 */
import { declareFlags } from './help.js';
import type { CAC } from 'cac';
import { PROGRAM_NAME } from '../version.js';
import type { CommandContext } from './io.js';
import { parseCheckFlags } from './check-flags.js';

export function defineCheckCommand(cli: CAC, context: CommandContext): void {
  const command = cli.command('check [...paths]', 'CI gate over reports: exit 0 PASS, 2 FAIL, 3 NOT_TESTED');
  declareFlags(command, [
    'junit',
    'markdown',
    'html',
    'journal',
    'fail-on',
    'min-score',
    'min-pass-rate',
    'max-duplicate-rate',
    'max-false-success-rate',
    'max-lost-transaction-rate',
    'bound',
  ]);
  command
    .example(`${PROGRAM_NAME} check out/harness-report.json --junit out/junit.xml`)
    .example(`${PROGRAM_NAME} check trial-out --max-duplicate-rate 0.05 --bound upper --junit junit.xml`)
    .action((paths: string[]) => {
      const extra = Array.isArray(cli.options['--']) ? (cli.options['--'] as string[]) : [];
      const flags = parseCheckFlags([...paths, ...extra], context.values);
      return import('./check-run.js').then((m) => m.runCheckCommand(flags, context.io));
    });
}
