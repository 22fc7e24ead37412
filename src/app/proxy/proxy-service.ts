/**
 * The `proxy` use case: connect the upstream, classify its tools, print the start-up lines, serve the
 * agents (one evaluation per agent session — never two agents in one verdict), publish each session's
 * report, and shut down in order. Transport-agnostic: it sees only the ports.
 */
import { errorMessage } from '../../domain/error-message.js';
import {
  ToolClassifier,
  formatClassificationLines,
  type ClassificationRules,
  type IdempotentHintPolicy,
  type ToolClassification,
} from '../../domain/judging/classification.js';
import { classificationWarnings } from '../../domain/judging/classification-warnings.js';
import type { ScenarioConfig } from '../../domain/faults/fault-plan.js';
import { KeyFieldMatcher } from '../../domain/judging/key-fields.js';
import { startingDocument, startupErrorDocument } from '../../domain/report/report-document.js';
import type { AgentCloseReason, AgentSide } from '../../ports/agent-side.port.js';
import type { Clock } from '../../ports/clock.port.js';
import type { Timer } from '../../ports/timer.port.js';
import type { Logger } from '../../ports/logger.port.js';
import type { ToolDescriptor } from '../../ports/shapes/mcp-shapes.js';
import type { RandomSource } from '../../ports/random.port.js';
import type { ReportTarget } from '../../ports/report-target.port.js';
import type { UpstreamExit, UpstreamInfo, UpstreamSide } from '../../ports/upstream-side.port.js';
import type { Journal, JournalSession } from '../../ports/journal.port.js';
import type { TraceSpan, Tracer } from '../../ports/tracer.port.js';
import { SessionTrace } from '../tracing/session-trace.js';
import type { CallEventSink } from '../../ports/call-events.port.js';
import { scenarioName } from '../../domain/report/verdict.js';
import { CallLines } from './call-lines.js';
import { endLine, summaryLine, type EndedSession } from './end-lines.js';
import { JudgedSession } from './judged-session.js';
import { AgentRelay, NOTIFICATIONS_PER_SECOND } from './agent-relay.js';
import type { ModelSide } from '../../domain/judging/attribution.js';
import type { EffectsViewSettings } from '../../domain/effects/effects-settings.js';
import { escapeTerminalText } from '../../domain/text/terminal-text.js';
import { EffectsRun, journalSnapshot } from '../effects/effects-run.js';
import { EFFECTS_TIMEOUT_MS } from '../effects/effects-view.js';
import type { RecordsCommand } from '../../ports/records-command.port.js';

export interface ProxyConfig {
  scenario: ScenarioConfig;
  keyFields: readonly string[];
  /** `--idempotent-hint` (R-8.3.1); absent: honour. */
  idempotentHint?: IdempotentHintPolicy;
  /** `--probe-results`: write tools whose idempotentHint a probe run found broken, named in the start-up list. */
  brokenHints?: readonly string[];
  classification: ClassificationRules;
  auditTools: boolean;
  callTimeoutMs: number;
  /** How long answers of calls still in flight may take once the agent has gone (R-8.8: ~2 s). */
  drainMs: number;
  harnessVersion: string;
  /**
   * The upstream is a recording (`--upstream-replay`, docs/replay.md): every session's report, its
   * `get_report` answer and the journal's header say `replayed`, so nothing pools it with live sessions.
   */
  replayed?: boolean;
  serverName: string;
  /** stdio: the proxy ends with its one agent. A network listener keeps serving new agents instead. */
  stopWhenSessionEnds: boolean;
  /** `--log-level info`: one line per call on stderr when the agent gets its answer. */
  logCalls?: boolean;
  /** R-15: the effects view (`--effects-tool`), snapshotted at each session's start and end; absent: none. */
  effects?: EffectsViewSettings | null;
}

