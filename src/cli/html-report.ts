/**
 * The HTML report as `check --html` builds it, shared by `check` and `proxy --report-html` (which writes
 * it at exit, loaded late: it reads the reports with zod): the reports read, judged as `check` judges
 * them, and drawn with their journal's timelines where one is given.
 */
import { resolve } from 'node:path';
import { refuseOutputsOverInputs, writeOutputFile } from '../adapters/files/report-files/output-files.js';
import { readJournal } from '../adapters/files/report-files/journal-reader.js';
import { readSource } from '../adapters/files/report-files/report-sources.js';
import { checkGroups } from '../app/check/check.js';
import { buildHtml, type TimelineOf } from '../app/report-formats/html.js';
import {
  journalAgrees,
  journalSessionFor,
  journalSessions,
  timelineFromJournal,
  timelineFromReport,
} from '../app/report-formats/timeline.js';
import { formatFatal } from './errors.js';
import { writeNotice, type CliIo } from './io.js';

/**
 * `proxy --report-html`: at exit, the HTML report of the proxy's own report file or folder, as
 * `check --html` builds it. Returns false (after one line on stderr) when it could not be written.
 */
export async function writeHtmlReport(paths: readonly string[], file: string, io: CliIo, journal?: string): Promise<boolean> {
  const groups = [];
  for (const path of paths) groups.push(await readSource(path));
  const result = checkGroups(groups, { failOn: new Set(['FAIL', 'NOT_TESTED']), minScore: null });
  try {
    const read = [
      ...paths,
      ...groups.flatMap((g) => g.items.map((item) => item.path)),
      ...(journal === undefined ? [] : [journal]),
    ];
    await refuseOutputsOverInputs([{ flag: '--report-html', path: file }], read, 'the report it is built from');
    await writeOutputFile('HTML report', file, buildHtml(result, await journalTimelines(journal, io)));
    return true;
  } catch (error) {
    io.stderr.write(`${formatFatal(error)}\n`);
    return false;
  }
}

/**
 * The timelines of the HTML report: from the journal for the reports it has a session of (times, every
 * call, the real order), from the report alone otherwise. A journal that cannot be read is a harness
 * failure (throws a one-line Error); skipped lines are told on stderr.
 */
export async function journalTimelines(path: string | undefined, io: CliIo): Promise<TimelineOf | undefined> {
  if (path === undefined) return undefined;
  const contents = await readJournal(resolve(io.cwd, path));
  if (contents.skipped > 0)
    writeNotice(
      io.stderr,
      `journal ${path}: ${contents.skipped} line(s) that are not journal lines of this version were skipped`,
    );
  if (contents.tornLastLine)
    writeNotice(
      io.stderr,
      `journal ${path}: its last line is incomplete (the proxy was stopped while writing it) and was skipped`,
    );
  const sessions = journalSessions(contents.records);
  return (c, doc) => {
    const session = journalSessionFor(
      sessions,
      c.path,
      (journaled, report) => resolve(io.cwd, report) === resolve(io.cwd, journaled),
    );
    if (session === null) {
      // Said, not silently dropped: the user asked for this journal and expects an exact timeline.
      writeNotice(
        io.stderr,
        `journal ${path}: none of its ${sessions.length} session(s) is that of ${c.path} (another proxy's or run's journal?): that report's timeline is drawn from the report`,
      );
      return timelineFromReport(doc);
    }
    if (journalAgrees(session, doc)) return timelineFromJournal(session, doc);
    writeNotice(
      io.stderr,
      `journal ${path}: its session "${session.session}" does not match ${c.path} (other calls or counts; another run's journal?): that report's timeline is drawn from the report`,
    );
    return timelineFromReport(doc);
  };
}
