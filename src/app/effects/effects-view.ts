/**
 * Takes a snapshot of the effects view: calls the read tool on the upstream directly — never through the
 * agent's call pipeline, so the call is not shown to the agent, not faulted and not counted — and reads
 * its answer into a bounded snapshot. Every way the call can fail (no answer, a JSON-RPC error, an
 * `isError` answer, records that cannot be read) is a reason, never a throw: the effects are then
 * unknown and the run is unaffected.
 */
import { readAnswerItems } from '../../domain/effects/answer-records.js';
import type { EffectsViewSettings } from '../../domain/effects/effects-settings.js';
import { takeSnapshot, type SnapshotResult } from '../../domain/effects/snapshot.js';
import { escapeTerminalText } from '../../domain/terminal-text.js';
import type { UpstreamCallOutcome, UpstreamSide } from '../../ports/upstream-side.port.js';

/** How long a snapshot waits for the read tool's answer. */
export const EFFECTS_TIMEOUT_MS = 30_000;

function short(text: string): string {
  const safe = escapeTerminalText(text);
  return safe.length > 200 ? `${safe.slice(0, 200)}…` : safe;
}

function failure(tool: string, outcome: Exclude<UpstreamCallOutcome, { kind: 'result' }>): string {
  const name = escapeTerminalText(tool);
  switch (outcome.kind) {
    case 'protocol-error':
      return `the effects tool ${name} answered a JSON-RPC error ${outcome.code}: ${short(outcome.message)}`;
    case 'timeout':
      return `the effects tool ${name} did not answer within ${outcome.afterMs} ms`;
    default:
      return `the effects tool ${name} gave no answer (${outcome.kind}): ${short(outcome.detail)}`;
  }
}

/** One snapshot of the view, or the reason there is none. */
export async function snapshotEffects(
  upstream: Pick<UpstreamSide, 'callTool'>,
  view: EffectsViewSettings,
  timeoutMs = EFFECTS_TIMEOUT_MS,
): Promise<SnapshotResult> {
  const outcome = await upstream.callTool({ name: view.tool, arguments: view.arguments }, { timeoutMs });
  if (outcome.kind !== 'result') return { ok: false, reason: failure(view.tool, outcome) };
  const read = readAnswerItems(outcome.result, view.path);
  if (!read.ok) return { ok: false, reason: `the effects tool ${escapeTerminalText(view.tool)}: ${read.reason}` };
  return takeSnapshot(read.value, view.keyFields);
}
