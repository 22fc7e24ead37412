/** Parts of a run file (`runs/<id>/run.json`) read from the run's plan and its session report. */
import type { RepeatAttribution } from '../../domain/attribution.js';
import { redactUrl } from '../../domain/url-redaction.js';
import { callsSeen, type SessionReport } from './run-outcome.js';
import type { CommandAgent, ForwardGateway, ModelAgent, ReplayGateway, RunSpec, StubGateway } from './trial-plan.js';

/** The run file's `modelGateway`: the mode, the script (stub) or the endpoint (forward, redacted), the model. */
export function gatewayRecord(gateway: StubGateway | ForwardGateway | ReplayGateway): Record<string, string> {
  if (gateway.kind === 'replay') return { mode: 'replay', recording: gateway.file, model: gateway.model };
  return gateway.kind === 'stub'
    ? { mode: 'stub', script: gateway.file, model: gateway.model }
    : { mode: 'forward', baseUrl: redactUrl(gateway.baseUrl), model: gateway.model };
}

/** Tool calls an agent program made, from its report (calls per class); the harness did not see its conversation. */
export function toolCallsOf(report: SessionReport | null): number {
  return callsSeen(report);
}

/** The report's `attribution[]`, or none when the run has no report or no repeat. */
export function attributionOf(report: SessionReport | null): RepeatAttribution[] {
  const list = (report?.report as { attribution?: unknown } | undefined)?.attribution;
  return Array.isArray(list) ? (list as RepeatAttribution[]) : [];
}

export function patchTextsOf(report: SessionReport | null): Array<{ id: string; text: string }> {
  return (report?.patches ?? []).flatMap((p) => {
    const { id, text } = p as { id?: unknown; text?: unknown };
    return typeof id === 'string' && typeof text === 'string' ? [{ id, text }] : [];
  });
}

export function describeAgent(agent: ModelAgent | CommandAgent, spec: RunSpec): Record<string, unknown> {
  if (agent.kind === 'model') {
    return {
      kind: 'model',
      model: agent.model,
      baseUrl: redactUrl(agent.baseUrl),
      temperature: agent.temperature ?? null,
      seed: spec.seed ?? null,
      isError: agent.isError,
      maxSteps: spec.task.maxSteps,
    };
  }
  return {
    kind: 'command',
    command: agent.command,
    args: agent.args,
    transport: agent.transport,
    timeoutMs: agent.timeoutMs,
    seed: spec.seed ?? null,
  };
}
