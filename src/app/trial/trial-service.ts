/**
 * The `trial` use case: every run of the plan, at most `concurrency` at a time, each through
 * {@link RunExecutor}; progress as runs end; at the end `summary.json` and the table.
 */
import { errorMessage } from '../../domain/error-message.js';
import { TRIAL_SUMMARY_SCHEMA_VERSION } from '../../domain/report/schema-versions.js';
import {
  compareArms,
  formatSummaryMarkdown,
  summariseRuns,
  type ArmComparison,
  type TrialSummary,
} from '../../domain/trial/index.js';
import { describeAgent, provenanceAgent } from './agent-description.js';
import { PATCH_TEXTS } from '../../domain/report/patches.js';
import { measuredSettings, settingFilesOf } from './measured-settings.js';
import { settingsHash, type SettingsOrigin, type UpstreamSettings } from './trial-settings.js';
import { RunExecutor, type RunRecord } from './run-executor.js';
import type { TrialDeps } from './trial-deps.js';
import { BASELINE, PATCHED, planRuns, scenarioLabel, shardRuns, type Arm, type RunSpec, type TrialPlan } from './trial-plan.js';
import { modelFaultLine, summarise, withStatistics, type GroupSummary } from './summary-output.js';

export interface TrialResult {
  records: RunRecord[];
  groups: GroupSummary[];
  summaryFile: string;
  /** The statistics of every arm and scenario, and the A/B comparison when there was one. */
  statistics: TrialSummary;
  comparison: ArmComparison | null;
  /** Why the patched arm did not run (`--patch auto` after a baseline without patches). */
  patchNote: string | null;
  /** Set when a signal cut the trial short: which share of the planned runs the figures cover. */
  interruptedNote: string | null;
}

