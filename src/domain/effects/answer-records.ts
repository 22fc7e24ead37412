/**
 * The records a read tool's answer lists — the ONE reader shared by the effects view (`--effects-tool`)
 * and `probe --count-with`. An answer is read from `structuredContent` when it holds records, else from
 * its text contents, each text as JSON (an array; an object's top-level arrays, e.g. `{entities: [...],
 * relations: [...]}`), as JSON lines (one JSON value per non-empty line), or, when it is no JSON at all,
 * as plain lines (one item per non-empty line: a directory listing). A text that is one JSON object on one
 * line ending in a newline, with no array to list, is JSON lines of one record. `path` (`a.b`) first steps into the
 * JSON value by own fields. Pure; `__proto__` and other field names are read as own fields only.
 */
import { isPlainObject, ownKeys, ownValue } from '../json.js';

/** What an answer lists: its items in order, how they were read, and the bytes of text they came from. */
export interface AnswerItems {
  items: unknown[];
  /** `json`: parsed JSON values; `lines`: text lines that are not JSON (strings). */
  form: 'json' | 'lines';
  /** UTF-8 bytes of the text read (of the canonical JSON for `structuredContent`); for the size bound. */
  bytes: number;
}

export type AnswerReading = { ok: true; value: AnswerItems } | { ok: false; reason: string };

/** `a.b` as field names; the empty path (none given) is no step. */
export function parseRecordPath(path: string | undefined): string[] {
  if (path === undefined || path.trim() === '') return [];
  return path.split('.').map((part) => part.trim());
}

const NOT_ASCII = /[^\x00-\x7f]/;

/** UTF-8 length of a text, without encoding it. */
export function utf8Length(text: string): number {
  // ASCII is one byte a character: the text up to its first other character is counted by its length.
  const first = text.search(NOT_ASCII);
  if (first < 0) return text.length;
  let bytes = first;
  for (let i = first; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

function step(value: unknown, path: readonly string[]): { ok: true; value: unknown } | { ok: false; reason: string } {
  let current = value;
  for (let i = 0; i < path.length; i++) {
    const name = path[i]!;
    const field = isPlainObject(current) ? ownValue(current, name) : undefined;
    if (field === undefined) return { ok: false, reason: `the answer has no field '${path.slice(0, i + 1).join('.')}'` };
    current = field;
  }
  return { ok: true, value: current };
}

/** The items of a JSON value: an array's elements, or an object's top-level arrays joined; null if none. */
function jsonItems(value: unknown): unknown[] | null {
  if (Array.isArray(value)) return value as unknown[];
  if (!isPlainObject(value)) return null;
  const items: unknown[] = [];
  let arrays = 0;
  for (const name of ownKeys(value)) {
    const field = ownValue(value, name);
    if (Array.isArray(field)) {
      for (const item of field) items.push(item);
      arrays++;
    }
  }
  return arrays === 0 ? null : items;
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

function fromJson(value: unknown, path: readonly string[]): { ok: true; items: unknown[] } | { ok: false; reason: string } {
  const stepped = step(value, path);
  if (!stepped.ok) return stepped;
  const items = jsonItems(stepped.value);
  if (items === null) {
    const where = path.length === 0 ? 'the answer' : `'${path.join('.')}'`;
    return { ok: false, reason: `${where} is JSON but neither an array nor an object with arrays` };
  }
  return { ok: true, items };
}

function textItems(
  text: string,
  path: readonly string[],
): { ok: true; items: unknown[]; form: 'json' | 'lines' } | { ok: false; reason: string } {
  const whole = parseJson(text);
  if (whole.ok) {
    const read = fromJson(whole.value, path);
    if (read.ok) return { ok: true, items: read.items, form: 'json' };
    // JSON lines with one line (`cat ledger.jsonl` after one write): one object ending its line is one record.
    if (!(isPlainObject(whole.value) && text.endsWith('\n') && text.trim().split('\n').length === 1)) return read;
  }
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  const parsed: unknown[] = [];
  for (const line of lines) {
    const one = parseJson(line);
    if (!one.ok) {
      if (path.length > 0) return { ok: false, reason: `the answer is not JSON, so it has no field '${path.join('.')}'` };
      return { ok: true, items: lines, form: 'lines' };
    }
    if (path.length === 0) parsed.push(one.value);
    else {
      const stepped = step(one.value, path);
      if (!stepped.ok) return stepped;
      parsed.push(stepped.value);
    }
  }
  return { ok: true, items: parsed, form: 'json' };
}

/**
 * The items a tool answer lists (see the file comment); a failure names why: an `isError` answer, no
 * readable content, JSON without an array, a path that is not there.
 */
export function readAnswerItems(result: unknown, path: readonly string[] = []): AnswerReading {
  if (!isPlainObject(result)) return { ok: false, reason: 'the answer is not a tool result' };
  if (ownValue(result, 'isError') === true) return { ok: false, reason: 'the tool answered with isError' };
  const structured = ownValue(result, 'structuredContent');
  if (structured !== undefined) {
    const read = fromJson(structured, path);
    if (read.ok)
      return { ok: true, value: { items: read.items, form: 'json', bytes: utf8Length(JSON.stringify(structured) ?? '') } };
  }
  const content = ownValue(result, 'content');
  const texts = Array.isArray(content)
    ? content
        .filter((item) => isPlainObject(item) && ownValue(item, 'type') === 'text' && typeof ownValue(item, 'text') === 'string')
        .map((item) => ownValue(item as object, 'text') as string)
    : [];
  if (texts.length === 0) return { ok: false, reason: 'the answer has no text content to read records from' };
  const items: unknown[] = [];
  let form: 'json' | 'lines' = 'json';
  let bytes = 0;
  for (const text of texts) {
    bytes += utf8Length(text);
    const read = textItems(text, path);
    if (!read.ok) return read;
    if (read.form === 'lines') form = 'lines';
    for (const item of read.items) items.push(item);
  }
  return { ok: true, value: { items, form, bytes } };
}

/**
 * The number of items a read tool's answer lists (`probe --count-with`); null when it cannot be counted
 * (an error, a JSON value without an array, no text).
 */
export function countItems(result: unknown): number | null {
  const read = readAnswerItems(result);
  return read.ok ? read.value.items.length : null;
}
