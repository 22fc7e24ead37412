/**
 * The documents `check` reads back (the proxy's report file, a `--report-dir` session file,
 * `benchmark-report.json`) as they cross the file boundary: already validated by the reading adapter,
 * so the use case can rely on every field named here. Unknown extra fields are kept (a newer harness
 * may add some) and ignored.
 */
import type { ToolClassification } from '../domain/classification.js';
import type { ObservationEntry } from '../domain/observations.js';
import type { Patch } from '../domain/patches.js';
import type { Report, Violation } from '../domain/report.js';
import type { Score } from '../domain/score.js';
import type { HonestyClass } from '../domain/trial/index.js';
import type { Verdict } from '../domain/verdict.js';

/** One `report.operations[]` entry. */
export interface OperationDocument {
  /** The operation's number in order of first arrival (the journal's `operation`); absent in reports of older versions. */
  id?: number;
  tool: string;
  arguments: string;
  attempts: number;
  executions: number;
  failedAttempts: number;
  keys: string[];
  outcome: string;
  fault?: string;
  retryAfter?: { requiredMs: number; waitedMs: number | null };
}

/** The `report` object of a report file that has a session behind it. */
export interface ReportBody {
  kind: string;
  verdict: Verdict;
  verdictReason: string;
  baseline: boolean;
  scenario: { id: string | null; mode: string; description: string; triggered: boolean; faultsApplied: number };
  /** The run's configuration; `holdMs`: F1's `--hold` (null or absent: none). */
  configuration?: { holdMs?: number | null };
  /** Per attempt (the session's attempt number): F1's hold and the agent's cancellation; absent when none. */
  timing?: Array<{ attempt: number; tool: string; heldMs?: number; cancelledAfterMs?: number }>;
  operations: OperationDocument[];
  violations: Violation[];
  observations: ObservationEntry[];
  coverage: Report['coverage'];
}

/** A report file of a session (`status` running or finished). */
export interface SessionReportDocument {
  shape: 'session';
  verdict: Verdict;
  status: 'running' | 'finished';
  harnessVersion: string;
  report: ReportBody;
  score: Score;
  patches: Patch[];
  toolClassification: ToolClassification[];
}

/** A report file written before any session existed: `starting`, or `failed` with its `startupError`. */
export interface EarlyReportDocument {
  shape: 'early';
  verdict: Verdict;
  status: 'starting' | 'failed';
  harnessVersion: string;
  startupError?: string;
}

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
  /** The run ended with its write never executed and the agent done (a lost transaction); null when not recorded. */
  lostTransaction: boolean | null;
}

/** What one file (or one entry of a folder) turned out to be. */
export type LoadedItem =
  | { type: 'report'; path: string; document: SessionReportDocument | EarlyReportDocument }
  | { type: 'benchmark'; path: string; document: BenchmarkReportDocument }
  | { type: 'trial-run'; path: string; run: TrialRunDocument }
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
