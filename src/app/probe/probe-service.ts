/**
 * `probe` (docs/probe.md): does an MCP server keep its idempotency promise? For every write tool chosen,
 * each probe that applies (`probesFor`) runs against a fresh upstream (after `--reset-command`, when
 * given) through the proxy's own call pipeline and fault code: the session decides F1, F5 or F6 for the
 * probe's faulted call, the pipeline forwards, judges and replaces answers (and lands F6's held-back write
 * when the probe says so) exactly as behind the proxy.
 * The count tool (`--count-with`) is read before the probe and after each forwarded call; the domain's
 * judge turns the answers and counts into a label, and the labels into the tool's verdict.
 */
import { errorMessage } from '../../domain/error-message.js';
import { ToolClassifier, type ClassificationRules } from '../../domain/judging/classification.js';
import type { ScenarioConfig } from '../../domain/faults/fault-plan.js';
import { faultOf } from '../../domain/faults/index.js';
import { globMatch } from '../../domain/text/glob.js';
import { KeyFieldMatcher } from '../../domain/judging/key-fields.js';
import { countItems } from '../../domain/effects/answer-records.js';
import { viewName, type EffectsViewSettings } from '../../domain/effects/effects-settings.js';
import { judgeEffects } from '../../domain/effects/effects-verdict.js';
import type { SnapshotResult } from '../../domain/effects/snapshot.js';
import type { RecordsCommand } from '../../ports/records-command.port.js';
import { EFFECTS_TIMEOUT_MS, snapshotView, type EffectsReaders } from '../effects/effects-view.js';
import { answerText, otherArguments, placeKey } from '../../domain/probe/probe-calls.js';
import { boundedListing, type BoundedListing } from '../../domain/effects/bounded-listing.js';
import { notKeptText, PREVIEW_CHARS } from '../../domain/text/kept-text.js';
import { hashText } from '../../domain/json.js';
import {
  judgeProbe,
  keyLocation,
  toolVerdict,
  type ProbeEvidence,
  type ProbeResult,
  type SeenAnswer,
} from '../../domain/probe/probe-judge.js';
import { probesFor, type ProbeDefinition, type ProbeStep, type ToolPromise } from '../../domain/probe/probes.js';
import { EvaluationSession } from '../../domain/judging/session.js';
import type { ToolCatalog } from '../../domain/judging/session-state.js';
import type { Clock } from '../../ports/clock.port.js';
import type { ToolCallRequest, ToolDescriptor } from '../../ports/shapes/mcp-shapes.js';
import type { RandomSource } from '../../ports/random.port.js';
import type { Timer } from '../../ports/timer.port.js';
import type { ProbeReport, ProbeRow, ToolReport } from '../../ports/shapes/probe-results.js';
import type { UpstreamCallOutcome, UpstreamSide } from '../../ports/upstream-side.port.js';
import { CallPipeline, type CallRecord } from '../pipeline/call-pipeline.js';
import type { ProbeTrace } from '../tracing/probe-trace.js';

/** Bad input found once the upstream is known (no tool matching, a count tool that cannot count): one line, exit 1. */
export class ProbeInputError extends Error {
  override readonly name = 'ProbeInputError';
}

export interface ProbeDeps {
  /** A new upstream adapter (not connected): one per probe, so each starts fresh. */
  createUpstream(): Promise<UpstreamSide>;
  /** Runs `--reset-command`; answers why it failed, or null. Absent: no reset. */
  reset?: () => Promise<string | null>;
  /** A key no call has used yet. */
  newKey(): string;
  clock: Clock;
  timer: Timer;
  random: RandomSource;
  /** `--otel` (docs/traces.md): a span per probe, its session's calls under it; absent: no traces. */
  trace?: ProbeTrace;
  /** runs a command view (`--effects-command`) in `cwd`; absent: a command view has no runner. */
  effectsCommand?: { runner: RecordsCommand; cwd: string };
}

export interface ProbeSettings {
  /** `--tools` globs; null: every write tool. */
  tools: readonly string[] | null;
  /** `--example TOOL=JSON`: the arguments each tool is called with (absent: `{}`). */
  examples: ReadonlyMap<string, Record<string, unknown>>;
  /** `--count-with TOOL[=JSON]`: the read tool whose listed items count the effects; null: none. */
  countWith: { tool: string; arguments: Record<string, unknown>; flag?: 'effects-tool' | 'count-with' } | null;
  /**
   * the effects view (`--effect-key` with `--effects-tool` or `--effects-command`): read before each
   * probe and after each forwarded call like the count tool, outside the probe's session, its records
   * counted and judged per key; null or absent: none (then `countWith` may count).
   */
  effects?: EffectsViewSettings | null;
  keyFields: readonly string[];
  classification: ClassificationRules;
  /** P3: how long after the first call the second is sent (0: at once). */
  gapMs: number;
  callTimeoutMs: number;
}

