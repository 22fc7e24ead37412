/**
 * Reads `trial --config FILE` (YAML, or JSON by its `.json` name) and checks it with the config's format
 * (`schemas/trial-config.schema.ts`, for the keys the composition root gives it: the trial flags' own). Every mistake is one line naming the file, the line and the key:
 * `harness.yaml:12: runs: must be an integer from 1 to 100000`. The lines come from the YAML parser's
 * node positions, for JSON files too (JSON is YAML's flow notation); the values of a JSON file are
 * JSON.parse's own.
 */
import { errorCode, errorFirstLine } from '../../domain/error-message.js';
import { extname } from 'node:path';
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Document } from 'yaml';
import type { z } from 'zod';
import { readRegularFile } from './report-files/regular-file.js';
import { jsonSyntaxProblem } from './report-files/json-problem.js';
import type { ConfigSetting, TrialConfigFormat } from '../schemas/trial-config.schema.js';

/** A config file that passed the schema. */
export interface TrialConfigFile {
  /** The file as named on the command line. */
  file: string;
  /** sha256 is taken by the caller; the text as read. */
  text: string;
  settings: ConfigSetting[];
  /** The line (1-based) of a key, by its dotted path. */
  lineOf(key: string): number | undefined;
}

type Path = ReadonlyArray<string | number>;

/** Reads and checks the config file `path` (resolved by the caller); `file` is its name for messages. */
export async function readTrialConfig(path: string, file: string, format: TrialConfigFormat): Promise<TrialConfigFile> {
  let text: string;
  try {
    text = await readRegularFile(path);
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOENT') throw new Error(`config file not found: ${file}`);
    if (code === undefined && error instanceof Error) throw new Error(`config file ${file} is ${error.message}`);
    throw new Error(`config file cannot be read: ${file}${code === undefined ? '' : ` (${code})`}`);
  }
  return parseTrialConfig(text, file, extname(path).toLowerCase() === '.json', format);
}

/** Parses and checks the text of a config file; throws an Error with one line. */
export function parseTrialConfig(text: string, file: string, json: boolean, format: TrialConfigFormat): TrialConfigFile {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, uniqueKeys: true, prettyErrors: false });
  const lineAt = (offset: number) => lineCounter.linePos(offset).line;
  let data: unknown;
  if (json) {
    try {
      data = JSON.parse(text) as unknown;
    } catch (error) {
      // Where it goes wrong, never what it says: V8's message quotes the file's first characters (a key).
      const problem = jsonSyntaxProblem(error, text);
      const line = /at line (\d+)/.exec(problem)?.[1];
      throw new Error(`${file}${line === undefined ? '' : `:${line}`}: not valid JSON: ${problem}`);
    }
    // A key given twice: JSON.parse keeps the last, silently; the YAML parser names it.
    const duplicate = doc.errors.find((e) => e.code === 'DUPLICATE_KEY');
    if (duplicate !== undefined) throw new Error(duplicateLine(text, file, duplicate.pos[0], lineAt));
  } else {
    const problem = doc.errors[0];
    if (problem?.code === 'DUPLICATE_KEY') throw new Error(duplicateLine(text, file, problem.pos[0], lineAt));
    if (problem !== undefined)
      throw new Error(
        `${file}:${lineAt(problem.pos[0])}: not valid YAML: ${problem.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '')}`,
      );
    try {
      data = doc.toJS({ maxAliasCount: 100 }) as unknown;
    } catch (error) {
      throw new Error(`${file}: not valid YAML: ${errorFirstLine(error)}`);
    }
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data))
    throw new Error(`${file}: the config must be a map of keys such as upstream, agent, model, runs (docs/config.md)`);
  const lineOf = (path: Path) => keyLine(doc, path, lineAt);
  const parsed = format.schema.safeParse(data);
  if (!parsed.success) throw new Error(issueLine(parsed.error, file, lineOf, format.schema));
  return {
    file,
    text,
    settings: format.settings(parsed.data),
    lineOf: (key) => lineOf(key.split('.')),
  };
}

/** A key given twice (JSON.parse would keep the last one silently): its line and name. */
function duplicateLine(text: string, file: string, offset: number, lineAt: (offset: number) => number): string {
  const match = /^(?:"((?:[^"\\]|\\.)*)"|'([^']*)'|([^:\s]+))/.exec(text.slice(offset, offset + 200));
  const key = match?.[1] ?? match?.[2] ?? match?.[3];
  return `${file}:${lineAt(offset)}: ${key === undefined ? 'a key' : key}: given twice (which value would count?)`;
}

