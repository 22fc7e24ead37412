/**
 * One call of the agent, from receipt to delivery — the same code for every driver of a session: the
 * proxy (both agent sides), the benchmark, the demo (and the coming `trial`). In order:
 *
 * 1. the session judges the arriving call and decides its fault (`EvaluationSession.receive`);
 * 2. a forwarded call is published in the report BEFORE it goes to the upstream (R-9.2.1: the file shows
 *    it in flight, NOT_TESTED with the call EXECUTION_UNKNOWN); calls of one event-loop turn share a write;
 * 3. the upstream's outcome is judged (R-1.3, `upstream-answer.ts`) and the session may replace the answer
 *    (F1's timeout after a ghost write);
 * 4. the answer is recorded as delivered, the report is published (R-9.2), and only then does the agent
 *    get the answer.
 *
 * Timing (opt-in): a forwarded call first waits its `--latency` (the session drew it on
 * arrival); a replaced answer (F1's timeout) is held for `--hold`. Both waits go through the `Timer` port
 * and end when the agent cancels; a cancelled call is reported to the session (`attempt.cancelled()`), and
 * the upstream is told by the upstream side (the signal aborts the forwarded request).
 *
 * A late-landing write (F6's `--land-after`): the agent gets its time-out at once (delivered first); the
 * call waits its landing time through the `Timer` and is forwarded then, whatever the agent does meanwhile
 * (an agent's cancellation does not call back a write a queue has accepted). `landPending()` cuts every
 * such wait short, so the writes land before the session's end is judged; they count as calls in flight.
 *
 * The step order itself is guarded by the domain's `CallAttempt`; this class adds what the application
 * owns: the upstream port, the answer judging, the report writes and the count of calls in flight.
 */
import type { CallClass, ExecutionOutcome } from '../../domain/judging/attempt.js';
import type { FaultKind } from '../../domain/faults/index.js';
import type { CallAttempt } from '../../domain/judging/call-attempt.js';
import type { EvaluationSession } from '../../domain/judging/session.js';
import type { CallOrigin } from '../../domain/judging/attribution.js';
import type { ToolCallRequest, ToolCallResult } from '../../ports/shapes/mcp-shapes.js';
import type { Timer } from '../../ports/timer.port.js';
import type { UpstreamCallOptions, UpstreamCallOutcome, UpstreamSide } from '../../ports/upstream-side.port.js';
import { CallEvents, type CallEventsDeps } from './call-events.js';
import { judgeUpstreamAnswer, type JudgedAnswer } from './upstream-answer.js';

/**
 * Publishes the report. `soon`: no other call of the session can join this write (nothing else is in
 * flight), so it may be written right after the current microtasks instead of in the check phase.
 * Never resolves when the report could not be written (the agent must then get no answer, R-9.3).
 */
export type PublishReport = (soon: boolean) => Promise<void>;

export interface CallPipelineDeps {
  session: EvaluationSession;
  upstream: UpstreamSide;
  /** How long the upstream may take for one call (the product waits 60 s). */
  callTimeoutMs: number;
  /** Tools that declare an `outputSchema`: a result without `structuredContent` is then unknown. */
  outputSchemaTools: ReadonlySet<string>;
  /** Where the report goes before forwarding and before answering; null: no report (benchmark, demo). */
  publish: PublishReport | null;
  /**
   * Told when the session's bookkeeping failed in a catch-up the pipeline ran between calls (a bug: the
   * step is dropped, as a failed step is dropped when a call runs it); absent: nobody is told. Never lets
   * such an error end the process.
   */
  onBookkeepingError?(error: unknown): void;
  /** Told of every upstream outcome, before it is judged (logging, the size limit). */
  onUpstreamOutcome?(tool: string, outcome: UpstreamCallOutcome): void;
  /** Told every step of every call (the journal, per-call log lines); absent: nobody listens. */
  events?: CallEventsDeps;
  /** Waits for `--latency` and `--hold`; required when the session's scenario has either. */
  timer?: Timer;
  /**
   * `--otel`: the `_meta` fields that carry a forwarded attempt's trace context to the upstream
   * (`traceparent`, `tracestate`), asked right after its `forwarded` event; absent: `_meta` goes as it came.
   */
  upstreamMeta?(attempt: number): Record<string, string> | undefined;
}

