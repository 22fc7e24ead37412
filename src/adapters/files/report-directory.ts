/**
 * `--report-dir`: one report file per agent session (a network listener serves many agents, and two
 * agents' calls never share a verdict). Each session's sink opens its file on the first publish, with the
 * same atomic writes and refusals as `--report-file` (planted links and other users' files are refused,
 * a full disk keeps the last complete report, an in-place write is told once per folder).
 */
import { errorCode, errorMessage } from '../../domain/error-message.js';
import { lstat, mkdir, rmdir, stat } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import type { ReportSink } from '../../ports/report-sink.port.js';
import type { ReportTarget } from '../../ports/report-target.port.js';
import { FileReportSink } from './file-report-sink.js';
import { isStickyWorldWritable, refusePlantedLinks } from './file-safety.js';

/** Options of {@link ReportDirectory.open}. */
export interface ReportDirectoryOptions {
  /** Told once per folder, the first time a session's report is written in place (see FileReportSink). */
  notice?: (line: string) => void;
  /** The proxy's user id (default `process.getuid()`), a test seam. */
  uid?: number;
}

function message(error: unknown): string {
  return errorMessage(error);
}

export class ReportDirectory implements ReportTarget {
  /** Nothing is written in the folder before a session opens. */
  readonly startupSink = null;
  private told = false;

  /** @param created the first folder `open` created (the top of what it made), undefined if none */
  private constructor(
    readonly path: string,
    private readonly created: string | undefined,
    private readonly uid: number | undefined,
    private readonly notice: (line: string) => void,
  ) {}

  /**
   * Creates the folder if needed; rejects with a one-line Error when it cannot be used, or when someone
   * else may have planted it: a symbolic link owned by another user or in a world-writable sticky folder
   * (`/tmp`), or another user's folder there.
   */
  static async open(path: string, options: ReportDirectoryOptions = {}): Promise<ReportDirectory> {
    const uid = 'uid' in options ? options.uid : process.getuid?.();
    // Before mkdir: creating the folder through another user's link would create it in their chosen place.
    await refusePlantedLinks('report folder', path, uid);
    let created: string | undefined;
    try {
      created = await mkdir(path, { recursive: true });
    } catch (error) {
      // mkdir says EEXIST for a file in the way (mkdir -p succeeds on a folder): name what is there.
      if (errorCode(error) === 'EEXIST') throw new Error(`report folder is not a folder: ${path}`);
      throw new Error(`report folder ${path} cannot be created: ${message(error)}`);
    }
    await refusePlanted(path, uid);
    return new ReportDirectory(path, created, uid, options.notice ?? (() => undefined));
  }

  /**
   * Removes the folders `open` created, if they are still empty (a start-up that failed leaves nothing
   * behind). Never removes a folder that existed before or holds anything; never throws.
   */
  async removeIfUnused(): Promise<void> {
    if (this.created === undefined || relative(this.created, this.path).startsWith('..')) return;
    for (let dir = this.path; ; dir = dirname(dir)) {
      try {
        await rmdir(dir);
      } catch {
        return;
      }
      if (dir === this.created) return;
    }
  }

  get location(): string {
    return this.path;
  }

  /** The file of one session: `session-0001-<first 8 characters of the id>.json`. */
  pathFor(sessionId: string, ordinal: number): string {
    const safeId = sessionId.replace(/[^A-Za-z0-9_-]/g, '').slice(0, 8) || 'session';
    return join(this.path, `session-${String(ordinal).padStart(4, '0')}-${safeId}.json`);
  }

  /** A sink for one session's report, opened lazily. */
  sinkFor(sessionId: string, ordinal: number): ReportSink {
    const file = this.pathFor(sessionId, ordinal);
    let sink: Promise<FileReportSink> | null = null;
    return {
      publish: async (json) => {
        sink ??= FileReportSink.open(file, { uid: this.uid, notice: (line) => this.tellOnce(line) });
        return (await sink).publish(json);
      },
    };
  }

  private tellOnce(line: string): void {
    if (this.told) return;
    this.told = true;
    this.notice(line);
  }
}

async function refusePlanted(path: string, uid: number | undefined): Promise<void> {
  const absolute = resolve(path);
  const [entry, parent] = await Promise.all([lstat(absolute), stat(dirname(absolute))]);
  const othersFolder = isStickyWorldWritable(parent);
  const ownedByOther = uid !== undefined && entry.uid !== uid;
  if (entry.isSymbolicLink() && othersFolder) {
    throw new Error(
      `report folder is a symbolic link in a world-writable folder, refused (it may have been planted): ${path}; use a private folder`,
    );
  }
  if (entry.isSymbolicLink() && ownedByOther) {
    throw new Error(`report folder is a symbolic link owned by another user (uid ${entry.uid}), refused: ${path}`);
  }
  const folder = entry.isSymbolicLink() ? await stat(absolute) : entry;
  if (!folder.isDirectory()) throw new Error(`report folder is not a folder: ${path}`);
  if (othersFolder && ownedByOther) {
    throw new Error(
      `report folder belongs to another user (uid ${entry.uid}) in a world-writable folder: ${path}; use a private folder`,
    );
  }
}
