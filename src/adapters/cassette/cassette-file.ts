/**
 * The recording's file (`cassette.jsonl`): created or emptied with `O_NOFOLLOW`, mode 600 (it holds the
 * calls' arguments and results), a link, a non-regular file or a path through another user's planted link
 * refused, like the journal. Lines are appended with one synchronous `write` each, so a harness that is
 * killed leaves a true prefix (at most its last line torn, which a reader refuses as truncated). Nothing
 * is written before the header: lines that come first wait for it (the upstream's identity and tool list
 * are known only once it has been listed).
 */
import { closeSync, constants, fstatSync, openSync, writeSync } from 'node:fs';
import { lstat, stat } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import { errorCode, errorText, isStickyWorldWritable, refusePlantedLinks } from '../file-safety.js';

const NO_FOLLOW = constants.O_NOFOLLOW ?? 0;
const NON_BLOCK = constants.O_NONBLOCK ?? 0;
const OPEN_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_APPEND | NO_FOLLOW | NON_BLOCK;

/** Where `proxy --journal FILE` puts its recording: `x.jsonl` → `x.cassette.jsonl`, any other name + `.cassette.jsonl`. */
export function cassettePathBesideJournal(journal: string): string {
  const name = basename(journal);
  const stem = name.endsWith('.jsonl') ? name.slice(0, -'.jsonl'.length) : name;
  return resolve(dirname(journal), `${stem}.cassette.jsonl`);
}

export class CassetteFile {
  private pending: string[] | null = [];
  private broken = false;

  private constructor(
    readonly path: string,
    private fd: number | null,
    private readonly notice: (line: string) => void,
  ) {}

  /** Opens (creates or empties) the file; rejects with a one-line Error. Writes nothing yet. */
  static async open(path: string, notice: (line: string) => void, uid = process.getuid?.()): Promise<CassetteFile> {
    const absolute = resolve(path);
    await refusePlantedLinks('recording file', absolute, uid);
    const folder = await stat(dirname(absolute)).catch(() => null);
    if (folder === null || !folder.isDirectory()) throw new Error(`recording folder does not exist: ${dirname(absolute)}`);
    const info = await lstat(absolute).catch((error: unknown) => {
      if (errorCode(error) === 'ENOENT') return null;
      throw new Error(`recording file cannot be used: ${absolute} (${errorText(error)})`);
    });
    if (info !== null && info.isSymbolicLink())
      throw new Error(`recording file is a symbolic link, refused (it may have been planted): ${absolute}`);
    if (info !== null && !info.isFile()) throw new Error(`recording file must be a regular file: ${absolute}`);
    if (info !== null && isStickyWorldWritable(folder) && uid !== undefined && info.uid !== uid)
      throw new Error(`recording file belongs to another user (uid ${info.uid}) in a world-writable folder: ${absolute}`);
    let fd: number;
    try {
      fd = openSync(absolute, OPEN_FLAGS, 0o600);
    } catch (error) {
      const why = errorCode(error) === 'ELOOP' ? 'is a symbolic link, refused' : `cannot be opened (${errorText(error)})`;
      throw new Error(`recording file ${why}: ${absolute}`);
    }
    if (!fstatSync(fd).isFile()) {
      closeSync(fd);
      throw new Error(`recording file must be a regular file: ${absolute}`);
    }
    return new CassetteFile(absolute, fd, notice);
  }

  /** Whether the header was written. */
  get started(): boolean {
    return this.pending === null;
  }

  /** Writes the header, then every line that waited for it. Only the first call counts. */
  header(text: string): void {
    if (this.pending === null) return;
    const waiting = this.pending;
    this.pending = null;
    this.write(text);
    for (const line of waiting) this.write(line);
  }

  /** Appends one line (held until the header is written). */
  line(text: string): void {
    if (this.pending !== null) this.pending.push(text);
    else this.write(text);
  }

  close(): void {
    if (this.fd === null) return;
    try {
      closeSync(this.fd);
    } catch {
      // nothing left to do
    }
    this.fd = null;
  }

  private write(text: string): void {
    if (this.broken || this.fd === null) return;
    try {
      const bytes = Buffer.from(`${text}\n`);
      for (let done = 0; done < bytes.length;) done += writeSync(this.fd, bytes, done);
    } catch (error) {
      this.broken = true;
      this.notice(`the recording could not be written (${errorText(error)}); it stops here: ${this.path}`);
    }
  }
}