export interface ProxyDeps {
  upstream: UpstreamSide;
  agentSide: AgentSide;
  /** Where the reports go (`--report-file`, `--report-dir`, a trial run's report file); null = nowhere. */
  reportTarget: ReportTarget | null;
  clock: Clock;
  /** Waits for `--latency` and `--hold` (default: the real timer). */
  timer?: Timer;
  random: RandomSource;
  logger: Logger;
  /** One line of human output (stderr). */
  notice(line: string): void;
  /** The journal of every session's calls (`--journal`); absent: none. */
  journal?: Journal | null;
  /** More observers of a session's calls (a trial run's transcript of an agent program's MCP calls); absent: none. */
  callObservers?(sessionId: string, ordinal: number): CallEventSink[];
  /**
   * R-14: the model's side of the agent (a trial run's built-in loop or model gateway), given to the
   * session's evaluation; absent: not seen (plain `proxy`), so only decisive signals attribute a repeat.
   */
  modelSide?: ModelSide;
  /**
   * The upstream the effects view is read through (the same process or URL as `upstream`, without a
   * recording tap in front); absent: `upstream`.
   */
  effectsUpstream?: Pick<UpstreamSide, 'callTool'>;
  /** Runs a command view (`--effects-command`) in `cwd`; absent: a command view has no runner. */
  effectsCommand?: { runner: RecordsCommand; cwd: string };
  /** `--otel`: where each session's spans go (docs/traces.md); absent: no traces, nothing loaded. */
  tracer?: Tracer;
  /** `--otel-payloads on`: the spans also hold the calls' arguments and answers. */
  tracePayloads?: boolean;
  /** `--otel`: the span each session's span belongs under (a trial run's `invoke_agent`); absent: sessions are roots. */
  traceParent?: TraceSpan;
}

/** The stop reason of a stdio proxy whose agent simply left: the normal end, not worth a "stopped:" line. */
export const AGENT_DISCONNECTED = 'the agent disconnected';

/** Why the proxy stopped and with which exit code (never the verdict, R-8.9). */
export interface ProxyExit {
  code: 0 | 1;
  reason: string;
  /** Every agent session that ended, with its verdict, score and report file. */
  sessions: EndedSession[];
  /**
   * The proxy's last line: verdict, score, report — stdio's session, or a summary of
   * `--listen`'s sessions; null after a report that could not be written (its verdict is not to be used).
   */
  endLine: string | null;
}

export class ProxyService {
  private readonly sessions = new Set<JudgedSession>();
  private readonly endedSessions: EndedSession[] = [];
  private readonly sessionInfo = new WeakMap<JudgedSession, { sessionId: string; ordinal: number; report: string | undefined }>();
  private classification: ToolClassification[] = [];
  /** The tools with key fields, of `classification`. */
  private keyed = new Set<string>();
  private classifier: ToolClassifier | null = null;
  private tools: ToolDescriptor[] = [];
  private opened = 0;
  private stopping: Promise<ProxyExit> | null = null;
  private fatal = false;
  /** Set when the proxy itself ends the upstream connection (an answer over the size limit). */
  private closedByProxy: string | null = null;
  private resolveDone!: (exit: ProxyExit) => void;
  /** The write of the `starting` document; a stop during start-up replaces it only after it is done. */
  private startingWritten: Promise<void> = Promise.resolve();
  /** R-15: why the effects view cannot be read (checked against the tool list at start); null: it can. */
  private effectsRefusal: string | null = null;
  /** R-15: the effects of the sessions open now (a session opened beside another overlaps it). */
  private readonly openEffects = new Set<EffectsRun>();
  /** R-17: the agent sessions that get what the upstream sends outside any call. */
  private readonly relay: AgentRelay;
  /** R-17: a re-read of the upstream's changed tool list under way, and whether another change came meanwhile. */
  private relisting: Promise<void> | null = null;
  private relistAgain = false;
  /** Resolves when the proxy has stopped. */
  readonly done: Promise<ProxyExit> = new Promise((resolve) => (this.resolveDone = resolve));

  constructor(
    private readonly deps: ProxyDeps,
    private readonly config: ProxyConfig,
  ) {
    this.relay = new AgentRelay(deps.clock);
  }

