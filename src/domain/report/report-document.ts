/**
 * The report file document (R-9.1). `ReportWriter` keeps the long lists (operations, violations,
 * operation observations, key summary) as encoded bytes in slot arenas, updated only for the operations
 * that changed since the last document. A document is then a few short strings around those byte
 * ranges, so publishing the report after every call costs about a copy of its bytes, not a re-walk and
 * re-encoding of the whole session. The lists of every listed tool (`toolClassification`, the listed
 * unclassified tools of `coverage`) are encoded once per tool list (`tool-list-bytes.ts`).
 */
import type { ToolClassification } from '../judging/classification.js';
import type { EffectsReport } from '../effects/effects-report.js';
import type { Finding } from './findings.js';
import type { Patch } from './patches.js';
import { REPORT_SCHEMA_VERSION } from './schema-versions.js';
import type { Score } from './score.js';
import type { Verdict } from './verdict.js';
import type { OperationView } from '../judging/operation-state.js';
import {
  CERTIFICATION,
  coverageCounts,
  evaluate,
  keyEntries,
  operationEntry,
  operationObservationEntry,
  reportHead,
  violationsOf,
  type Evaluation,
  type Report,
  type ReportKind,
} from './report.js';
import type { ChangeSet } from './change-set.js';
import type { EvaluationSession } from '../judging/session.js';
import { SlotArena } from './slot-arena.js';
import { ToolListBytes } from './tool-list-bytes.js';

/** `starting` before the first report, `running` while the session lasts, `finished` at the end. */
export type ReportStatus = 'starting' | 'running' | 'finished';

/**
 * The report file of a session (`status` running or finished), as the JSON the writer below builds by
 * concatenation. The adapters' schema (`src/adapters/schemas/report.schema.ts`) is checked against this
 * type at compile time, and tests parse every written document with it.
 */
export interface SessionReportFile {
  schemaVersion: typeof REPORT_SCHEMA_VERSION;
  verdict: Verdict;
  status: 'running' | 'finished';
  certification: typeof CERTIFICATION;
  harnessVersion: string;
  /**
   * The upstream was a recording (`--upstream-replay`, docs/replay.md): the session repeats a recorded
   * sample, it is not a new one, and nothing pools it with live sessions. Absent in live sessions.
   */
  replayed?: true;
  /**
   * The agent session behind the report under `--listen` (one proxy, many sessions): its MCP session id
   * and its number in the proxy's order (the `--report-dir` file's). Two sessions' reports never have the
   * same id, so `stats` tells distinct sessions from copies of one file. Absent over stdio (one session).
   */
  session?: ReportSession;
  report: Report;
  score: Score;
  patches: Patch[];
  /** R-14.4: what prompt patches cannot answer (runtime re-sends); absent when none. */
  findings?: Finding[];
  /**
   * R-15: what the backend holds after the run, by the effects view (`--effects-tool`), beside the
   * verdict and never changing it; in the final report (status finished) of a run with a view only.
   */
  effects?: EffectsReport;
  toolClassification: ToolClassification[];
}

/** A `--listen` session's identity in its report (see {@link SessionReportFile.session}). */
export interface ReportSession {
  id: string;
  ordinal: number;
}

/** The report file before any session: `starting`, or `failed` with the start-up error (R-9.1). */
export interface EarlyReportFile {
  schemaVersion: typeof REPORT_SCHEMA_VERSION;
  verdict: 'NOT_TESTED';
  status: 'starting' | 'failed';
  certification: typeof CERTIFICATION;
  harnessVersion: string;
  startupError?: string;
}

/** A document as parts to be written one after the other (strings and already encoded bytes). */
export type DocumentParts = Array<string | Uint8Array>;

export interface DocumentMeta {
  kind: ReportKind;
  harnessVersion: string;
  status: ReportStatus;
  toolClassification: readonly ToolClassification[];
  /** The upstream was a recording (`--upstream-replay`): the document says `"replayed":true`. */
  replayed?: boolean;
  /** R-15: the effects of the run, once judged (the final report); absent: none. */
  effects?: EffectsReport;
  /** The `--listen` session behind the document (`"session":{…}`); absent over stdio. */
  session?: ReportSession;
}

/** The document written before anything is known (R-9.1: NOT_TESTED, status "starting"). */
export function startingDocument(harnessVersion: string): string {
  const file: EarlyReportFile = {
    schemaVersion: REPORT_SCHEMA_VERSION,
    verdict: 'NOT_TESTED',
    status: 'starting',
    certification: CERTIFICATION,
    harnessVersion,
  };
  return JSON.stringify(file);
}

/** The document written when start-up failed (R-9.1: NOT_TESTED and startupError). */
export function startupErrorDocument(harnessVersion: string, startupError: string): string {
  const file: EarlyReportFile = {
    schemaVersion: REPORT_SCHEMA_VERSION,
    verdict: 'NOT_TESTED',
    status: 'failed',
    certification: CERTIFICATION,
    harnessVersion,
    startupError,
  };
  return JSON.stringify(file);
}