/** The timer of a session that never waits (no latency, no hold): the pipeline does not call it. */
const NO_WAIT: Timer = { sleep: () => Promise.resolve(true) };

/** The outcome of a call the agent cancelled during its latency: it never reached the upstream. */
const CANCELLED_BEFORE_FORWARDING: UpstreamCallOutcome = {
  kind: 'not-sent',
  detail: 'the agent cancelled the call during the added latency',
};

/** What became of one call, for drivers that show more than the answer (the demo). */
export interface CallRecord {
  /** What the agent gets. */
  result: ToolCallResult;
  callClass: CallClass;
  fault: FaultKind | null;
  /** How the upstream answered; null when the call was not forwarded. */
  upstream: UpstreamCallOutcome | null;
  /** The upstream's answer was replaced by the fault (F1). */
  replaced: boolean;
  /** F6: the write reaches the upstream this many ms after the agent was answered (absent: not late). */
  landsAfterMs?: number;
}

/** The answer to a call whose turn came after the session had ended: it was not forwarded. */
export const NOT_FORWARDED_SESSION_ENDED: ToolCallResult = {
  content: [{ type: 'text', text: 'The evaluation session has ended; the call was not forwarded to the upstream.' }],
  isError: true,
};

function recordOf(
  attempt: { callClass: CallClass; fault: FaultKind | null },
  result: ToolCallResult,
  upstream: UpstreamCallOutcome | null,
  replaced: boolean,
): CallRecord {
  return { result, callClass: attempt.callClass, fault: attempt.fault, upstream, replaced };
}

/** Where the upstream's messages about one forwarded call go: its progress, and the agent of the call. */
export type CallRelay = Pick<UpstreamCallOptions, 'onProgress' | 'peer'>;

export class CallPipeline {
  private inFlight = 0;
  private catchUpScheduled = false;
  private idle: Array<() => void> = [];
  private readonly events: CallEvents | null;

  private readonly timer: Timer;
  /** F6: late-landing writes not yet answered by the upstream, each with the switch that lands it now. */
  private readonly late = new Map<number, { landNow: AbortController; landed: Promise<void>; landing: boolean }>();

  constructor(private readonly deps: CallPipelineDeps) {
    this.events = deps.events === undefined ? null : new CallEvents(deps.events);
    const { latency, holdMs } = deps.session.settings.scenario;
    if ((latency !== undefined || (holdMs ?? 0) > 0) && deps.timer === undefined) {
      throw new Error('a scenario with --latency or --hold needs a Timer (wiring error)');
    }
    // Without a Timer (the demo) a late write lands as soon as its time-out has been answered.
    this.timer = deps.timer ?? NO_WAIT;
  }

  /**
   * Lands every late write at once (their waits cut short) and resolves when the upstream has answered
   * each: called before a session's end is judged, so its final report counts them.
   */
  landPending(): Promise<void> {
    const landings = [...this.late.values()];
    for (const late of landings) late.landNow.abort();
    return Promise.all(landings.map((late) => late.landed)).then(() => undefined);
  }

  /**
   * Resolves when every late write whose landing time has come has been answered by the upstream. A driver
   * on a virtual clock (the benchmark) calls it after moving time on, so that what its agent reads next
   * sees what has landed by then. Free when no late write is pending (every scenario but F6).
   */
  async landingsDue(): Promise<void> {
    if (this.late.size === 0) return;
    // A wait that time has ended resumes its landing in a later job: let those jobs run first.
    await new Promise<void>((resolve) => setImmediate(resolve));
    await Promise.all([...this.late.values()].filter((late) => late.landing).map((late) => late.landed));
  }