  /** True once `stop` was called (e.g. the agent left during start-up). */
  get stopped(): boolean {
    return this.stopping !== null;
  }

  /**
   * Starts everything; rejects with a one-line Error when the upstream cannot be started (exit 1). A
   * report file that cannot be written is not an upstream failure: it is reported and stops the proxy
   * (`done` resolves with exit code 1) before the upstream is started.
   */
  async start(): Promise<void> {
    try {
      this.startingWritten =
        this.deps.reportTarget?.startupSink?.publish(startingDocument(this.config.harnessVersion)) ?? this.startingWritten;
      await this.startingWritten;
    } catch (error) {
      // Not an upstream failure: the upstream is not started at all, and the proxy exits 1 (R-9.3).
      this.reportFailed(errorMessage(error));
      return;
    }
    // A signal during that first write: stop() has already ended an upstream that was never started.
    if (this.stopping !== null) return;
    this.deps.agentSide.watchBeforeServe?.(() => void this.stop(`${AGENT_DISCONNECTED} during start-up`));
    // R-17: what the upstream sends outside any call reaches the sessions open (a changed tool list is
    // classified again first); set before the handshake, which may already bring a request (roots/list).
    this.deps.upstream.setPeer?.({
      notify: (method, params) =>
        method === 'notifications/tools/list_changed' ? this.toolsChanged() : this.relay.notify(method, params),
      request: (method, params, options) => this.relay.request(method, params, options),
    });
    let info: UpstreamInfo;
    try {
      info = await this.deps.upstream.connect();
      this.tools = await this.deps.upstream.listTools();
    } catch (error) {
      if (this.stopping !== null) return;
      const message = errorMessage(error);
      await this.deps.upstream.close();
      await this.deps.reportTarget?.startupSink
        ?.publish(startupErrorDocument(this.config.harnessVersion, message))
        .catch(() => undefined);
      throw new Error(message);
    }
    if (this.stopping !== null) return;
    this.classify(this.tools);
    this.checkEffectsView();
    this.deps.upstream.onExit((exit) => this.upstreamExited(exit));
    await this.deps.agentSide.serve((sessionId) => this.openSession(sessionId), {
      // R-17: the agent sees the upstream's server info and capabilities (the proxy's own name only when
      // the upstream gave none).
      serverName: info.serverName ?? this.config.serverName,
      serverVersion: info.serverName !== undefined ? (info.serverVersion ?? '') : this.config.harnessVersion,
      ...(info.instructions !== undefined ? { instructions: info.instructions } : {}),
      ...(info.capabilities !== undefined ? { capabilities: info.capabilities } : {}),
    });
  }

  /**
   * Stops in order: wait briefly for answers still in flight (they still count), end every evaluation
   * (calls still open are EXECUTION_UNKNOWN), write the final reports, end the agent side and the upstream.
   */
  stop(reason: string): Promise<ProxyExit> {
    this.stopping ??= (async () => {
      this.deps.logger.info({ reason }, 'stopping');
      await Promise.all([...this.sessions].map((s) => this.endSession(s)));
      // Stopped before any session opened (the agent left during start-up, a signal): the file must not
      // say `starting` for good.
      if (this.opened === 0 && !this.fatal) {
        const document = startupErrorDocument(
          this.config.harnessVersion,
          `start-up did not complete: ${reason}; no calls were made`,
        );
        await this.startingWritten.then(() => this.deps.reportTarget?.startupSink?.publish(document)).catch(() => undefined);
      }
      await this.deps.agentSide.close().catch(() => undefined);
      // A listener keeps opening sessions until it is closed (an agent that connected during the drain
      // above): end them too, so no report is left `running` when the proxy is done.
      await Promise.all([...this.sessions].map((s) => this.endSession(s)));
      await this.deps.upstream.close();
      // The end line(s): never after a report that could not be written (its verdict is not to be used).
      const endLine = this.fatal
        ? null
        : summaryLine(this.endedSessions, !this.config.stopWhenSessionEnds, this.deps.reportTarget?.location);
      const exit: ProxyExit = { code: this.fatal ? 1 : 0, reason, sessions: [...this.endedSessions], endLine };
      this.resolveDone(exit);
      return exit;
    })();
    return this.stopping;
  }

