/**
 * `check`: the CI gate. Reads report files, `--report-dir` folders and benchmark reports,
 * prints one line per session or run, optionally writes JUnit, Markdown and HTML, and exits by verdict
 * (0 all PASS, 2 a FAIL, 3 a NOT_TESTED and no FAIL, 1 the harness itself failed). The work lives in
 * `check-run.ts`, loaded only when the command runs.
 */
import { resolve } from 'node:path';
import type { CAC } from 'cac';
import { GATED_VALUES, type CheckOptions, type GatedVerdict } from '../app/check/check-model.js';
import { PROGRAM_NAME } from '../version.js';
import { commaList, numberIn, single, type FlagValues } from './argv.js';
import { UsageError } from './errors.js';
import type { CommandContext } from './io.js';

/** Flags of `check` that take a value. */
export const CHECK_VALUE_FLAGS = ['junit', 'markdown', 'html', 'journal', 'fail-on', 'min-score'] as const;

/** Where the projections go; undefined = not written. */
export interface CheckOutputs {
  junit?: string;
  markdown?: string;
  html?: string;
  /** `--journal`: the proxy's journal, for the HTML timeline (times, every read, the real order). */
  journal?: string;
}

export interface CheckFlags {
  paths: string[];
  options: CheckOptions;
  outputs: CheckOutputs;
}

export function defineCheckCommand(cli: CAC, context: CommandContext): void {
  cli
    .command(
      'check [...paths]',
      'CI gate: read report files, --report-dir folders or benchmark reports; exit 0 PASS, 2 FAIL, 3 NOT_TESTED, 1 harness error',
    )
    .option('--junit <file>', 'Write JUnit XML (one testsuite per path, one testcase per session or run)')
    .option('--markdown <file>', 'Write a Markdown summary (also appended to $GITHUB_STEP_SUMMARY when set)')
    .option('--html <file>', 'Write a self-contained HTML report with a timeline of the calls')
    .option(
      '--journal <file>',
      "With --html: the proxy's --journal file, so the timeline shows every call with its time, in the real order",
    )
    .option(
      '--fail-on <list>',
      "What fails the check: FAIL, NOT_TESTED (both by default), a trial run's FALSE_SUCCESS, FALSE_FAILURE, LOST_TRANSACTION; or none",
    )
    .option('--min-score <n>', 'A PASS scoring below n (0–100) counts as FAIL')
    .example(`${PROGRAM_NAME} check out/harness-report.json --junit out/junit.xml`)
    .action((paths: string[]) => {
      const extra = Array.isArray(cli.options['--']) ? (cli.options['--'] as string[]) : [];
      const flags = parseCheckFlags([...paths, ...extra], context.values);
      return import('./check-run.js').then((m) => m.runCheckCommand(flags, context.io));
    });
}

/** The default: both verdicts that are not a PASS; the honesty values are opt-in. */
const DEFAULT_GATED: readonly GatedVerdict[] = ['FAIL', 'NOT_TESTED'];

function failOn(value: string | undefined): Set<GatedVerdict> {
  if (value === undefined) return new Set(DEFAULT_GATED);
  if (value.trim().toLowerCase() === 'none') return new Set();
  const chosen = new Set<GatedVerdict>();
  for (const item of commaList(value, 'fail-on')) {
    const verdict = item.toUpperCase().replace(/-/g, '_');
    if (!(GATED_VALUES as readonly string[]).includes(verdict))
      throw new UsageError(`flag --fail-on accepts ${GATED_VALUES.join(', ')} or none, got "${item}"`);
    chosen.add(verdict as GatedVerdict);
  }
  return chosen;
}

/** Validates the flags and paths: one clear line (UsageError) for anything wrong. */
export function parseCheckFlags(paths: readonly string[], values: FlagValues): CheckFlags {
  if (paths.length === 0)
    throw new UsageError('check needs at least one report file or folder, e.g. check out/harness-report.json');
  const minScore = single(values, 'min-score');
  const outputs: CheckOutputs = {};
  for (const flag of ['junit', 'markdown', 'html'] as const) {
    const file = single(values, flag);
    if (file !== undefined) outputs[flag] = file;
  }
  const files = [outputs.junit, outputs.markdown, outputs.html].filter((f): f is string => f !== undefined);
  // Compared as absolute paths: `out/r.xml` and `./out/r.xml` are one file.
  if (new Set(files.map((f) => resolve(f))).size !== files.length)
    throw new UsageError('--junit, --markdown and --html must name different files');
  const journal = single(values, 'journal');
  if (journal !== undefined && outputs.html === undefined)
    throw new UsageError('--journal feeds the HTML timeline: give --html <file> too');
  if (journal !== undefined && files.includes(journal))
    throw new UsageError('--journal is read, not written: it must not name an output file');
  if (journal !== undefined) outputs.journal = journal;
  return {
    paths: [...paths],
    options: {
      failOn: failOn(single(values, 'fail-on')),
      minScore: minScore === undefined ? null : numberIn(minScore, 'min-score', 0, 100),
    },
    outputs,
  };
}