/** The report's types live in the ports: `check` reads the `--json` file back. */
export type { ProbeReport, ProbeRow, ToolReport };

function seen(record: CallRecord): SeenAnswer | null {
  return record.upstream === null ? null : seenOutcome(record.upstream);
}

function seenOutcome(outcome: UpstreamCallOutcome): SeenAnswer {
  if (outcome.kind === 'result')
    return { kind: outcome.result.isError === true ? 'error' : 'ok', text: keptAnswer(answerText(outcome.result)) };
  if (outcome.kind === 'protocol-error') return { kind: 'error', text: `JSON-RPC error ${outcome.code}: ${outcome.message}` };
  return {
    kind: 'none',
    text: outcome.kind === 'timeout' ? `no answer after ${outcome.afterMs} ms` : `${outcome.kind}: ${outcome.detail}`,
  };
}

/**
 * An answer as the evidence keeps it: whole up to {@link PREVIEW_CHARS} characters, else its head, how
 * much was left out and a hash of the whole, so two answers compare equal exactly when they were, and a
 * probe file of a server with huge answers stays readable by `check` (64 MiB input limit).
 */
function keptAnswer(text: string): string {
  return text.length <= PREVIEW_CHARS
    ? text
    : notKeptText(text, `hash:${hashText(text)}`, 'the evidence keeps an answer to its head');
}

interface Listing {
  tools: ToolDescriptor[];
  classifier: ToolClassifier;
  chosen: Array<{ tool: ToolDescriptor; keyFields: string[] }>;
  server: string | null;
}

export class ProbeService {
  private readonly keyMatcher: KeyFieldMatcher;

  constructor(
    private readonly deps: ProbeDeps,
    private readonly settings: ProbeSettings,
  ) {
    this.keyMatcher = new KeyFieldMatcher(settings.keyFields);
  }

  /** Runs every probe on every chosen tool. Rejects with a ProbeInputError for bad input, an Error when the upstream does not start. */
  async run(): Promise<ProbeReport> {
    const listing = await this.list();
    const tools: ToolReport[] = [];
    for (const { tool, keyFields } of listing.chosen) tools.push(await this.probeTool(tool, keyFields, listing));
    const view = this.settings.effects ?? null;
    const countedWith = view === null ? null : view.command === undefined ? view.tool : viewName(view);
    return { server: listing.server, countWith: this.settings.countWith?.tool ?? countedWith, tools };
  }

  /** The first upstream: its tools, the write tools chosen, the count tool checked once. */
  private async list(): Promise<Listing> {
    const { settings } = this;
    if (this.deps.reset !== undefined) {
      const failure = await this.deps.reset();
      if (failure !== null) throw new Error(failure);
    }
    const upstream = await this.deps.createUpstream();
    try {
      const info = await upstream.connect();
      const tools = await upstream.listTools();
      const classifier = new ToolClassifier(settings.classification, this.keyMatcher);
      const classified = classifier.classifyListed(tools);
      const writes = classified.filter((t) => t.class === 'write');
      const chosen = writes.filter((t) => settings.tools === null || settings.tools.some((glob) => globMatch(glob, t.name)));
      if (chosen.length === 0)
        throw new ProbeInputError(
          settings.tools === null
            ? `the upstream lists no write tool (${tools.length} tool(s)); name them with --write-tools`
            : `no write tool matches --tools ${settings.tools.join(',')} (write tools: ${writes.map((t) => t.name).join(', ') || 'none'})`,
        );
      // An example for a write tool that --tools leaves out is fine (one example file for several runs);
      // one for a tool that is no write tool of this upstream is a typo.
      for (const name of settings.examples.keys())
        if (!writes.some((t) => t.name === name))
          throw new ProbeInputError(
            `--example ${name}: not a write tool of the upstream (write tools: ${writes.map((t) => t.name).join(', ') || 'none'})`,
          );
      if (settings.countWith !== null) await this.checkCountTool(upstream, tools, settings.countWith);
      if (settings.effects != null) await this.checkView(upstream, tools, settings.effects);
      const byName = new Map(tools.map((t) => [t.name, t]));
      return {
        tools,
        classifier,
        chosen: chosen.map((t) => ({ tool: byName.get(t.name)!, keyFields: t.keyFields })),
        server: info.serverName ?? null,
      };
    } finally {
      await upstream.close();
    }
  }