  private openSession(sessionId: string): JudgedSession {
    const ordinal = ++this.opened;
    const report = this.deps.reportTarget?.pathFor(sessionId, ordinal);
    const listen = !this.config.stopWhenSessionEnds;
    const journal =
      this.deps.journal?.session(sessionId, {
        scenario: scenarioName(this.config.scenario),
        ...(report !== undefined ? { report } : {}),
      }) ?? null;
    const callObservers = [
      ...(this.config.logCalls === true
        ? [new CallLines((line) => this.deps.notice(line), listen ? `session ${ordinal}: ` : '')]
        : []),
      ...(this.deps.callObservers?.(sessionId, ordinal) ?? []),
    ];
    const effects = this.openEffectsRun(journal);
    const tracer = this.deps.tracer;
    const trace =
      tracer === undefined
        ? undefined
        : new SessionTrace(tracer, {
            ordinal,
            scenario: this.config.scenario,
            transport: listen ? 'tcp' : 'pipe',
            payloads: this.deps.tracePayloads === true,
            ...(listen ? { mcpSessionId: sessionId } : {}),
            ...(this.deps.traceParent !== undefined ? { parent: this.deps.traceParent } : {}),
          });
    const session = new JudgedSession({
      ...(trace !== undefined ? { trace } : {}),
      ...(effects !== undefined ? { effects } : {}),
      sessionId,
      scenario: this.config.scenario,
      keyFields: this.config.keyFields,
      catalog: this.catalog(),
      upstream: this.deps.upstream,
      upstreamTools: this.tools,
      classification: this.classification,
      auditTools: this.config.auditTools,
      callTimeoutMs: this.config.callTimeoutMs,
      harnessVersion: this.config.harnessVersion,
      replayed: this.config.replayed === true,
      ...(listen ? { reportSession: { id: sessionId, ordinal } } : {}),
      sink: this.deps.reportTarget?.sinkFor(sessionId, ordinal) ?? null,
      clock: this.deps.clock,
      ...(this.deps.timer !== undefined ? { timer: this.deps.timer } : {}),
      random: this.deps.random,
      logger: this.deps.logger,
      journal,
      callObservers,
      ...(this.deps.modelSide !== undefined ? { modelSide: this.deps.modelSide } : {}),
      onFatal: (message) => this.reportFailed(message),
      onUpstreamTooLarge: (detail) => (this.closedByProxy ??= detail),
      onClosed: (reason) => this.sessionClosed(session, reason),
      relay: this.relay,
      onNotificationsDropped: (dropped, ended) => {
        const who = listen ? `session ${ordinal}: ` : '';
        this.deps.notice(
          ended
            ? `${who}${dropped} upstream notification${dropped === 1 ? ' was' : 's were'} dropped (more than ${NOTIFICATIONS_PER_SECOND} a second)`
            : `${who}warning: the upstream sends more than ${NOTIFICATIONS_PER_SECOND} notifications a second; the excess is dropped and counted`,
        );
      },
    });
    this.sessions.add(session);
    this.sessionInfo.set(session, { sessionId, ordinal, report });
    void session.publishRunning();
    return session;
  }

  private sessionClosed(session: JudgedSession, reason: AgentCloseReason): void {
    if (reason.kind === 'message-too-large') this.deps.notice('the agent sent a message over the 10 MB limit; the session ends');
    if (this.config.stopWhenSessionEnds) {
      void this.stop(describeClose(reason));
      return;
    }
    // The proxy goes on serving, so nothing hurries this session's end: a call still at the upstream (the
    // agent sent DELETE or went idle right after it) is waited for up to the upstream time-out, so what the
    // upstream did is recorded. A stop meanwhile cuts that wait to the stop's drain.
    void this.endSession(session, this.config.callTimeoutMs).then(() => this.sessions.delete(session));
  }

