/**
 * The `trial` use case: every run of the plan, at most `concurrency` at a time, each through
 * {@link RunExecutor}; progress as runs end; at the end `summary.json` and the table.
 */
import { RunExecutor, type RunRecord } from './run-executor.js';
import type { TrialDeps } from './trial-deps.js';
import { planRuns, scenarioLabel, shardRuns, type TrialPlan } from './trial-plan.js';
import { summarise, type GroupSummary } from './trial-summary.js';

export interface TrialResult {
  records: RunRecord[];
  groups: GroupSummary[];
  summaryFile: string;
}

export class TrialService {
  private stopping: string | null = null;

  constructor(
    private readonly deps: TrialDeps,
    private readonly plan: TrialPlan,
    /** What the summary records about the setup (agent, endpoint, upstream), already free of secrets. */
    private readonly setup: Record<string, unknown>,
  ) {}

  /** No new run starts; the runs in progress finish and the summary covers the runs done. */
  stop(reason: string): void {
    this.stopping ??= reason;
  }

  /**
   * Starts the upstream once before any run (connect, list its tools, close): an upstream that cannot
   * start is bad input — one line and exit 1 — not N runs NOT_TESTED. Rejects with the one-line reason.
   */
  async checkUpstream(): Promise<void> {
    const spec = planRuns(this.plan)[0]!;
    const upstream = await this.deps.createUpstream({ id: 'check', dir: this.deps.store.root }, spec);
    try {
      await upstream.connect();
      await upstream.listTools();
    } catch (error) {
      throw new Error(`upstream did not start: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      await upstream.close();
    }
  }

  async run(): Promise<TrialResult> {
    const specs = shardRuns(planRuns(this.plan), this.plan.shard);
    const executor = new RunExecutor(this.deps, this.plan);
    const started = this.deps.clock.now();
    const records: RunRecord[] = [];
    this.deps.progress({ kind: 'start', total: specs.length });
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < specs.length && this.stopping === null) {
        const spec = specs[next++]!;
        const record = await executor.execute(spec);
        records.push(record);
        this.deps.progress({
          kind: 'run-done', run: spec, verdict: record.outcome.verdict, reason: record.outcome.reason,
          toolCalls: record.toolCalls, durationMs: record.durationMs, done: records.length, total: specs.length,
        });
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.plan.concurrency, specs.length) }, worker));
    const groups = summarise(records);
    const summaryFile = await this.deps.store.writeJson('summary.json', {
      kind: 'trial-summary',
      harnessVersion: this.deps.harnessVersion,
      certification: 'UNVERIFIED_FOR_PRODUCTION',
      startedAt: new Date(started).toISOString(),
      durationMs: Math.round(this.deps.clock.now() - started),
      out: this.deps.store.root,
      ...this.setup,
      runsPerGroup: this.plan.runs,
      plannedRuns: specs.length,
      // Issue 14 (`stats`): which share of the runs this folder holds, and the configured scenarios.
      shard: this.plan.shard ?? null,
      scenarios: this.plan.scenarios.map(scenarioLabel),
      ...(this.stopping !== null ? { interrupted: this.stopping } : {}),
      concurrency: this.plan.concurrency,
      groups,
      // Issue 14: statistics per group, measured honesty, and the A/B of the prompt patches.
      statistics: null,
      honesty: 'NOT_MEASURED',
      patchComparison: null,
    });
    return { records, groups, summaryFile };
  }
}