  private async checkCountTool(
    upstream: UpstreamSide,
    tools: readonly ToolDescriptor[],
    countWith: NonNullable<ProbeSettings['countWith']>,
  ): Promise<void> {
    if (!tools.some((t) => t.name === countWith.tool))
      throw new ProbeInputError(`--${countWith.flag ?? 'count-with'} ${countWith.tool}: the upstream lists no such tool`);
    const outcome = await upstream.callTool(
      { name: countWith.tool, arguments: countWith.arguments },
      { timeoutMs: this.settings.callTimeoutMs },
    );
    const answer = outcome.kind === 'result' ? outcome.result : null;
    if (answer === null || countItems(answer) === null) {
      const what = answer === null ? outcome.kind : answerText(answer).slice(0, 120);
      throw new ProbeInputError(
        `--${countWith.flag ?? 'count-with'} ${countWith.tool}: its answer cannot be counted (neither a JSON array, an object with arrays, nor lines of text): ${what}`,
      );
    }
  }

  /** the effects view is listed by the upstream (a tool) and can be read now: else one clear line. */
  private async checkView(upstream: UpstreamSide, tools: readonly ToolDescriptor[], view: EffectsViewSettings): Promise<void> {
    if (view.command === undefined && !tools.some((t) => t.name === view.tool))
      throw new ProbeInputError(`--effects-tool ${view.tool}: the upstream lists no such tool`);
    const first = await this.readView(upstream, view);
    if (!first.ok) throw new ProbeInputError(`the effects view cannot be read: ${first.reason}`);
  }

  private readView(upstream: UpstreamSide, view: EffectsViewSettings): Promise<SnapshotResult> {
    const command = this.deps.effectsCommand;
    const readers: EffectsReaders = {
      upstream,
      ...(command !== undefined ? { command: command.runner, cwd: command.cwd } : {}),
    };
    return snapshotView(readers, view, Math.min(EFFECTS_TIMEOUT_MS, this.settings.callTimeoutMs));
  }

  private async probeTool(tool: ToolDescriptor, keyFields: string[], listing: Listing): Promise<ToolReport> {
    const promise: ToolPromise = {
      acceptsKey: keyFields.length > 0,
      hinted: listing.classifier.idempotentHinted.includes(tool.name),
    };
    const keyField = keyFields[0] ?? this.settings.keyFields[0] ?? 'idempotency_key';
    const { run, skipped } = probesFor(promise);
    const rows: ProbeRow[] = [];
    for (const probe of run) rows.push(await this.runProbe(tool.name, probe, keyField, listing));
    const verdict = toolVerdict(promise, rows);
    return {
      tool: tool.name,
      promise,
      keyField,
      verdict: verdict.verdict,
      reason: verdict.reason,
      keyLocation: keyLocation(rows, keyField),
      probes: rows,
      skipped: skipped.map((s) => ({ probe: s.id, why: s.why })),
    };
  }

