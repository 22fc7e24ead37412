/**
 * The trial's agent described once, as the files may show it: no key, no value of an agent variable, every
 * URL redacted here (user info and query values `***`, `src/domain/text/url-redaction.ts`). The three places
 * that record the agent take their shape from it: the summary's `setup.agent` (`setupAgent`), its
 * `provenance.agent` (`provenanceAgent`), a run file's `agent` and `modelGateway` (`runAgent`,
 * `gatewayRecord`); `provenance.settings` reads it too (`measured-settings.ts`).
 */
import { redactUrl } from '../../domain/text/url-redaction.js';
import type { CommandAgent, IsErrorMode, ModelAgent, RunSpec, TrialAgent } from './trial-plan.js';

/** The model gateway of an agent program's runs, as its run file's `modelGateway` writes it. */
export type GatewayDescription =
  | { mode: 'stub'; script: string; model: string }
  | { mode: 'forward'; baseUrl: string; model: string }
  | { mode: 'replay'; recording: string; model: string };

export type AgentDescription = ModelAgentDescription | CommandAgentDescription;

/** The built-in loop. */
export interface ModelAgentDescription {
  kind: 'model';
  model: string;
  /** Redacted. */
  baseUrl: string;
  temperature: number | null;
  seed: number | null;
  isError: IsErrorMode;
  modelRetries: number;
}

/** The user's agent program. */
export interface CommandAgentDescription {
  kind: 'command';
  command: string;
  args: readonly string[];
  transport: 'stdio' | 'http';
  timeoutMs: number;
  seed: number | null;
  /** `--agent-env-var` names, sorted: a value may be a secret (its hash is in `provenance.settings`). */
  envVars: string[];
  gateway: GatewayDescription | null;
}

export function describeAgent(agent: ModelAgent): ModelAgentDescription;
export function describeAgent(agent: CommandAgent): CommandAgentDescription;
export function describeAgent(agent: TrialAgent): AgentDescription;
export function describeAgent(agent: TrialAgent): AgentDescription {
  if (agent.kind === 'model')
    return {
      kind: 'model',
      model: agent.model,
      baseUrl: redactUrl(agent.baseUrl),
      temperature: agent.temperature ?? null,
      seed: agent.seed ?? null,
      isError: agent.isError,
      modelRetries: agent.retries,
    };
  const gateway = agent.gateway;
  return {
    kind: 'command',
    command: agent.command,
    args: agent.args,
    transport: agent.transport,
    timeoutMs: agent.timeoutMs,
    seed: agent.seed ?? null,
    envVars: Object.keys(agent.env).sort(),
    gateway:
      gateway === undefined
        ? null
        : gateway.kind === 'replay'
          ? { mode: 'replay', recording: gateway.file, model: gateway.model }
          : gateway.kind === 'stub'
            ? { mode: 'stub', script: gateway.file, model: gateway.model }
            : { mode: 'forward', baseUrl: redactUrl(gateway.baseUrl), model: gateway.model },
  };
}

/** summary.json's `setup.agent`: the whole agent (the forward endpoint named, the stub script not). */
export function setupAgent(agent: AgentDescription): Record<string, unknown> {
  if (agent.kind === 'model') {
    const { kind, model, baseUrl, temperature, seed, isError, modelRetries } = agent;
    return { kind, model, baseUrl, temperature, seed, isError, modelRetries };
  }
  const { kind, command, args, transport, timeoutMs, seed, envVars, gateway } = agent;
  return {
    kind,
    command,
    args,
    transport,
    timeoutMs,
    seed,
    envVars,
    ...(gateway?.mode === 'forward' ? { modelGateway: gatewayRecord(gateway) } : {}),
  };
}

/** summary.json's `provenance.agent`: what makes runs comparable (the seeds are beside it). */
export function provenanceAgent(agent: AgentDescription): Record<string, unknown> {
  if (agent.kind === 'model') {
    const { kind, model, baseUrl, temperature, isError, modelRetries } = agent;
    return { kind, model, baseUrl, parameters: { temperature, isError, modelRetries } };
  }
  const { kind, command, args, transport } = agent;
  return { kind, command, args, transport };
}

/** A run file's `agent`: the run's own seed and (built-in loop) the task's step budget. */
export function runAgent(agent: AgentDescription, spec: RunSpec): Record<string, unknown> {
  const seed = spec.seed ?? null;
  if (agent.kind === 'model') {
    const { kind, model, baseUrl, temperature, isError } = agent;
    return { kind, model, baseUrl, temperature, seed, isError, maxSteps: spec.task.maxSteps };
  }
  const { kind, command, args, transport, timeoutMs } = agent;
  return { kind, command, args, transport, timeoutMs, seed };
}

/** A run file's `modelGateway`: the mode, the script (stub), the recording (replay) or the endpoint (forward), the model. */
export function gatewayRecord(gateway: GatewayDescription): Record<string, string> {
  return { ...gateway };
}
