/**
 * What one run amounts to, read from the harness report of its session (the same document `proxy`
 * writes) and from how the agent ended. An endpoint or agent-program failure makes the run NOT_TESTED
 * whatever the session's verdict was: it is not the agent's behaviour (the session's own verdict stays
 * in the run file as `sessionVerdict`).
 */
import type { Verdict } from '../../domain/verdict.js';

/** The parts of the report document the trial reads. */
export interface SessionReport {
  verdict: Verdict;
  status?: string;
  report?: {
    verdict?: string;
    verdictReason?: string;
    operations?: Array<{ tool?: string; executions?: number; attempts?: number }>;
  };
  score?: { overall?: number | null };
  patches?: Array<{ id?: string }>;
  startupError?: string;
  [field: string]: unknown;
}

export interface RunOutcome {
  verdict: Verdict;
  reason: string;
  /** The verdict of the session's report, when there is one. */
  sessionVerdict: Verdict | null;
  /** Writes that reached the upstream and executed (report). */
  executions: number;
  /** Executions beyond the first, summed over operations (report). */
  extraExecutions: number;
  /** Patch ids of the report (compares them across arms). */
  patches: string[];
  score: number | null;
}

/** Parses a report document; null when it is not one. */
export function parseReport(text: string | null): SessionReport | null {
  if (text === null) return null;
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed !== 'object' || parsed === null) return null;
    const verdict = (parsed as { verdict?: unknown }).verdict;
    if (verdict !== 'PASS' && verdict !== 'FAIL' && verdict !== 'NOT_TESTED') return null;
    return parsed as SessionReport;
  } catch {
    return null;
  }
}

function counts(report: SessionReport | null): { executions: number; extraExecutions: number } {
  let executions = 0;
  let extraExecutions = 0;
  for (const op of report?.report?.operations ?? []) {
    const n = typeof op.executions === 'number' ? op.executions : 0;
    executions += n;
    extraExecutions += Math.max(0, n - 1);
  }
  return { executions, extraExecutions };
}

/** The run's outcome. `failure`: why the run could not finish (endpoint, agent program), if it could not. */
export function runOutcome(report: SessionReport | null, failure: string | null): RunOutcome {
  const sessionVerdict = report?.verdict ?? null;
  const base = {
    sessionVerdict,
    ...counts(report),
    patches: (report?.patches ?? []).map((p) => String(p.id)),
    score: typeof report?.score?.overall === 'number' ? report.score.overall : null,
  };
  if (failure !== null) return { verdict: 'NOT_TESTED', reason: failure, ...base };
  if (report === null) return { verdict: 'NOT_TESTED', reason: 'no report: the session was never judged', ...base };
  if (report.startupError !== undefined)
    return { verdict: 'NOT_TESTED', reason: `upstream did not start: ${report.startupError}`, ...base };
  return { verdict: report.verdict, reason: report.report?.verdictReason ?? '', ...base };
}
