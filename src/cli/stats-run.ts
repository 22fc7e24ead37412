/**
 * `stats`, run: reads the folders (adapter), merges them (use case), prints the table and writes the
 * outputs. A refused merge or an output that cannot be written: one line on stderr, exit 1, no file.
 */
import { appendStepSummary, writeOutputFile } from '../adapters/files/report-files/output-files.js';
import { readStatsFolder } from '../adapters/files/report-files/stats-sources.js';
import { mergeFolders } from '../app/stats/stats.js';
import { formatStatsTable, statsDocument } from '../app/stats/stats-text.js';
import { formatSummaryMarkdown } from '../domain/trial/index.js';
import { HARNESS_VERSION } from '../version.js';
import { EXIT_FAILURE, formatFatal } from './errors.js';
import { writeNotice, type CliIo } from './io.js';
import type { StatsFlags } from './stats-flags.js';

export async function runStats(flags: StatsFlags, io: CliIo): Promise<number> {
  const inputs = [];
  for (const path of flags.paths) inputs.push(await readStatsFolder(path));
  const outcome = mergeFolders(inputs);
  if (!outcome.ok) {
    writeNotice(io.stderr, outcome.message);
    return EXIT_FAILURE;
  }
  const { result } = outcome;
  const summaryFile = io.env['GITHUB_STEP_SUMMARY'];
  try {
    if (flags.json !== undefined)
      await writeOutputFile('JSON summary', flags.json, `${JSON.stringify(statsDocument(result, HARNESS_VERSION), null, 2)}\n`);
    const md = formatSummaryMarkdown(result.summary, result.comparisons);
    if (flags.markdown !== undefined) await writeOutputFile('Markdown summary', flags.markdown, md);
    if (summaryFile !== undefined && summaryFile !== '') await appendStepSummary(summaryFile, md);
  } catch (error) {
    io.stderr.write(`${formatFatal(error)}\n`);
    return EXIT_FAILURE;
  }
  io.stdout.write(formatStatsTable(result));
  return 0;
}
