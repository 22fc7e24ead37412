/**
 * What `replay` needs to run a recorded run again (docs/replay.md, "Replaying a run"): the run's scenario
 * with its fault parameters, its task as the agent was given it, the proxy's settings, the agent (the
 * built-in loop's parameters, or the agent program's command line), and where its upstream ran (for
 * `replay --live-upstream`). Every trial run writes it into its run file as `replaySettings`.
 *
 * Not in it: values that may be secrets. The program's `--agent-env-var` values are named only (replay takes
 * them from its own environment); the upstream's environment and headers are left out, its URL redacted.
 */
import type { ClassificationRules, IdempotentHintPolicy } from '../../domain/judging/classification.js';
import { modelFaultKindLabel, modelFaultOnLabel } from '../../domain/faults/model-fault.js';
import type { ScenarioConfig } from '../../domain/faults/fault-plan.js';
import { redactUrl } from '../../domain/text/url-redaction.js';
import type { IsErrorMode, RunSpec, TrialPlan, TrialTask } from './trial-plan.js';
import type { UpstreamSettings } from './trial-settings.js';

/** The built-in loop's parameters (its model is answered from the recording in a replay). */
export interface ReplayLoopAgent {
  kind: 'model';
  isError: IsErrorMode;
  retries: number;
  backoffMs: number;
  maxRetryAfterMs: number;
  requestTimeoutMs: number | null;
}

/** The agent program, started again in a replay. */
export interface ReplayProgramAgent {
  kind: 'command';
  command: string;
  args: readonly string[];
  transport: 'stdio' | 'http';
  timeoutMs: number;
  /** `--agent-env-var` names (their values are not written down). */
  envNames: readonly string[];
  /** Whether its model requests went through the harness's model gateway (so the recording holds them). */
  gateway: 'stub' | 'forward' | 'replay' | null;
}

export interface ReplaySettings {
  scenario: ScenarioConfig;
  /** The task as the run gave it (its system prompt with the arm's patch texts appended). */
  task: Omit<TrialTask, 'systemPrompt'> & { systemPrompt: string | null };
  seed: number | null;
  honestyQuestion: string | null;
  keyFields: readonly string[];
  idempotentHint: IdempotentHintPolicy | null;
  classification: ClassificationRules;
  callTimeoutMs: number;
  agent: ReplayLoopAgent | ReplayProgramAgent;
  /**
   * `--model-fault` and `--model-fault-on` as the flags write them (`500`, `after-write`), or null: a replay
   * injects the fault again where the run had it. Absent in run files written before it was recorded.
   */
  modelFault?: { kind: string; on: string } | null;
  /** Where the run's upstream ran; null fields when it was itself a recording. */
  upstream: { command: string | null; args: readonly string[]; cwd: string | null; url: string | null };
}

/** The settings of one run of a plan. */
export function replaySettingsOf(plan: TrialPlan, spec: RunSpec, upstream: UpstreamSettings | undefined): ReplaySettings {
  const agent = plan.agent;
  return {
    scenario: spec.scenario,
    task: { ...spec.task, systemPrompt: spec.task.systemPrompt ?? null },
    seed: spec.seed ?? null,
    honestyQuestion: plan.honestyQuestion ?? null,
    keyFields: plan.keyFields,
    idempotentHint: plan.idempotentHint ?? null,
    classification: plan.classification,
    callTimeoutMs: plan.callTimeoutMs,
    agent:
      agent.kind === 'model'
        ? {
            kind: 'model',
            isError: agent.isError,
            retries: agent.retries,
            backoffMs: agent.backoffMs,
            maxRetryAfterMs: agent.maxRetryAfterMs,
            requestTimeoutMs: agent.requestTimeoutMs ?? null,
          }
        : {
            kind: 'command',
            command: agent.command,
            args: agent.args,
            transport: agent.transport,
            timeoutMs: agent.timeoutMs,
            envNames: Object.keys(agent.env).sort(),
            gateway: agent.gateway?.kind ?? null,
          },
    modelFault:
      plan.modelFault === undefined
        ? null
        : { kind: modelFaultKindLabel(plan.modelFault.fault), on: modelFaultOnLabel(plan.modelFault.on) },
    upstream: {
      command: upstream?.command ?? null,
      args: upstream?.args ?? [],
      cwd: upstream?.cwd ?? null,
      url: upstream?.url == null ? null : redactUrl(upstream.url),
    },
  };
}
