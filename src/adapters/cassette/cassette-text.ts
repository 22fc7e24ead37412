/**
 * How a recording is written as text (`docs/replay.md`): every message in canonical JSON (keys sorted, no
 * white space), so the same exchange gives the same bytes whatever order the agent wrote its keys in and a
 * recording committed to git changes only where the exchange did. Redaction and the tool-list hash too.
 * Free of the MCP SDK and zod (the recording tap loads before a stdio upstream is spawned).
 */
import { createHash } from 'node:crypto';
import { canonicalJson, isPlainObject, ownKeys, ownValue } from '../../domain/json.js';
import {
  CASSETTE_FORMAT,
  CASSETTE_VERSION,
  REDACTED_VALUE,
  type CassetteHeader,
  type CassetteLine,
} from '../../ports/cassette.port.js';

/** `sha256:<hex>` of the tool list's canonical JSON: two tool lists hash alike exactly when they are equal as JSON. */
export function toolsHash(tools: readonly unknown[]): string {
  return `sha256:${createHash('sha256').update(canonicalJson(tools), 'utf8').digest('hex')}`;
}

/**
 * A copy of `value` with the value of every own key named in `fields` replaced by `[REDACTED]`, at any depth.
 * Iterative (no stack for deep values); an own `__proto__` key is copied as an own key, never as a prototype.
 */
export function redact(value: unknown, fields: ReadonlySet<string>): unknown {
  if (fields.size === 0 || (typeof value !== 'object' && !Array.isArray(value)) || value === null) return value;
  const root: { value: unknown } = { value: undefined };
  const work: Array<{ source: unknown; put: (copy: unknown) => void }> = [{ source: value, put: (c) => (root.value = c) }];
  while (work.length > 0) {
    const { source, put } = work.pop()!;
    if (Array.isArray(source)) {
      const copy: unknown[] = new Array<unknown>(source.length);
      put(copy);
      source.forEach((item, index) => work.push({ source: item, put: (c) => (copy[index] = c) }));
    } else if (isPlainObject(source)) {
      const copy: Record<string, unknown> = {};
      put(copy);
      for (const key of ownKeys(source)) {
        const define = (c: unknown) =>
          Object.defineProperty(copy, key, { value: c, enumerable: true, writable: true, configurable: true });
        if (fields.has(key)) define(REDACTED_VALUE);
        else work.push({ source: ownValue(source, key), put: define });
      }
    } else put(source);
  }
  return root.value;
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
  });
}

/** One line (without the line feed): `side`, `dir` first, then the message in canonical JSON. */
export function lineText(line: CassetteLine): string {
  const head = `{"side":"${line.side}","dir":"${line.dir}"`;
  if (line.side === 'model')
    return 'request' in line
      ? `${head},"exchange":${line.exchange},"request":${canonicalJson(line.request)}}`
      : `${head},"exchange":${line.exchange},"answer":${canonicalJson(line.answer)}}`;
  if ('noAnswer' in line) return `${head},"id":${line.id},"noAnswer":${canonicalJson(line.noAnswer)}}`;
  return `${head},"message":${canonicalJson(line.message)}}`;
}

/** The matching key of a `tools/call`: the tool name and its arguments in canonical JSON (absent = `{}`). */
export function callKey(name: string, args: unknown): string {
  return `${JSON.stringify(name)} ${canonicalJson(args ?? {})}`;
}