  private async runProbe(tool: string, probe: ProbeDefinition, keyField: string, listing: Listing): Promise<ProbeRow> {
    const sent: ProbeRow['evidence']['sent'] = [];
    const evidence: ProbeEvidence = { answers: [], counts: null, listings: null };
    const row = (result: ProbeResult): ProbeRow => ({ ...result, evidence: { ...evidence, sent } });
    const failed = (reason: string): ProbeRow => row({ probe: probe.id, label: 'inconclusive', reason });
    if (this.deps.reset !== undefined) {
      const failure = await this.deps.reset();
      if (failure !== null) return failed(failure);
    }
    const example = this.settings.examples.get(tool) ?? {};
    const other = probe.steps.some((s) => s.otherArguments === true) ? otherArguments(example, [keyField]) : example;
    if (other === null) return failed('the example has no number, string or boolean argument to change');
    let upstream: UpstreamSide;
    try {
      upstream = await this.deps.createUpstream();
    } catch (error) {
      return failed(`the upstream did not start: ${errorMessage(error)}`);
    }
    try {
      await upstream.connect();
    } catch (error) {
      await upstream.close(); // what did start (a process, a session) is ended
      return failed(`the upstream did not start: ${errorMessage(error)}`);
    }
    const faulted = probe.steps.find((s) => s.fault !== undefined)?.fault;
    // A write that lands late (P9) waits as long as it may: the probe lands it itself, after the retry.
    const lands = faulted === undefined ? undefined : faultOf(faulted).landsAfter;
    const scenario: ScenarioConfig =
      faulted === undefined
        ? { mode: 'none' }
        : {
            mode: 'scenario',
            id: faulted,
            aim: { tools: [tool], on: 1 },
            ...(lands === undefined ? {} : { parameters: { [lands.name]: lands.max } }),
          };
    const classifier = listing.classifier;
    const catalog: ToolCatalog = {
      classOf: (name) => classifier.classOf(name),
      acceptsKey: (name) => name === tool && keyField !== '',
    };
    const session = new EvaluationSession(
      { scenario, keyFields: this.settings.keyFields },
      catalog,
      this.deps.clock,
      this.deps.random,
    );
    const reached: UpstreamCallOutcome[] = [];
    const traced = this.deps.trace?.probe(tool, probe.id, scenario);
    const pipeline = new CallPipeline({
      // --otel: the probe's calls as the proxy's are (server and client spans, the context in _meta).
      ...(traced !== undefined
        ? {
            events: { sink: traced.session, clock: this.deps.clock },
            upstreamMeta: (attempt: number) => traced.session.upstreamMeta(attempt),
          }
        : {}),
      session,
      upstream,
      callTimeoutMs: this.settings.callTimeoutMs,
      outputSchemaTools: new Set(listing.tools.filter((t) => t.outputSchema !== undefined).map((t) => t.name)),
      publish: null,
      timer: this.deps.timer,
      // What the server answered the probed tool, in the order the calls reached it (a late write's too).
      onUpstreamOutcome: (name, outcome) => {
        if (name === tool) reached.push(outcome);
      },
    });
    const countWith = this.settings.countWith;
    const view = this.settings.effects ?? null;
    const counts: number[] = [];
    const listings: BoundedListing[] = [];
    const problems: string[] = [];
    const snapshots: SnapshotResult[] = [];
    const snapshot = async (): Promise<void> => {
      if (view !== null) {
        // the view read outside the probe's session (never faulted, never one of its calls).
        const read = await this.readView(upstream, view);
        snapshots.push(read);
        if (!read.ok) problems.push(read.reason);
        counts.push(read.ok ? read.snapshot.count : 0);
        listings.push(
          read.ok
            ? { count: read.snapshot.count, hash: read.snapshot.hash, head: [...read.snapshot.head] }
            : { count: 0, hash: '', head: [] },
        );
        return;
      }
      if (countWith === null) return;
      const record = await pipeline.run({ name: countWith.tool, arguments: countWith.arguments });
      const n = countItems(record.result);
      if (n === null) problems.push(answerText(record.result).slice(0, 120));
      counts.push(n ?? 0);
      listings.push(boundedListing(answerText(record.result).split('\n')));
    };
    const firstKey = this.deps.newKey();
    const request = (step: ProbeStep): ToolCallRequest => {
      const placed = placeKey(
        step.otherArguments === true ? other : example,
        keyField,
        step.key,
        step.key === 'new' ? this.deps.newKey() : firstKey,
      );
      sent.push({
        arguments: placed.arguments,
        ...(placed.meta ? { meta: placed.meta } : {}),
        ...(step.fault ? { fault: step.fault } : {}),
      });
      return { name: tool, arguments: placed.arguments, ...(placed.meta ? { meta: placed.meta } : {}) };
    };
    try {
      await snapshot();
      if (probe.steps.some((s) => s.concurrent === true)) {
        let firstAnswered = false;
        const first = pipeline.run(request(probe.steps[0]!)).then((record) => {
          firstAnswered = true;
          return record;
        });
        if (this.settings.gapMs > 0) await this.deps.timer.sleep(this.settings.gapMs);
        evidence.concurrent = !firstAnswered;
        const records = await Promise.all([first, pipeline.run(request(probe.steps[1]!))]);
        for (const record of records) {
          const answer = seen(record);
          if (answer !== null) evidence.answers.push(answer);
        }
        await snapshot();
      } else {
        let late = false;
        for (const step of probe.steps) {
          const record = await pipeline.run(request(step));
          // F6 (P9): told a time-out, the write held back until it is landed below.
          if (record.landsAfterMs !== undefined) late = true;
          const answer = seen(record);
          if (answer === null) continue; // F5: answered by the harness, never forwarded; F6: not yet
          evidence.answers.push(answer);
          await snapshot();
        }
        if (late) {
          await pipeline.landPending();
          const landed = reached[evidence.answers.length];
          if (landed !== undefined) evidence.answers.push(seenOutcome(landed));
          await snapshot();
        }
      }
    } finally {
      // A late write still held back (a call above threw) lands before the upstream is closed.
      await pipeline.landPending();
      session.finish();
      traced?.session.ended(session, undefined);
      await upstream.close();
    }
    if (countWith !== null || view !== null) {
      evidence.counts = counts;
      evidence.listings = listings;
    }
    if (view !== null && problems.length === 0 && snapshots.length >= 2) {
      const judged = judgeEffects(snapshots[0]!, snapshots[snapshots.length - 1]!, view.expectations);
      evidence.effects = { verdict: judged.verdict, reason: judged.reason, keys: judged.keys };
    }
    const result =
      problems.length > 0
        ? failed(
            view !== null
              ? `the effects view could not be read: ${problems[0]}`
              : `the count tool's answer could not be counted: ${problems[0]}`,
          )
        : row(judgeProbe(probe, evidence));
    traced?.end(result);
    return result;
  }
}
