/**
 * Reads a recording back for `--upstream-replay` (`docs/replay.md`), strictly: the file must be a complete
 * recording of this format version whose tool list is the one its header names. Anything else is one
 * line naming the file and the first problem, and nothing is replayed: a torn last line (the recorder was
 * killed), another format or version, a line that is not a recording line, a redacted recording without
 * `allowRedacted`, a recording with no `initialize` or `tools/list` answer.
 */
import { errorMessage } from '../../domain/error-message.js';
import type { CassetteHeader, CassetteLine } from '../../ports/cassette.port.js';
import { CASSETTE_FORMAT, CASSETTE_VERSION } from '../../ports/cassette.port.js';
import { isPlainObject, ownValue } from '../../domain/json.js';
import { readRegularFile } from '../files/report-files/regular-file.js';
import { cassetteBodyLineSchema, cassetteHeaderSchema } from '../schemas/cassette.schema.js';
import { firstIssue } from '../schemas/common.js';
import { toolsHash } from './cassette-text.js';

export interface Cassette {
  path: string;
  header: CassetteHeader;
  lines: CassetteLine[];
}

/** Reads and checks a recording; rejects with a one-line Error starting `recording <path>:`. */
export async function readCassette(path: string, options: { allowRedacted: boolean }): Promise<Cassette> {
  const fail = (why: string): never => {
    throw new Error(`recording ${path}: ${why}`);
  };
  let text: string;
  try {
    text = await readRegularFile(path);
  } catch (error) {
    return fail(errorMessage(error));
  }
  if (text === '') fail('the file is empty (the recorder wrote nothing: the upstream was never listed)');
  const rows = text.split('\n');
  if (rows.at(-1) !== '') fail(`line ${rows.length} is truncated (no line feed: the recorder was stopped while writing it)`);
  rows.pop();
  const parse = (row: string, n: number): unknown => {
    try {
      return JSON.parse(row) as unknown;
    } catch {
      return fail(`line ${n} is not JSON`);
    }
  };
  const first = parse(rows[0]!, 1);
  if (!isPlainObject(first) || ownValue(first, 'cassette') !== CASSETTE_FORMAT)
    fail(`not a recording of this harness (its first line has no "cassette": "${CASSETTE_FORMAT}")`);
  const version = ownValue(first as object, 'v');
  if (version !== CASSETTE_VERSION)
    fail(`recording format version ${JSON.stringify(version)}, this harness reads version ${CASSETTE_VERSION}`);
  const header = cassetteHeaderSchema.safeParse(first);
  if (!header.success) fail(`line 1 (header): ${firstIssue(header.error)}`);
  const head = header.data!;
  if (head.redacted.length > 0 && !options.allowRedacted)
    fail(
      `the recording is redacted (${head.redacted.join(', ')}): its calls cannot be matched exactly; give --allow-redacted on to replay it anyway`,
    );
  const lines: CassetteLine[] = [];
  rows.slice(1).forEach((row, index) => {
    const parsed = cassetteBodyLineSchema.safeParse(parse(row, index + 2));
    if (!parsed.success) fail(`line ${index + 2} is not a recording line (${firstIssue(parsed.error)})`);
    lines.push(parsed.data as CassetteLine);
  });
  const tools = recordedTools(lines);
  if (tools === undefined) fail('it holds no tools/list answer');
  // As a live tools/list would be refused: an entry that is no tool (null, no name) is never served.
  const notTool = tools!.findIndex((tool) => !isPlainObject(tool) || typeof ownValue(tool, 'name') !== 'string');
  if (notTool >= 0) fail(`its tools/list answer's entry ${notTool + 1} is not a tool (an object with a string "name")`);
  const hash = toolsHash(tools!);
  if (hash !== head.upstream.toolsHash || tools!.length !== head.upstream.tools)
    fail(
      `its tool list (${tools!.length} tools, ${hash}) is not the one its header names (${head.upstream.tools} tools, ${head.upstream.toolsHash}): the file was edited or mixes two upstreams`,
    );
  return { path, header: head, lines };
}

/** The tools of the first `tools/list` answer, or undefined. */
export function recordedTools(lines: readonly CassetteLine[]): unknown[] | undefined {
  const listIds = new Set<unknown>();
  for (const line of lines) {
    if (line.side !== 'upstream' || !('message' in line)) continue;
    const { message } = line;
    if (line.dir === 'send' && message['method'] === 'tools/list') listIds.add(message['id']);
    else if (line.dir === 'receive' && listIds.has(message['id']) && isPlainObject(message['result'])) {
      const tools = ownValue(message['result'], 'tools');
      if (Array.isArray(tools)) return tools as unknown[];
    }
  }
  return undefined;
}