/** One line for the first issue: the file, the key's line, the key and what is wrong with it. */
function issueLine(error: z.ZodError, file: string, lineOf: (path: Path) => number | undefined, schema: z.ZodObject): string {
  const issue = deepest(error.issues[0]!);
  const path: Path = issue.path.filter((p): p is string | number => typeof p !== 'symbol');
  let message = issue.message;
  if (issue.code === 'unrecognized_keys') {
    const unknown = issue.keys[0]!;
    const known = knownKeys(schema, issue.path.map(String));
    const near = known.find((k) => similar(k, unknown));
    message = `unknown key${near === undefined ? '' : ` (did you mean ${near}?)`}; the keys are in docs/config.md`;
    const line = lineOf([...path, unknown]);
    const at = `${file}${line === undefined ? '' : `:${line}`}`;
    const parent = keyPath(path);
    // The key is quoted only when it looks like one (a file that is no config — a link to /etc/shadow, a
    // .env with an API key — is never echoed into a CI log): else its line says where.
    if (!looksLikeKey(unknown)) return `${at}: ${parent === '' ? 'the config' : parent}: ${message}`;
    return `${at}: ${keyPath([...path, unknown])}: ${message}`;
  }
  const line = lineOf(path);
  const key = keyPath(path);
  return `${file}${line === undefined ? '' : `:${line}`}: ${key === '' ? 'the config' : key}: ${message}`;
}

/** `agent.env[2]`: a key's path as the config writes it. */
function keyPath(path: Path): string {
  return path
    .map((p) => (typeof p === 'number' ? `[${p}]` : `.${p}`))
    .join('')
    .replace(/^\./, '');
}

/** A short name of a letter or `_`, then letters, digits, `_`, `-` and `.` (at most 40): what a config key looks like. */
function looksLikeKey(key: string): boolean {
  return /^[A-Za-z_][A-Za-z0-9_.-]{0,39}$/.test(key);
}

/**
 * Of a value no branch of a union accepts (a list or a text; a file name or a script), the issue of the
 * branch that got furthest into the value: `scenarios[1]: must be one of F1 …` rather than the union's
 * summary, which stays when every branch failed at the value itself.
 */
function deepest(issue: z.core.$ZodIssue): z.core.$ZodIssue {
  if (issue.code !== 'invalid_union') return issue;
  let best: z.core.$ZodIssue | null = null;
  for (const branch of issue.errors)
    for (const inner of branch) {
      const found = deepest(inner);
      if (found.path.length > 0 && (best === null || found.path.length > best.path.length)) best = found;
    }
  return best === null ? issue : { ...best, path: [...issue.path, ...best.path] };
}

/** The keys the schema knows at `path` (the top level, or a group). */
function knownKeys(schema: z.ZodObject, path: readonly string[]): string[] {
  let shape: Record<string, z.ZodType> = schema.shape;
  for (const part of path) {
    let inner: unknown = shape[part];
    // Unwrap optional/nullable down to the object.
    while (inner !== undefined && typeof inner === 'object' && inner !== null && !('shape' in inner))
      inner = (inner as { unwrap?: () => unknown }).unwrap?.();
    if (inner === undefined || inner === null) return [];
    shape = (inner as { shape: Record<string, z.ZodType> }).shape;
  }
  return Object.keys(shape);
}

/** The same key in other spelling (`followUps`, `follow-ups`), or one or two letters off (`comand`). */
function similar(known: string, typed: string): boolean {
  const plain = (s: string) => s.toLowerCase().replace(/[-_]/g, '');
  if (plain(known) === plain(typed)) return true;
  return editDistance(known, typed) <= (known.length > 4 ? 2 : 1);
}

function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++)
      next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length]!;
}

/** The line of the deepest node of `path` found: a map key's own line, a list item's line. */
function keyLine(doc: Document, path: Path, lineAt: (offset: number) => number): number | undefined {
  let node: unknown = doc.contents;
  let line: number | undefined = undefined;
  for (const part of path) {
    if (isMap(node)) {
      const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === String(part));
      if (pair === undefined) break;
      const start = isScalar(pair.key) ? pair.key.range?.[0] : undefined;
      if (start !== undefined) line = lineAt(start);
      node = pair.value;
    } else if (isSeq(node) && typeof part === 'number') {
      const item: unknown = node.items[part];
      const start = isScalar(item) || isMap(item) || isSeq(item) ? item.range?.[0] : undefined;
      if (start !== undefined) line = lineAt(start);
      node = item;
    } else break;
  }
  return line;
}