  /** Ends a session once (its end is shared) and records its outcome; null when it had ended before. */
  private async endSession(session: JudgedSession, drainMs = this.config.drainMs): Promise<EndedSession | null> {
    await session.end(drainMs);
    const info = this.sessionInfo.get(session);
    if (info === undefined) return null;
    this.sessionInfo.delete(session);
    const ended: EndedSession = { ...info, ...session.outcome() };
    this.endedSessions.push(ended);
    if (ended.effects !== undefined && !this.fatal)
      for (const line of effectsLines(ended.effects, this.config.stopWhenSessionEnds ? '' : `session ${info.ordinal} `))
        this.deps.notice(line);
    // With --listen each session says how it ended when it ends; stdio's one session is the summary line.
    if (!this.config.stopWhenSessionEnds && !this.fatal) this.deps.notice(endLine(ended, true));
    return ended;
  }

  /** The report could not be written: say so, exit 1 at once; the agent gets no answer (R-9.3). */
  private reportFailed(message: string): void {
    if (this.fatal) return;
    this.fatal = true;
    this.deps.notice(
      `error: the report file could not be written: ${message}. Exiting without answering the agent; do not use the verdict in the file.`,
    );
    void this.stop('report file not writable');
  }

  private classify(tools: readonly ToolDescriptor[]): void {
    const classifier = new ToolClassifier(
      this.config.classification,
      new KeyFieldMatcher(this.config.keyFields),
      this.config.idempotentHint ?? 'honour',
    );
    this.classification = classifier.classifyListed(
      tools.map((t) => ({ name: t.name, annotations: t.annotations, inputSchema: t.inputSchema, description: t.description })),
    );
    this.classifier = classifier;
    this.keyed = new Set(this.classification.filter((t) => t.keyFields.length > 0).map((t) => t.name));
    const idempotent = {
      names: classifier.idempotentHinted,
      policy: classifier.idempotentHint,
      broken: this.config.brokenHints ?? [],
    };
    for (const line of formatClassificationLines(this.classification, idempotent)) this.deps.notice(line);
    for (const line of classificationWarnings(this.config.classification, this.config.scenario, this.classification))
      this.deps.notice(line);
  }

  /**
   * R-17: the upstream's tool list changed: read it again, classify it again (the lines say so), give it
   * to every session, then tell the agents. Changes that come while it is read are read once more after.
   */
  private toolsChanged(): Promise<void> {
    if (this.classifier === null || this.stopping !== null) return Promise.resolve();
    if (this.relisting !== null) {
      this.relistAgain = true;
      return this.relisting;
    }
    this.relisting = (async () => {
      do {
        this.relistAgain = false;
        let tools: ToolDescriptor[];
        try {
          tools = await this.deps.upstream.listTools();
        } catch (error) {
          this.deps.notice(
            `warning: the upstream's tool list changed but could not be read again (${errorMessage(error)}); the earlier list stays`,
          );
          continue;
        }
        if (this.stopping !== null) return;
        this.deps.notice(
          `the upstream's tool list changed (${tools.length} tool${tools.length === 1 ? '' : 's'}); classified again:`,
        );
        this.tools = tools;
        this.classify(tools);
        for (const session of this.sessions) session.toolsChanged(tools, this.classification);
        await this.relay.notify('notifications/tools/list_changed', undefined);
      } while (this.relistAgain);
    })().finally(() => (this.relisting = null));
    return this.relisting;
  }

