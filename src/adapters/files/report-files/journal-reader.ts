/**
 * Reads a journal file back (format: `docs/journal.md`). Every complete line is a record; a last line
 * without its line feed is what a killed writer leaves, and is skipped. Lines that are not journal
 * records of this version (another program's, damaged) are skipped and counted, never guessed at. A file
 * whose first line is not a journal header is refused with a one-line Error.
 */
import { errorMessage } from '../../../domain/error-message.js';
import { journalRecordOf } from '../../schemas/journal.schema.js';
import { readRegularFile } from './regular-file.js';
import { JOURNAL_VERSION, type JournalContents, type JournalRecord } from '../../../ports/journal.port.js';

/** The record a line holds, or null when it is not a journal line of this version (its schema decides). */
function recordOf(line: string): JournalRecord | null {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return null;
  }
  return journalRecordOf(value);
}

/** Parses a journal's text; throws a one-line Error when it is not a journal at all. */
export function parseJournal(text: string, shown = 'journal'): JournalContents {
  const lines = text.split('\n');
  // The text after the last line feed: '' for a complete file, else a line the writer did not finish.
  const last = lines.pop() ?? '';
  const records: JournalRecord[] = [];
  let skipped = 0;
  for (const line of lines) {
    if (line.trim() === '') continue;
    const record = recordOf(line);
    if (record === null) skipped++;
    else records.push(record);
  }
  if (records[0]?.event !== 'journal') {
    throw new Error(`not a journal (version ${JOURNAL_VERSION}): ${shown} — its first line is not a journal header`);
  }
  return { records, tornLastLine: last !== '', skipped };
}

/** Reads and parses a journal file; rejects with a one-line Error. */
export async function readJournal(path: string): Promise<JournalContents> {
  let text: string;
  try {
    text = await readRegularFile(path);
  } catch (error) {
    throw new Error(`journal cannot be read: ${path} (${errorMessage(error)})`);
  }
  return parseJournal(text, path);
}
