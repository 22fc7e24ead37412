/**
 * The recording's file (`cassette.jsonl`): opened like the journal (`openPrivateLineFile`: `O_NOFOLLOW`,
 * mode 600 even for a file that existed, links and non-regular files refused). Lines are appended with
 * one synchronous `write` each, so a harness that is killed leaves a true prefix (at most its last line
 * torn, which a reader refuses as truncated). Nothing is written before the header: lines that come first
 * wait for it (the upstream's identity and tool list are known only once it has been listed).
 */
import { writeSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { errorText } from '../files/file-safety.js';
import { closePrivateLineFile, openPrivateLineFile } from '../files/private-line-file.js';

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
    const { path: absolute, fd } = await openPrivateLineFile(path, { what: 'recording', uid, notice });
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
    closePrivateLineFile(this.fd);
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