  /** F6: forwards a write the agent has already been told timed out, after its landing time. */
  private land(attempt: CallAttempt, request: ToolCallRequest): void {
    const { session, publish } = this.deps;
    const landNow = new AbortController();
    this.inFlight++;
    const landed = (async () => {
      try {
        await this.timer.sleep(attempt.landAfterMs, landNow.signal);
        const entry = this.late.get(attempt.attemptId);
        if (entry !== undefined) entry.landing = true;
        // Ended without landPending (a driver that judged without landing): the write stays unknown.
        if (session.finished) return;
        if (publish !== null) await publish(false);
        await this.forwardAndJudge(attempt, request, { timeoutMs: this.deps.callTimeoutMs });
        if (publish !== null) await publish(this.inFlight === 1);
      } finally {
        this.late.delete(attempt.attemptId);
        this.settled();
      }
    })();
    this.late.set(attempt.attemptId, { landNow, landed, landing: false });
  }

  /**
   * The step every forwarded call shares, on time or landing late (F6): sends the call to the upstream
   * (unless `options` is null: the agent cancelled it during its latency, so it never left), tells the
   * listeners of the outcome, judges it, lets the session replace the answer (F1, F7) and tells
   * the events. The caller publishes the report before and after.
   */
  private async forwardAndJudge(
    attempt: CallAttempt,
    request: ToolCallRequest,
    options: UpstreamCallOptions | null,
  ): Promise<{ outcome: UpstreamCallOutcome; judged: JudgedAnswer; replacement: ToolCallResult | null }> {
    attempt.forwarded();
    if (options !== null) this.events?.forwarded(attempt, request.name);
    // what the upstream asks the agent during the call is a step of this attempt.
    const events = this.events;
    const sent =
      options?.peer !== undefined && events
        ? { ...options, peer: events.askedThrough(options.peer, attempt, request.name) }
        : options;
    const answer = sent === null ? null : this.deps.upstream.callTool(this.outgoing(attempt.attemptId, request), sent);
    // The call is on its way: the session's bookkeeping is done while the upstream works on it.
    this.catchUpSoon();
    const outcome = answer === null ? CANCELLED_BEFORE_FORWARDING : await answer;
    this.deps.onUpstreamOutcome?.(request.name, outcome);
    const judged = judgeUpstreamAnswer(outcome, this.deps.outputSchemaTools.has(request.name), this.deps.callTimeoutMs / 1000);
    const replacement = attempt.answered(judged.execution);
    this.events?.answered(
      attempt,
      request.name,
      judged.execution,
      replacement !== null,
      outcome.kind === 'result' ? outcome.result : undefined,
      attempt.execution,
    );
    return { outcome, judged, replacement };
  }

  /**
   * Lets the session apply its pending bookkeeping once the current turn's writes have gone out (a check-phase
   * job), so the next call or answer does not wait for it. Correct whenever it runs: every event and every
   * view of the session catches up first.
   */
  private catchUpSoon(): void {
    // With a report the publish before the answer has booked everything already.
    if (this.catchUpScheduled || !this.deps.session.behind) return;
    this.catchUpScheduled = true;
    setImmediate(() => {
      this.catchUpScheduled = false;
      try {
        this.deps.session.catchUp();
      } catch (error) {
        this.deps.onBookkeepingError?.(error);
      }
    });
  }

  /** One forwarded call is done with the upstream: wakes `drained()` waiters when it was the last. */
  private settled(): void {
    this.inFlight--;
    if (this.inFlight === 0) for (const resolve of this.idle.splice(0)) resolve();
  }

  /** The request as the upstream gets it: with `--otel`, the trace context of its client span in `_meta`. */
  private outgoing(attempt: number, request: ToolCallRequest): ToolCallRequest {
    const trace = this.deps.upstreamMeta?.(attempt);
    return trace === undefined ? request : { ...request, meta: { ...request.meta, ...trace } };
  }

