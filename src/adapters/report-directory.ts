/**
 * `--report-dir`: one report file per agent session (a network listener serves many agents, and two
 * agents' calls never share a verdict). Each session's sink opens its file on the first publish, with the
 * same atomic writes and refusals as `--report-file`.
 */
import { mkdir, rmdir } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import type { ReportSink } from '../ports/report-sink.port.js';
import { FileReportSink } from './file-report-sink.js';

export class ReportDirectory {
  /** @param created the first folder `open` created (the top of what it made), undefined if none */
  private constructor(
    readonly path: string,
    private readonly created: string | undefined,
  ) {}

  /** Creates the folder if needed; rejects with a one-line Error when it cannot be used. */
  static async open(path: string): Promise<ReportDirectory> {
    let created: string | undefined;
    try {
      created = await mkdir(path, { recursive: true });
    } catch (error) {
      throw new Error(`report folder ${path} cannot be created: ${error instanceof Error ? error.message : String(error)}`);
    }
    return new ReportDirectory(path, created);
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

  /** The file of one session: `session-0001-<first 8 characters of the id>.json`. */
  fileFor(sessionId: string, ordinal: number): string {
    const safeId = sessionId.replace(/[^A-Za-z0-9_-]/g, '').slice(0, 8) || 'session';
    return join(this.path, `session-${String(ordinal).padStart(4, '0')}-${safeId}.json`);
  }

  /** A sink for one session's report, opened lazily. */
  sinkFor(sessionId: string, ordinal: number): ReportSink {
    const file = this.fileFor(sessionId, ordinal);
    let sink: Promise<FileReportSink> | null = null;
    return {
      publish: async (json) => {
        sink ??= FileReportSink.open(file);
        return (await sink).publish(json);
      },
    };
  }
}
