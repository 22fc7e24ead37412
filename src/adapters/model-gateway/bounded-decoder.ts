/**
 * Forward mode: the copy of an endpoint's answer the gateway keeps to read it back, decoded from its
 * content-encoding AS IT ARRIVES and bounded by its DECODED size. A compressed answer of a few hundred KB
 * can inflate to gigabytes: the bound holds on what it inflates to, so the gateway never holds more than
 * the bound, and it knows before passing a chunk on whether that chunk stays within it.
 */
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { Transform } from 'node:stream';

/** The codings of a `Content-Encoding` header in the order they are undone; null when one is unknown. */
export function codingsOf(header: string | string[] | undefined): string[] | null {
  const codings = String(header ?? '')
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity')
    .reverse();
  return codings.every((c) => ['gzip', 'x-gzip', 'deflate', 'br'].includes(c)) ? codings : null;
}

function decoderOf(coding: string): Transform {
  if (coding === 'br') return createBrotliDecompress();
  if (coding === 'deflate') return createInflate();
  return createGunzip();
}

export type DecodedState = 'reading' | 'over' | 'broken';

/**
 * Takes the answer's bytes as they arrive (`write`), keeps them decoded up to `limit` bytes. Past it the
 * state is `over` and nothing more is decoded or kept; a coding that does not decode is `broken` (the
 * answer is still the program's, unchanged: only the copy is lost).
 */
export class BoundedDecoder {
  state: DecodedState = 'reading';
  /** Decoded bytes seen so far (past the limit: at least limit + 1). */
  size = 0;
  private readonly kept: Buffer[] = [];
  private readonly stages: Transform[];
  private readonly waiting = new Set<() => void>();

  constructor(
    codings: readonly string[],
    private readonly limit: number,
  ) {
    this.stages = codings.map(decoderOf);
    for (let i = 0; i + 1 < this.stages.length; i++) this.stages[i]!.pipe(this.stages[i + 1]!);
    for (const stage of this.stages) stage.on('error', () => this.stop('broken'));
    const last = this.stages.at(-1);
    if (last === undefined) return;
    last.on('data', (chunk: Buffer) => this.take(chunk));
    last.on('end', () => this.release());
  }

  /** Resolves once the chunk is decoded (with one coding; with several, once the first has taken it) or the decoder stopped. */
  write(chunk: Buffer): Promise<void> {
    if (this.state !== 'reading') return Promise.resolve();
    const first = this.stages[0];
    if (first === undefined) {
      this.take(chunk);
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      this.waiting.add(resolve);
      // The write's callback comes once zlib took the chunk; what it decoded is emitted on the ticks after.
      first.write(chunk, () =>
        setImmediate(() => {
          this.waiting.delete(resolve);
          resolve();
        }),
      );
    });
  }

  /** The whole decoded answer once the wire's answer ended; null when it is over the limit or did not decode. */
  end(): Promise<Buffer | null> {
    const first = this.stages[0];
    if (this.state !== 'reading' || first === undefined)
      return Promise.resolve(this.state === 'reading' ? Buffer.concat(this.kept) : null);
    return new Promise((resolve) => {
      const done = () => resolve(this.state === 'reading' ? Buffer.concat(this.kept) : null);
      this.waiting.add(done);
      this.stages.at(-1)!.once('end', done);
      first.end();
    });
  }

  /** The program went away or the answer broke off: nothing more is decoded. */
  destroy(): void {
    if (this.state === 'reading') this.stop('broken');
  }

  private take(chunk: Buffer): void {
    if (this.state !== 'reading') return;
    this.size += chunk.length;
    if (this.size > this.limit) return this.stop('over');
    this.kept.push(chunk);
  }

  private stop(state: Exclude<DecodedState, 'reading'>): void {
    if (this.state !== 'reading') return;
    this.state = state;
    this.kept.length = 0;
    for (const stage of this.stages) stage.destroy();
    this.release();
  }

  private release(): void {
    const waiting = [...this.waiting];
    this.waiting.clear();
    for (const resolve of waiting) resolve();
  }
}
