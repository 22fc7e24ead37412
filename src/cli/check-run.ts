/**
 * `check`, run: reads the named paths (adapter), judges them (use case), prints the lines and writes the
 * projections. Loaded only when the command runs. An output that cannot be written is a harness failure:
 * one line and exit 1 (the gate must not pass because its report is missing).
 */
import { appendStepSummary, writeOutputFile } from '../adapters/report-files/output-files.js';
import { readSource } from '../adapters/report-files/report-sources.js';
import { CHECK_EXIT } from '../app/check/check-model.js';
import { checkGroups } from '../app/check/check.js';
import { formatCheckText } from '../app/check/check-text.js';
import { buildHtml } from '../app/report-formats/html.js';
import { buildJunit } from '../app/report-formats/junit.js';
import { buildMarkdown } from '../app/report-formats/markdown.js';
import type { CheckFlags } from './check-command.js';
import { formatFatal } from './errors.js';
import type { CliIo } from './io.js';

export async function runCheckCommand(flags: CheckFlags, io: CliIo): Promise<number> {
  const groups = [];
  for (const path of flags.paths) groups.push(await readSource(path));
  const result = checkGroups(groups, flags.options);
  io.stdout.write(formatCheckText(result));
  const { junit, markdown, html } = flags.outputs;
  const summaryFile = io.env['GITHUB_STEP_SUMMARY'];
  try {
    if (junit !== undefined) await writeOutputFile('JUnit XML', junit, buildJunit(result.suites));
    const md = markdown !== undefined || (summaryFile !== undefined && summaryFile !== '') ? buildMarkdown(result) : '';
    if (markdown !== undefined) await writeOutputFile('Markdown summary', markdown, md);
    if (summaryFile !== undefined && summaryFile !== '') await appendStepSummary(summaryFile, md);
    if (html !== undefined) await writeOutputFile('HTML report', html, buildHtml(result));
  } catch (error) {
    io.stderr.write(`${formatFatal(error)}\n`);
    return CHECK_EXIT.harnessFailed;
  }
  return result.exitCode;
}

/**
 * `proxy --report-html`: at exit, the HTML report of the proxy's own report file or folder, as
 * `check --html` builds it. Returns false (after one line on stderr) when it could not be written.
 */
export async function writeHtmlReport(paths: readonly string[], file: string, io: CliIo): Promise<boolean> {
  const groups = [];
  for (const path of paths) groups.push(await readSource(path));
  const result = checkGroups(groups, { failOn: new Set(['FAIL', 'NOT_TESTED']), minScore: null });
  try {
    await writeOutputFile('HTML report', file, buildHtml(result));
    return true;
  } catch (error) {
    io.stderr.write(`${formatFatal(error)}\n`);
    return false;
  }
}