  /** Forwarded calls not yet answered by the upstream (including those waiting for their report write). */
  get callsInFlight(): number {
    return this.inFlight;
  }

  /**
   * Runs one call through the session; resolves with what the agent gets. `relay`: where the upstream's
   * progress notifications for a forwarded call go, and the agent its other messages go to.
   */
  async call(request: ToolCallRequest, signal?: AbortSignal, relay?: CallRelay, origin?: CallOrigin): Promise<ToolCallResult> {
    return (await this.run(request, signal, relay, origin)).result;
  }

  /**
   * Runs one call through the session; resolves with the answer and what happened on the way. `origin`:
   * its MCP session and JSON-RPC request id, when the agent side knows them.
   */
  async run(request: ToolCallRequest, signal?: AbortSignal, relay?: CallRelay, origin?: CallOrigin): Promise<CallRecord> {
    const { session, publish } = this.deps;
    const attempt = session.receive(request.name, request.arguments, origin);
    const events = this.events;
    events?.received(attempt, request, origin);
    let record: CallRecord;
    let upstreamDid: ExecutionOutcome['kind'] | null = null;
    if (!attempt.forward) {
      record = recordOf(attempt, attempt.injected!, null, false);
      events?.injected(attempt, request.name, record.result);
    } else if (attempt.landAfterMs > 0) {
      // F6: the time-out now, the write later.
      record = { ...recordOf(attempt, attempt.injected!, null, true), landsAfterMs: attempt.landAfterMs };
      this.land(attempt, request);
    } else {
      this.inFlight++;
      try {
        // --latency: the wait before the call travels (the agent may cancel it meanwhile).
        const cancelledEarly = attempt.delayMs > 0 && !(await this.timer.sleep(attempt.delayMs, signal));
        // the file shows the call at the upstream before it gets there; calls arriving in the
        // same turn share this write.
        if (publish !== null) await publish(this.inFlight === 1);
        if (session.finished) {
          record = recordOf(attempt, NOT_FORWARDED_SESSION_ENDED, null, false);
        } else {
          // An aborted signal makes the upstream side cancel the request upstream (MCP cancellation); the
          // outcome is what the upstream really did: a result if it answered, unknown otherwise.
          const { outcome, judged, replacement } = await this.forwardAndJudge(
            attempt,
            request,
            cancelledEarly
              ? null
              : {
                  timeoutMs: this.deps.callTimeoutMs,
                  ...(signal ? { signal } : {}),
                  ...(relay?.onProgress ? { onProgress: relay.onProgress } : {}),
                  ...(relay?.peer ? { peer: relay.peer } : {}),
                },
          );
          record = recordOf(attempt, replacement ?? judged.result, outcome, replacement !== null);
          upstreamDid = judged.execution.kind;
        }
      } finally {
        this.settled();
      }
    }
    // --hold: a replaced answer (F1's timeout) comes only after the hold, or not at all if the agent cancels.
    if (record.replaced && attempt.holdMs > 0 && signal?.aborted !== true) await this.timer.sleep(attempt.holdMs, signal);
    if (signal?.aborted === true) attempt.cancelled();
    // The answer is decided: record it as delivered so the published report is the state the agent is
    // about to see, publish, then answer. An answer that arrives while the session is ending is
    // published after the final report, so it must stay marked as final.
    attempt.delivered();
    events?.delivered(
      attempt,
      request.name,
      record.result,
      upstreamDid,
      record.replaced,
      record.upstream?.kind === 'timeout',
      signal?.aborted === true,
    );
    if (publish !== null) await publish(this.inFlight === 0);
    // Booked after the answer has gone to the agent.
    this.catchUpSoon();
    return record;
  }

  /** Resolves when no forwarded call is waiting for the upstream, or after `maxMs`. */
  drained(maxMs: number): Promise<void> {
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, maxMs);
      // A stop may stop waiting sooner (see JudgedSession.end): this bound alone keeps no process alive.
      timer.unref?.();
      this.idle.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}
