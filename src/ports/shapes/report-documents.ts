/**
 * The documents `check` reads back (the proxy's report file, a `--report-dir` session file,
 * `benchmark-report.json`, a `probe --json` file) as they cross the file boundary: already validated by the reading adapter,
 * so the use case can rely on every field named here. Unknown extra fields are kept (a newer harness
 * may add some) and ignored.
 */
import type { RepeatAttribution } from '../../domain/judging/attribution.js';
import type { EffectsReport } from '../../domain/effects/effects-report.js';
import type { EarlyReportFile, SessionReportFile } from '../../domain/report/report-document.js';
import type { OperationEntry, Report } from '../../domain/report/report.js';
import type { ProbeResultsFile } from './probe-results.js';
import type { Score } from '../../domain/report/score.js';
import type { HonestyClass } from '../../domain/trial/index.js';
import type { Verdict } from '../../domain/report/verdict.js';

/** One `report.operations[]` entry. */
export type OperationDocument = OperationEntry;

/** The `report` object of a report file that has a session behind it. */
export type ReportBody = Report;

/** `schemaVersion` as read: absent in files written by harness 0.7.0 and earlier. */
type ReadVersion<T extends { schemaVersion: number }> = Omit<T, 'schemaVersion'> & { schemaVersion?: T['schemaVersion'] };

/** A report file of a session (`status` running or finished): the writer's type, as read back. */
export type SessionReportDocument = { shape: 'session' } & ReadVersion<SessionReportFile>;

/** A report file written before any session existed: `starting`, or `failed` with its `startupError`. */
export type EarlyReportDocument = { shape: 'early' } & ReadVersion<EarlyReportFile>;

/** One (agent, scenario) pair of `benchmark-report.json`. */
export interface BenchmarkPairDocument {
  verdict: Verdict;
  expectedVerdict: Verdict;
  verdictReason: string;
  score: Score;
  runs: number;
  unexpectedRuns: number;
  executions: { harness: number; backend: number };
}

/** `benchmark-report.json`, one section per reference agent. */
export interface BenchmarkReportDocument {
  shape: 'benchmark';
  harnessVersion: string;
  selfTest: { passed: boolean; unexpectedCount: number };
  agents: Array<{ id: string; name: string; scenarios: Array<{ scenario: string } & BenchmarkPairDocument> }>;
}

/** A run file's honesty claim as `check` shows it (its strings untrusted: escape them when drawn). */
export interface HonestyClaimDocument {
  /** The answer that ended the question's turn; null when the turn ended without one. */
  answer: string | null;
  /** YES, NO, UNKNOWN or UNPARSED. */
  claim: string;
  /** Why the claim is UNPARSED; null for a claim that was read (and in files written before it was recorded). */
  unparsed: string | null;
}

/** One run of a `trial` folder (`runs/<run>/run.json`): what `check` needs of it. */
export interface TrialRunDocument {
  runId: string;
  scenario: string;
  task: string;
  verdict: Verdict;
  verdictReason: string;
  /** The session report inside the run file, validated like a report file; null when the run had none. */
  report: SessionReportDocument | EarlyReportDocument | null;
  /** How long the run took (`durationMs`); null in a file that does not say. */
  durationMs: number | null;
  /** The honesty class the trial measured, NOT_MEASURED, or null in a file that does not say. */
  honesty: HonestyClass | 'NOT_MEASURED' | null;
  /**
   * The claim read from the answer to the honesty question, and why it could not be read (`unparsed`: the
   * turn ended without text, …); null when the file records no claim (NOT_MEASURED, an older file).
   */
  honestyClaim: HonestyClaimDocument | null;
  /** The run ended with its write never executed and the agent done (a lost transaction); null when not recorded. */
  lostTransaction: boolean | null;
  /**
   * The run's `transcript` as written (model turns, MCP calls, results; each with its time); entries are
   * not checked by the schema, so whoever reads them treats every field as untrusted. Empty when absent.
   */
  transcript: readonly unknown[];
  /** Who sent each repeated write, from the run file's `attribution`; empty when absent. */
  attribution: readonly RepeatAttribution[];
  /** The run file's `replayed: true` (docs/replay.md): the run repeats a recorded sample; false when absent. */
  replayed: boolean;
  /** the run file's `effects` (what the backend held after the run); null without an effects view. */
  effects: EffectsReport | null;
}

/** What one file (or one entry of a folder) turned out to be. */
export type LoadedItem =
  | { type: 'report'; path: string; document: SessionReportDocument | EarlyReportDocument }
  | { type: 'benchmark'; path: string; document: BenchmarkReportDocument }
  | { type: 'trial-run'; path: string; run: TrialRunDocument }
  /** A `probe --json` file: one case per tool. */
  | { type: 'probe-results'; path: string; document: ProbeResultsFile }
  /** Unreadable, empty, half-written or foreign: `problem` says exactly what is wrong. */
  | { type: 'unreadable'; path: string; problem: string };

/**
 * A group of items as the user named it: a report file alone, or a folder (a `--report-dir` folder,
 * later a trial folder). `check` makes one test suite of each group.
 */
export interface LoadedGroup {
  /** The path the user gave. */
  path: string;
  /** Which reader took it (`report file`, `report folder`, …). */
  reader: string;
  items: LoadedItem[];
}
