/**
 * `compare`, run: reads each side's folders (the `stats` reader), compares them (use case), prints the
 * text and writes the outputs. Refused input or an output that cannot be written: one line on stderr,
 * exit 1, no file.
 */
import { writeOutputFile } from '../adapters/files/report-files/output-files.js';
import { readStatsFolder } from '../adapters/files/report-files/stats-sources.js';
import { compareFolders } from '../app/compare/compare.js';
import { formatCompareHtml } from '../app/compare/compare-html.js';
import { compareDocument, formatCompareMarkdown, formatCompareText } from '../app/compare/compare-text.js';
import { HARNESS_VERSION } from '../version.js';
import type { CompareFlags } from './compare-flags.js';
import { EXIT_FAILURE, formatFatal } from './errors.js';
import { writeNotice, type CliIo } from './io.js';

export async function runCompare(flags: CompareFlags, io: CliIo): Promise<number> {
  const read = async (paths: readonly string[]) => {
    const inputs = [];
    for (const path of paths) inputs.push(await readStatsFolder(path));
    return inputs;
  };
  const outcome = compareFolders(await read(flags.a), await read(flags.b));
  if (!outcome.ok) {
    writeNotice(io.stderr, outcome.message);
    return EXIT_FAILURE;
  }
  const { result } = outcome;
  try {
    if (flags.json !== undefined)
      await writeOutputFile(
        'JSON comparison',
        flags.json,
        `${JSON.stringify(compareDocument(result, HARNESS_VERSION), null, 2)}\n`,
      );
    if (flags.markdown !== undefined) await writeOutputFile('Markdown comparison', flags.markdown, formatCompareMarkdown(result));
    if (flags.html !== undefined) await writeOutputFile('HTML comparison', flags.html, formatCompareHtml(result));
  } catch (error) {
    io.stderr.write(`${formatFatal(error)}\n`);
    return EXIT_FAILURE;
  }
  io.stdout.write(formatCompareText(result));
  return 0;
}
