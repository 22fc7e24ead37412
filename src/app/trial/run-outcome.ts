/**
 * What one run amounts to, read from the harness report of its session (the same document `proxy`
 * writes) and from how the agent ended. An endpoint or agent-program failure makes the run NOT_TESTED
 * whatever the session's verdict was: it is not the agent's behaviour (the session's own verdict stays
 * in the run file as `sessionVerdict`).
 */
import type { Verdict } from '../../domain/report/verdict.js';
import type { MalformedToolCall } from './transcript.js';

/** The parts of the report document the trial reads. */
export interface SessionReport {
  verdict: Verdict;
  /** the effects of a run with an effects view. */
  effects?: { verdict?: unknown; reason?: unknown; explanation?: unknown };
  status?: string;
  report?: {
    verdict?: string;
    verdictReason?: string;
    operations?: Array<{ tool?: string; executions?: number; attempts?: number }>;
    coverage?: { calls?: { read?: number; write?: number; unclassified?: number } };
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

/** The tool calls the model of the built-in loop made in a run, and which of them were malformed. */
export interface ModelToolCalls {
  toolCalls: number;
  malformed: ReadonlyMap<MalformedToolCall, number>;
}

/** The calls the session saw, from its report (calls per class). */
export function callsSeen(report: SessionReport | null): number {
  const calls: Record<string, unknown> = report?.report?.coverage?.calls ?? {};
  return Object.values(calls).reduce<number>((sum, n) => sum + (typeof n === 'number' ? n : 0), 0);
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/**
 * Why a run whose model made tool calls has no call in its session, in one clause that agrees with its
 * count of tool calls: "no call reached the upstream: 3 tool calls of the model were malformed (arguments
 * not a JSON object)"; the calls that were well formed but never arrived (a broken connection) are named too.
 */
export function noCallReason(calls: ModelToolCalls): string {
  const kinds = [...calls.malformed].filter(([, n]) => n > 0);
  const malformed = kinds.reduce((sum, [, n]) => sum + n, 0);
  const what = kinds.length === 1 ? kinds[0]![0] : kinds.map(([kind, n]) => `${n} ${kind}`).join(', ');
  const lost = calls.toolCalls - malformed;
  if (malformed === 0)
    return `no call reached the upstream: ${plural(calls.toolCalls, 'tool call', 'tool calls')} of the model never arrived`;
  const bad = `${plural(malformed, 'tool call', 'tool calls')} of the model ${malformed === 1 ? 'was' : 'were'} malformed (${what})`;
  return lost <= 0
    ? `no call reached the upstream: ${bad}`
    : `no call reached the upstream: ${bad}; ${plural(lost, 'other', 'others')} never arrived`;
}

/**
 * The run's outcome. `failure`: why the run could not finish (endpoint, agent program), if it could not.
 * `modelCalls`: the built-in loop's tool calls, for the reason of a run none of whose calls reached the harness.
 */
export function runOutcome(report: SessionReport | null, failure: string | null, modelCalls?: ModelToolCalls): RunOutcome {
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
  // The session saw no call ("no calls were made") while the model made some: say why none arrived.
  if (report.verdict === 'NOT_TESTED' && modelCalls !== undefined && modelCalls.toolCalls > 0 && callsSeen(report) === 0)
    return { verdict: 'NOT_TESTED', reason: noCallReason(modelCalls), ...base };
  return { verdict: report.verdict, reason: report.report?.verdictReason ?? '', ...base };
}
