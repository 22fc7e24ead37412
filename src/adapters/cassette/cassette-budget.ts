/**
 * The size budget of a recording (`docs/replay.md`, Limits), so that every recording the harness writes
 * stays readable by its own readers (`replay`, `--upstream-replay`, `--model-replay`: 64 MiB input
 * limit). Up to {@link CASSETTE_LIMITS.keptBytes} every line is written whole. Past it a line's body (a
 * call's arguments, an answer, a model request or answer) is not kept: the line keeps its `id`, `method`,
 * a call's tool name and a `notKept` marker with the size and sha256 of the whole line and its first
 * characters (`src/domain/text/kept-text.ts`); a replay that reaches it is a miss. Past
 * {@link CASSETTE_LIMITS.stopBytes} one last line says the recording stopped, and nothing more is
 * written. The opening lines (`initialize`, `tools/list`: what a replay needs to start) are always kept.
 */
import { createHash } from 'node:crypto';
import { isPlainObject, ownValue } from '../../domain/json.js';
import { textHead } from '../../domain/text/kept-text.js';
import type { CassetteLine, NotKept, RecordedMessage } from '../../ports/cassette.port.js';
import { lineText } from './cassette-text.js';

const MiB = 1024 * 1024;

/** Bytes of whole lines, and of the whole file, a recording may reach. Both under the readers' 64 MiB. */
export const CASSETTE_LIMITS = { keptBytes: 48 * MiB, stopBytes: 60 * MiB } as const;

/** How much of a line not kept is kept as its preview. */
const NOT_KEPT_PREVIEW_CHARS = 256;

export class CassetteBudget {
  private written = 0;
  private stopped = false;

  constructor(private readonly limits: { keptBytes: number; stopBytes: number } = CASSETTE_LIMITS) {}

  /** The texts to write for this line (none once the recording stopped). `always`: an opening line, kept whole. */
  texts(line: CassetteLine, always = false): string[] {
    if (this.stopped) return [];
    const whole = lineText(line);
    const bytes = Buffer.byteLength(whole, 'utf8') + 1;
    if (always || this.written + bytes <= this.limits.keptBytes) return this.take(whole, bytes);
    const cut = lineText(notKeptLine(line, whole, bytes));
    const cutBytes = Buffer.byteLength(cut, 'utf8') + 1;
    if (this.written + cutBytes <= this.limits.stopBytes) return this.take(cut, cutBytes);
    this.stopped = true;
    const mib = (n: number) => `${(n / MiB).toFixed(0)} MiB`;
    return [
      lineText({
        side: 'recording',
        stopped: `the recording reached its size limit of ${mib(this.limits.stopBytes)} (bodies past ${mib(this.limits.keptBytes)} were not kept): nothing after this line was recorded`,
      }),
    ];
  }

  private take(text: string, bytes: number): string[] {
    this.written += bytes;
    return [text];
  }
}

/** The line without its body, marked as not kept. */
function notKeptLine(line: CassetteLine, whole: string, bytes: number): CassetteLine {
  const notKept: NotKept = {
    bytes,
    sha256: `sha256:${createHash('sha256').update(whole, 'utf8').digest('hex')}`,
    preview: textHead(whole, NOT_KEPT_PREVIEW_CHARS),
  };
  if (line.side === 'model') return { side: 'model', dir: line.dir, exchange: line.exchange, notKept };
  if (line.side !== 'upstream' || !('message' in line)) return line;
  const { message } = line;
  const kept: RecordedMessage = { jsonrpc: '2.0' };
  for (const key of ['id', 'method'] as const) if (ownValue(message, key) !== undefined) kept[key] = ownValue(message, key);
  const params = ownValue(message, 'params');
  const name = isPlainObject(params) ? ownValue(params, 'name') : undefined;
  if (message['method'] === 'tools/call' && typeof name === 'string' && name.length <= NOT_KEPT_PREVIEW_CHARS)
    kept['params'] = { name };
  return { side: 'upstream', dir: line.dir, message: kept, notKept };
}
