/**
 * `check`, run: reads the named paths (adapter), judges them (use case), prints the lines and writes the
 * projections. Loaded only when the command runs. An output that cannot be written is a harness failure:
 * one line and exit 1 (the gate must not pass because its report is missing).
 */
import { appendStepSummary, refuseOutputsOverInputs, writeOutputFile } from '../adapters/files/report-files/output-files.js';
import { readSource } from '../adapters/files/report-files/report-sources.js';
import { CHECK_EXIT } from '../app/check/check-model.js';
import { checkGroups } from '../app/check/check.js';
import { withRateGates, withTrialSummary } from '../app/check/check-model.js';
import { judgeRateGates } from '../app/check/rate-gates.js';
import { mergeFolders } from '../app/stats/stats.js';
import { readStatsFolder } from '../adapters/files/report-files/stats-sources.js';
import { effectsGateNotice, formatCheckText } from '../app/check/check-text.js';
import { resolve } from 'node:path';
import { buildHtml } from '../app/report-formats/html.js';
import { buildJunit } from '../app/report-formats/junit.js';
import { buildMarkdown, buildStepSummary } from '../app/report-formats/markdown.js';
import type { CheckFlags } from './check-flags.js';
import { formatFatal } from './errors.js';
import { journalTimelines } from './html-report.js';
import { writeNotice, type CliIo } from './io.js';

export async function runCheckCommand(flags: CheckFlags, io: CliIo): Promise<number> {
  const { junit, markdown, html, journal } = flags.outputs;
  const summaryFile = io.env['GITHUB_STEP_SUMMARY'];
  const outputs = [
    { flag: '--junit', path: junit },
    { flag: '--markdown', path: markdown },
    { flag: '--html', path: html },
    { flag: 'GITHUB_STEP_SUMMARY', path: summaryFile === '' ? undefined : summaryFile },
  ].filter((o): o is { flag: string; path: string } => o.path !== undefined);
  const groups = [];
  for (const path of flags.paths) groups.push(await readSource(path));
  // Every file read (a folder's reports and trial runs too) before anything is printed or written.
  const read = [...flags.paths, ...groups.flatMap((g) => g.items.map((item) => item.path))];
  await refuseOutputsOverInputs(outputs, journal === undefined ? read : [...read, resolve(io.cwd, journal)]);
  let result = checkGroups(groups, flags.options);
  if (flags.gates.length > 0) {
    // The rates of the folders named, pooled as `stats` pools them (its reader and merge rules).
    const inputs = [];
    for (const path of flags.paths) inputs.push(await readStatsFolder(path));
    const merged = mergeFolders(inputs);
    if (!merged.ok) {
      writeNotice(io.stderr, `rate gates: ${merged.message}`);
      return CHECK_EXIT.harnessFailed;
    }
    result = withRateGates(result, judgeRateGates(merged.result.summary, flags.gates, flags.bound));
    result = withTrialSummary(result, merged.result.summary);
  } else if (html !== undefined) {
    // The page's picture of the rates per scenario: the trial folders named, pooled as `stats` pools
    // them; none (or folders that cannot be pooled) draws none — without a gate nothing depends on it.
    const inputs = [];
    for (const path of flags.paths) {
      const input = await readStatsFolder(path);
      if (input.kind === 'trial') inputs.push(input);
    }
    const merged = inputs.length === 0 ? null : mergeFolders(inputs);
    if (merged?.ok === true) result = withTrialSummary(result, merged.result.summary);
  }
  // `check … | head`: a reader that left early loses the lines (EPIPE), never the outputs or the exit code.
  io.stdout.on('error', () => undefined);
  io.stdout.write(formatCheckText(result));
  const effectsNotice = effectsGateNotice(result, flags.options.failOn);
  if (effectsNotice !== null) writeNotice(io.stderr, effectsNotice);
  try {
    if (junit !== undefined) await writeOutputFile('JUnit XML', junit, buildJunit(result.suites, undefined, result.gates));
    if (markdown !== undefined) await writeOutputFile('Markdown summary', markdown, buildMarkdown(result));
    if (summaryFile !== undefined && summaryFile !== '') await appendStepSummary(summaryFile, buildStepSummary(result));
    if (html !== undefined)
      await writeOutputFile('HTML report', html, buildHtml(result, await journalTimelines(flags.outputs.journal, io)));
  } catch (error) {
    io.stderr.write(`${formatFatal(error)}\n`);
    return CHECK_EXIT.harnessFailed;
  }
  return result.exitCode;
}
