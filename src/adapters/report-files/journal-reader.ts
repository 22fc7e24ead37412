/**
 * Reads a journal file back (format: `docs/journal.md`). Every complete line is a record; a last line
 * without its line feed is what a killed writer leaves, and is skipped. Lines that are not journal
 * records of this version (another program's, damaged) are skipped and counted, never guessed at. A file
 * whose first line is not a journal header is refused with a one-line Error.
 */
import { readRegularFile } from './regular-file.js';
import { JOURNAL_VERSION, type JournalContents, type JournalRecord } from '../../ports/journal.port.js';

const CALL_STEPS = new Set(['received', 'injected', 'forwarded', 'answered', 'delivered']);
const CLASSES = new Set(['read', 'write', 'unclassified']);

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const own = (o: Record<string, unknown>, key: string): unknown => (Object.hasOwn(o, key) ? o[key] : undefined);
const isCount = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value) && value >= 1;
/** An optional field: absent, or of the type the journal writes (a damaged line is skipped, not trusted). */
const absentOr = (o: Record<string, unknown>, key: string, type: 'string' | 'boolean', nullable = false): boolean => {
  const value = own(o, key);
  return value === undefined || typeof value === type || (nullable && value === null);
};

/** The record a line holds, or null when it is not a journal line of this version. */
function recordOf(line: string): JournalRecord | null {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return null;
  }
  if (!isObject(value) || own(value, 'v') !== JOURNAL_VERSION || typeof own(value, 'at') !== 'number') return null;
  const event = own(value, 'event');
  if (event === 'journal')
    return typeof own(value, 'harnessVersion') === 'string' && typeof own(value, 'payloads') === 'boolean'
      ? (value as unknown as JournalRecord)
      : null;
  if (typeof own(value, 'session') !== 'string') return null;
  if (event === 'opened')
    return typeof own(value, 'scenario') === 'string' && absentOr(value, 'report', 'string')
      ? (value as unknown as JournalRecord)
      : null;
  if (event === 'ended') return typeof own(value, 'verdict') === 'string' ? (value as unknown as JournalRecord) : null;
  if (typeof event !== 'string' || !CALL_STEPS.has(event)) return null;
  const operation = own(value, 'operation');
  const fault = own(value, 'fault');
  const ok =
    isCount(own(value, 'attempt')) &&
    typeof own(value, 'tool') === 'string' &&
    CLASSES.has(own(value, 'class') as string) &&
    (operation === null || isCount(operation)) &&
    (fault === null || typeof fault === 'string') &&
    absentOr(value, 'upstream', 'string', true) &&
    absentOr(value, 'reason', 'string') &&
    absentOr(value, 'replaced', 'boolean') &&
    absentOr(value, 'told', 'string');
  return ok ? (value as unknown as JournalRecord) : null;
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
    throw new Error(`journal cannot be read: ${path} (${error instanceof Error ? error.message : String(error)})`);
  }
  return parseJournal(text, path);
}