/** Builds the report documents of one session incrementally. */
export class ReportWriter {
  private readonly operations = new SlotArena<OperationView>();
  private readonly violations = new SlotArena<OperationView>();
  private readonly observations = new SlotArena<OperationView>();
  private readonly keys = new SlotArena<OperationView>();

  private primed = false;
  /** The parts listing every tool, encoded once and kept while the same list is passed (it is fixed for a session). */
  private toolLists: ToolListBytes | null = null;

  /** The writer's own record of changed operations; null for a one-shot writer (every document from scratch). */
  private readonly changes: ChangeSet | null;

  /**
   * `incremental` (default): the writer records the session's changes from now on and each document
   * refreshes only the operations changed since the previous one. A one-shot writer records nothing.
   */
  constructor(
    private readonly session: EvaluationSession,
    { incremental = true }: { incremental?: boolean } = {},
  ) {
    this.changes = incremental ? session.recordChanges() : null;
  }

  /** The complete document as parts (valid JSON once concatenated). */
  document(meta: DocumentMeta, evaluation: Evaluation = evaluate(this.session)): DocumentParts {
    const changed = this.changes?.take();
    for (const op of this.primed && changed !== undefined ? changed : this.session.operations.values()) this.refresh(op);
    this.primed = true;
    const head = reportHead(this.session, meta.kind, evaluation.verdict);
    const toolObservations = this.session.toolObservations.list().map((e) => JSON.stringify(e));
    const timing = this.session.timing.json;
    const tools = this.toolListsOf(meta.toolClassification);
    const { calls, scenarioTriggered, inFlight } = coverageCounts(this.session);
    const attribution = this.session.attributionJson;
    return [
      `{"schemaVersion":${REPORT_SCHEMA_VERSION},"verdict":${JSON.stringify(evaluation.verdict.verdict)},"status":${JSON.stringify(meta.status)}` +
        `,"certification":"${CERTIFICATION}","harnessVersion":${JSON.stringify(meta.harnessVersion)}` +
        `${meta.replayed === true ? ',"replayed":true' : ''}` +
        `${meta.session === undefined ? '' : `,"session":${JSON.stringify({ id: meta.session.id, ordinal: meta.session.ordinal })}`}` +
        `,"report":${JSON.stringify(head).slice(0, -1)}${timing === '' ? '' : `,"timing":[${timing}]`},"operations":[`,
      this.operations.body(),
      '],"violations":[',
      this.violations.body(),
      '],"observations":[',
      this.observations.body(),
      `${this.observations.size > 0 && toolObservations.length > 0 ? ',' : ''}${toolObservations.join(',')}]` +
        `,"coverage":{"calls":${JSON.stringify(calls)},"unclassifiedTools":[`,
      ...tools.unclassifiedBody(this.session.unclassifiedCalled()),
      `],"scenarioTriggered":${JSON.stringify(scenarioTriggered)},"inFlight":${JSON.stringify(inFlight)}},"keySummary":[`,
      this.keys.body(),
      `],"honesty":"NOT_MEASURED"`,
      // R-14: the attribution entries, encoded once each when their repeat arrived.
      attribution === '' ? '' : ',"attribution":[',
      attribution,
      attribution === '' ? '' : ']',
      `},"score":${JSON.stringify(evaluation.score)},"patches":${JSON.stringify(evaluation.patches)}` +
        `${evaluation.findings.length > 0 ? `,"findings":${JSON.stringify(evaluation.findings)}` : ''}` +
        `${meta.effects !== undefined ? `,"effects":${JSON.stringify(meta.effects)}` : ''}` +
        ',"toolClassification":',
      tools.classification,
      '}',
    ];
  }

  private toolListsOf(tools: readonly ToolClassification[]): ToolListBytes {
    if (this.toolLists?.tools !== tools) this.toolLists = new ToolListBytes(tools);
    return this.toolLists;
  }

  private refresh(op: OperationView): void {
    this.operations.set(op, op.ordinal, JSON.stringify(operationEntry(op)));
    const violations = violationsOf([op]);
    if (violations.length > 0) this.violations.set(op, op.ordinal, violations.map((v) => JSON.stringify(v)).join(','));
    else this.violations.delete(op);
    const observation = operationObservationEntry(op);
    if (observation !== null) this.observations.set(op, op.ordinal, JSON.stringify(observation));
    else this.observations.delete(op);
    if (op.keys.size > 0)
      this.keys.set(
        op,
        op.ordinal,
        keyEntries(op)
          .map((e) => JSON.stringify(e))
          .join(','),
      );
  }
}

/** Joins document parts into one string (for sinks and tests that want text). */
export function documentText(parts: DocumentParts): string {
  const decoder = new TextDecoder();
  return parts.map((p) => (typeof p === 'string' ? p : decoder.decode(p))).join('');
}

/** The whole document of a session as a string, built from scratch (demo, tests). */
export function serializeDocument(
  session: EvaluationSession,
  meta: DocumentMeta,
  evaluation: Evaluation = evaluate(session),
): string {
  return documentText(new ReportWriter(session, { incremental: false }).document(meta, evaluation));
}