  /**
   * R-15: the effects tool must be listed and must not be a write (the harness never executes a write of
   * its own); otherwise every session's effects are EFFECTS_UNKNOWN with that reason, said once here.
   */
  private checkEffectsView(): void {
    const view = this.config.effects;
    if (view === undefined || view === null) return;
    const key = view.keyFields.map(escapeTerminalText).join(',');
    const expected = view.expectations.length > 0 ? `, ${view.expectations.length} expected` : '';
    if (view.command !== undefined) {
      this.deps.notice(`effects view: the command ${escapeTerminalText(view.command)}, effect key ${key}${expected}`);
      return;
    }
    const name = escapeTerminalText(view.tool);
    if (!this.tools.some((t) => t.name === view.tool))
      this.effectsRefusal = `the effects tool ${name} is not listed by the upstream`;
    else if (this.classifier?.classOf(view.tool) === 'write')
      this.effectsRefusal = `the effects tool ${name} is classified as a write; the harness calls only reads of its own (--read-tools ${name} if it only reads)`;
    this.deps.notice(
      this.effectsRefusal === null
        ? `effects view: ${name}, effect key ${key}${expected}`
        : `warning: ${this.effectsRefusal}: the effects will be EFFECTS_UNKNOWN`,
    );
  }

  /** R-15: a session's effects, its snapshot before started now; a session beside another overlaps it. */
  private openEffectsRun(journal: JournalSession | null): EffectsRun | undefined {
    const view = this.config.effects;
    if (view === undefined || view === null) return undefined;
    const command = this.deps.effectsCommand;
    const record = journal?.effectsSnapshot?.bind(journal);
    const run = new EffectsRun(
      {
        upstream: this.deps.effectsUpstream ?? this.deps.upstream,
        ...(command !== undefined ? { command: command.runner, cwd: command.cwd } : {}),
      },
      view,
      this.effectsRefusal,
      Math.min(EFFECTS_TIMEOUT_MS, this.config.callTimeoutMs),
      record === undefined ? null : (phase, result) => record(journalSnapshot(phase, view, result)),
    );
    if (this.openEffects.size > 0) {
      for (const other of this.openEffects) other.overlapped();
      run.overlapped();
    }
    this.openEffects.add(run);
    void run.done.then(() => this.openEffects.delete(run));
    return run;
  }

  /** The class of an upstream tool (`read`, `write`, …) once the upstream is classified; undefined before. */
  toolClassOf(name: string): string | undefined {
    return this.classifier?.classOf(name);
  }

  /** The classification as it stands at each call (R-17: the upstream's list may change). */
  private catalog() {
    return {
      classOf: (name: string) => this.classifier!.classOf(name),
      acceptsKey: (name: string) => this.keyed.has(name),
      isIdempotent: (name: string) => this.classifier!.isIdempotent(name),
    };
  }

  /** Reports an upstream that went away by itself, also when the agent has left in the meantime. */
  private upstreamExited(exit: UpstreamExit): void {
    if (exit.expected) return;
    const how = exit.signal !== null ? `killed by ${exit.signal}` : exit.code !== null ? `exit code ${exit.code}` : null;
    const what = this.closedByProxy === null ? 'upstream crashed' : `the proxy closed the upstream: ${this.closedByProxy}`;
    // An HTTP upstream has no exit status: "connection lost" only when nothing else explains the end.
    const detail = how ?? (this.closedByProxy === null ? 'connection lost' : null);
    this.deps.notice(`${what}${detail === null ? '' : ` (${detail})`}; later calls get UPSTREAM_UNAVAILABLE (no reconnect).`);
    const tail = exit.detail.trimEnd();
    if (tail !== '') for (const line of tail.split('\n')) this.deps.notice(`  upstream stderr: ${line}`);
  }
}

/** `effects: DUPLICATE_EFFECT: <reason>` and, where the verdicts disagree, why. */
function effectsLines(effects: NonNullable<EndedSession['effects']>, who: string): string[] {
  return [
    `${who}effects: ${effects.verdict}: ${effects.reason}`,
    ...(effects.explanation === null ? [] : [`${who}effects vs executions: ${effects.explanation}`]),
  ];
}

function describeClose(reason: AgentCloseReason): string {
  switch (reason.kind) {
    case 'message-too-large':
      return 'the agent sent a message over the 10 MB limit; session ended';
    case 'output-closed':
      return 'the agent stopped reading (output closed)';
    case 'transport-error':
      return `agent transport error${reason.detail ? `: ${reason.detail}` : ''}`;
    default:
      return AGENT_DISCONNECTED;
  }
}
