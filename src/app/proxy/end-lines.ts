/**
 * What the proxy says at the end: one line on stderr with the verdict, the score and
 * the report file — at every end, a signal (SIGTERM is how the Vercel AI SDK's client closes a stdio
 * server) as much as the agent's disconnect. With `--listen` each session says it when it ends, and the
 * proxy's exit adds one summary line.
 */
import type { EffectsReport } from '../../domain/effects/effects-report.js';
import type { Verdict } from '../../domain/report/verdict.js';

/** A session that ended, as the end line shows it. */
export interface EndedSession {
  sessionId: string;
  /** Counts sessions from 1 (the `--report-dir` file's number). */
  ordinal: number;
  verdict: Verdict;
  score: number | null;
  report: string | undefined;
  /** the effects of the session, with an effects view. */
  effects?: EffectsReport;
}

const scoreText = (score: number | null): string => (score === null ? 'no score' : `score ${score}/100`);
const reportText = (report: string | undefined): string => (report === undefined ? 'no report file' : `report ${report}`);

/** `finished: FAIL, score 35/100; report out/report.json` (`listen`: prefixed with the session). */
export function endLine(ended: EndedSession, listen: boolean): string {
  const who = listen ? `session ${ended.ordinal} (${ended.sessionId.slice(0, 8)}) ` : '';
  const effects = ended.effects === undefined ? '' : `; effects ${ended.effects.verdict}`;
  return `${who}finished: ${ended.verdict}, ${scoreText(ended.score)}${effects}; ${reportText(ended.report)}`;
}

/**
 * The last line of the proxy: stdio — its one session's end line (NOT_TESTED when no agent session
 * opened); `--listen` — the count of sessions per verdict and the report folder.
 */
export function summaryLine(sessions: readonly EndedSession[], listen: boolean, location: string | undefined): string {
  if (!listen) {
    const only = sessions[0];
    if (only === undefined) return `finished: NOT_TESTED, no agent session (no calls judged); ${reportText(location)}`;
    return endLine(only, false);
  }
  const counts = (['PASS', 'FAIL', 'NOT_TESTED'] as const).map((v) => `${sessions.filter((s) => s.verdict === v).length} ${v}`);
  const where = location === undefined ? 'no report folder' : `reports in ${location}`;
  return `finished: ${sessions.length} session${sessions.length === 1 ? '' : 's'} (${counts.join(', ')}); ${where}`;
}