/** `--patch auto`: the patch texts the baseline's runs produced, each once, in the order of patches.ts (most severe first). */
const PATCH_ORDER: readonly string[] = [...PATCH_TEXTS.keys()];
export function collectPatches(records: readonly RunRecord[]): Array<{ id: string; text: string }> {
  const byId = new Map<string, string>();
  for (const record of records) for (const patch of record.patchTexts) if (!byId.has(patch.id)) byId.set(patch.id, patch.text);
  const rank = (id: string) => (PATCH_ORDER.includes(id) ? PATCH_ORDER.indexOf(id) : PATCH_ORDER.length);
  return [...byId]
    .map(([id, text]) => ({ id, text }))
    .sort((a, b) => rank(a.id) - rank(b.id) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

export class TrialService {
  private stopping: string | null = null;
  private readonly stopNow = new AbortController();

  constructor(
    private readonly deps: TrialDeps,
    private readonly plan: TrialPlan,
    /** What the summary records about the setup (agent, endpoint, upstream), already free of secrets. */
    private readonly setup: Record<string, unknown>,
    /** The upstream as started and where the settings came from: `provenance.config` (trial-settings.ts). */
    private readonly settings?: { upstream: UpstreamSettings; origin: SettingsOrigin },
  ) {}

  /** The settings hash (trial-settings.ts); undefined when the composition root gave no upstream settings. */
  private settingsHashValue(): string | undefined {
    return this.settings === undefined
      ? undefined
      : settingsHash(this.plan, this.settings.upstream, (text) => this.deps.hash(text));
  }

  /** No new run starts; the runs in progress finish and the summary covers the runs done. */
  stop(reason: string): void {
    this.stopping ??= reason;
  }

  /** A second signal: the runs in progress are stopped too (NOT_TESTED, interrupted); the summary is still written. */
  stopRunsInProgress(signal: string): void {
    this.stop(`received ${signal}`);
    if (!this.stopNow.signal.aborted) this.stopNow.abort(signal);
  }

  /** Whether {@link stop} was called. */
  get stopRequested(): boolean {
    return this.stopping !== null;
  }

  /**
   * Starts the upstream once before any run (connect, list its tools, close): an upstream that cannot
   * start is bad input — one line and exit 1 — not N runs NOT_TESTED. Rejects with the one-line reason.
   */
  async checkUpstream(): Promise<void> {
    const spec = planRuns(this.plan)[0]!;
    const upstream = await this.deps.createUpstream({ id: 'check', dir: this.deps.store.root }, spec);
    let tools: string[];
    try {
      await upstream.connect();
      tools = (await upstream.listTools()).map((tool) => tool.name);
    } catch (error) {
      throw new Error(`upstream did not start: ${errorMessage(error)}`);
    } finally {
      await upstream.close();
    }
    const gateway = this.plan.agent.kind === 'command' ? this.plan.agent.gateway : undefined;
    if (gateway?.kind === 'stub') {
      // A stub model that asks for a tool the upstream does not list would make every run measure nothing.
      const script = gateway.script;
      for (const [key, call] of [
        ['write', script.write],
        ['check', script.check],
      ] as const) {
        if (call !== undefined && !tools.includes(call.tool))
          throw new Error(
            `stub model script ${gateway.file}: ${key}.tool ${JSON.stringify(call.tool)} is not a tool of the upstream (it lists ${tools.map((t) => JSON.stringify(t)).join(', ') || 'none'})`,
          );
      }
    }
  }

  async run(): Promise<TrialResult> {
    const executor = new RunExecutor(this.deps, this.plan, this.settingsHashValue(), this.settings?.upstream);
    const started = this.deps.clock.now();
    const patch = this.plan.patch;
    // `--shard i/n`: this job's share of each arm's runs (the same ids and seeds as the whole trial).
    const baselineSpecs = shardRuns(planRuns(this.plan), this.plan.shard);
    let patched: Arm | null = patch?.kind === 'texts' ? { name: PATCHED, label: patch.label, append: patch.texts } : null;
    // With `--patch auto` the second arm's size is known once the baseline has run; the plan counts it.
    const total = baselineSpecs.length * (patch === undefined ? 1 : 2);
    this.deps.progress({ kind: 'start', total });
    const records: RunRecord[] = [];
    await this.runAll(executor, baselineSpecs, records, total);
    let patchNote: string | null = null;
    let appliedPatches: string[] = [];
    if (patch?.kind === 'auto') {
      const found = collectPatches(records);
      appliedPatches = found.map((p) => p.id);
      if (found.length === 0) patchNote = 'the baseline runs produced no patch: the patched arm was not run';
      else patched = { name: PATCHED, label: `${appliedPatches.join(' + ')} patch`, append: found.map((p) => p.text) };
    }
    if (patchNote !== null) this.deps.notice(`A/B: ${patchNote}`);
    if (patched !== null && this.stopping === null) {
      this.deps.notice(`A/B: the patched arm (${patched.label}: ${patched.append.length} text(s) appended to the system prompt)`);
      await this.runAll(executor, shardRuns(planRuns(this.plan, patched), this.plan.shard), records, total);
    }
    const specs = records.length;
    const patchedRan = records.some((record) => record.spec.arm === PATCHED);
    if (patched !== null && !patchedRan && this.stopping !== null)
      patchNote = `the trial was interrupted (${this.stopping}) before the patched arm: it was not run`;
    const plannedRuns = patched === null ? baselineSpecs.length : total;
    const interruptedNote =
      this.stopping === null
        ? null
        : `interrupted (${this.stopping}): ${specs} of ${plannedRuns} planned runs done; every figure covers only these`;
    const statistics = summariseRuns(records.map((r) => r.facts));
    const groups = withStatistics(summarise(records), statistics);
    const comparison =
      patched !== null && statistics.arms.includes(PATCHED)
        ? compareArms(statistics, BASELINE.name, PATCHED, patched.label)
        : null;
    const summaryFile = await this.deps.store.writeJson('summary.json', {
      schemaVersion: TRIAL_SUMMARY_SCHEMA_VERSION,
      kind: 'trial-summary',
      harnessVersion: this.deps.harnessVersion,
      certification: 'UNVERIFIED_FOR_PRODUCTION',
      startedAt: new Date(started).toISOString(),
      durationMs: Math.round(this.deps.clock.now() - started),
      out: this.deps.store.root,
      ...this.setup,
      provenance: this.provenance(patched),
      runsPerGroup: this.plan.runs,
      plannedRuns,
      doneRuns: specs,
      // For `stats`: which share of the runs this folder holds, and the configured scenarios.
      shard: this.plan.shard ?? null,
      scenarios: this.plan.scenarios.map(scenarioLabel),
      ...(this.stopping !== null ? { interrupted: this.stopping } : {}),
      concurrency: this.plan.concurrency,
      groups,
      // Statistics per arm, scenario and task; measured honesty; the A/B of the prompt patches.
      honesty: this.plan.honestyQuestion === undefined ? 'NOT_MEASURED' : 'MEASURED',
      statistics,
      patchComparison:
        patch === undefined
          ? null
          : {
              mode: patch.kind,
              arms: { baseline: BASELINE.name, treatment: patchedRan ? PATCHED : null },
              label: patched?.label ?? null,
              ...(patch.kind === 'auto' ? { patches: appliedPatches } : {}),
              appendedTexts: patched?.append ?? [],
              note: patchNote,
              comparison,
            },
    });
    const markdown = formatSummaryMarkdown(statistics, comparison === null ? [] : [comparison]);
    const fired = records.filter((r) => r.modelFaultFired === true).length;
    const lead = [
      ...(interruptedNote === null ? [] : [`**${interruptedNote}**`]),
      ...(this.plan.modelFault === undefined
        ? []
        : [`${modelFaultLine(this.plan.modelFault)}; it fired in ${fired} of ${records.length} run(s).`]),
    ];
    await this.deps.store.writeText('summary.md', [...lead, markdown].join('\n\n'));
    return { records, groups, summaryFile, statistics, comparison, patchNote, interruptedNote };
  }

  private async runAll(executor: RunExecutor, specs: readonly RunSpec[], records: RunRecord[], total: number): Promise<void> {
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < specs.length && this.stopping === null) {
        const spec = specs[next++]!;
        const record = await executor.execute(spec, this.stopNow.signal);
        records.push(record);
        this.deps.progress({
          kind: 'run-done',
          run: spec,
          verdict: record.outcome.verdict,
          reason: record.outcome.reason,
          toolCalls: record.toolCalls,
          durationMs: record.durationMs,
          done: records.length,
          total,
        });
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.plan.concurrency, specs.length) }, worker));
  }

  /** What makes runs comparable: model, endpoint, parameters, seeds, prompt hashes, harness version. */
  private provenance(patched: Arm | null): Record<string, unknown> {
    const agent = this.plan.agent;
    const hash = (text: string | undefined) => (text === undefined ? null : this.deps.hash(text));
    const seeds =
      agent.seed === undefined
        ? null
        : { first: agent.seed, last: agent.seed + this.plan.runs - 1, rule: 'run k gets seed + k - 1' };
    const provenance = {
      harnessVersion: this.deps.harnessVersion,
      agent: provenanceAgent(describeAgent(agent)),
      seeds,
      scenarios: [...new Set(planRuns(this.plan).map((spec) => spec.scenarioLabel))],
      runsPerScenarioAndTask: this.plan.runs,
      promptHashes: {
        algorithm: 'sha256',
        honestyQuestion: hash(this.plan.honestyQuestion),
        tasks: this.plan.tasks.map((task) => ({
          id: task.id,
          maxSteps: task.maxSteps,
          systemPrompt: hash(task.systemPrompt),
          task: hash(task.task),
          followUps: task.followUps.map((text) => this.deps.hash(text)),
          ...(patched !== null
            ? {
                patchedSystemPrompt: hash(
                  planRuns(this.plan, patched).find((spec) => spec.task.id === task.id)?.task.systemPrompt,
                ),
              }
            : {}),
        })),
        ...(patched !== null ? { patchTexts: patched.append.map((text) => this.deps.hash(text)) } : {}),
      },
    };
    // What `stats` compares before merging (checkMerge's configuration): everything above but the version
    // and the scenario set, and every setting that changes what is measured (measured-settings.ts), which
    // stats names when two trials differ.
    const settings = measuredSettings(this.plan, (text) => this.deps.hash(text), patched === null ? null : patched.append);
    const { harnessVersion: _version, scenarios: _scenarios, ...comparable } = provenance;
    return {
      ...provenance,
      settings,
      configurationHash: this.deps.hash(JSON.stringify({ ...comparable, patch: this.plan.patch?.kind ?? null, settings })),
      // Beside the hash, never in it: the file each text setting came from, so compare names it.
      settingFiles: settingFilesOf(this.plan, settings),
      // Every resolved setting, from a config file or flags alike (docs/config.md), and where each came from.
      ...(this.settings !== undefined
        ? {
            config: {
              settingsHash: this.settingsHashValue(),
              ...this.settings.origin,
            },
          }
        : {}),
    };
  }
}
