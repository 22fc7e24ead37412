/**
 * How a recording is written as text (`docs/replay.md`): every message in canonical JSON (keys sorted, no
 * white space), so the same exchange gives the same bytes whatever order the agent wrote its keys in and a
 * recording committed to git changes only where the exchange did. The tool-list hash too (redaction:
 * `src/domain/text/redaction.ts`, shared with the journal).
 * Free of the MCP SDK and zod (the recording tap loads before a stdio upstream is spawned).
 */
import { createHash } from 'node:crypto';
import { canonicalJson } from '../../domain/json.js';
import { CASSETTE_FORMAT, CASSETTE_VERSION, type CassetteHeader, type CassetteLine } from '../../ports/cassette.port.js';

/** Redaction moved to the domain (shared with the journal); still importable from here. */
export { redact } from '../../domain/text/redaction.js';

/** `sha256:<hex>` of the tool list's canonical JSON: two tool lists hash alike exactly when they are equal as JSON. */
export function toolsHash(tools: readonly unknown[]): string {
  return `sha256:${createHash('sha256').update(canonicalJson(tools), 'utf8').digest('hex')}`;
}

/** The header line (without the line feed). Its keys in this fixed order. */
export function headerText(header: Omit<CassetteHeader, 'cassette' | 'v'>): string {
  const { upstream } = header;
  return JSON.stringify({
    cassette: CASSETTE_FORMAT,
    v: CASSETTE_VERSION,
    harnessVersion: header.harnessVersion,
    recorded: header.recorded,
    upstream: {
      serverName: upstream.serverName,
      serverVersion: upstream.serverVersion,
      tools: upstream.tools,
      toolsHash: upstream.toolsHash,
    },
    redacted: [...header.redacted],
    // Only when the run had one, so a recording without a model fault keeps its bytes.
    ...(header.modelFault !== undefined ? { modelFault: { fault: header.modelFault.fault, on: header.modelFault.on } } : {}),
  });
}

/** One line (without the line feed): `side`, `dir` first, then the message in canonical JSON. */
export function lineText(line: CassetteLine): string {
  if (line.side === 'recording') return `{"side":"recording","stopped":${JSON.stringify(line.stopped)}}`;
  const head = `{"side":"${line.side}","dir":"${line.dir}"`;
  if (line.side === 'model') {
    const exchange = `${head},"exchange":${line.exchange}`;
    if ('notKept' in line) return `${exchange},"notKept":${canonicalJson(line.notKept)}}`;
    return 'request' in line
      ? `${exchange},"request":${canonicalJson(line.request)}}`
      : `${exchange},"answer":${canonicalJson(line.answer)}}`;
  }
  if ('noAnswer' in line) return `${head},"id":${line.id},"noAnswer":${canonicalJson(line.noAnswer)}}`;
  const notKept = line.notKept === undefined ? '' : `,"notKept":${canonicalJson(line.notKept)}`;
  return `${head},"message":${canonicalJson(line.message)}${notKept}}`;
}

/** The matching key of a `tools/call`: the tool name and its arguments in canonical JSON (absent = `{}`). */
export function callKey(name: string, args: unknown): string {
  return `${JSON.stringify(name)} ${canonicalJson(args ?? {})}`;
}
