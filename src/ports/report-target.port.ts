import type { ReportSink } from './report-sink.port.js';

/**
 * Where the proxy's reports go: one file for every session (`--report-file`, a trial run's report file)
 * or a folder with one file per agent session (`--report-dir`). The composition root picks one; the proxy
 * asks it for each session's sink and path and never knows which it is.
 */
export interface ReportTarget {
  /**
   * Where the start-up state goes (`status: "starting"`, `startupError`): the one file; null for a folder
   * (nothing is written there before a session opens).
   */
  readonly startupSink: ReportSink | null;
  /** The report file or folder, for the end line and the start-up line; undefined where the reports are kept in memory (tests). */
  readonly location: string | undefined;
  /** Where one agent session's report goes (`ordinal` counts sessions from 1). */
  sinkFor(sessionId: string, ordinal: number): ReportSink;
  /** The report file of one session, for its end line and the journal; undefined where it is kept in memory (tests). */
  pathFor(sessionId: string, ordinal: number): string | undefined;
}
