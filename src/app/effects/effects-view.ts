/**
 * Takes a snapshot of the effects view. A tool view calls the read tool on the upstream directly — never
 * through the agent's call pipeline, so the call is not shown to the agent, not faulted and not counted;
 * a command view runs the program that prints the records. Either answer is read into a bounded snapshot
 * by the one reader (`answer-records.ts`). Every way it can fail (no answer, a JSON-RPC error, an
 * `isError` answer, a command not found, a non-zero exit, records that cannot be read) is a reason, never
 * a throw: the effects are then unknown and the run is unaffected.
 */
import { readAnswerItems } from '../../domain/effects/answer-records.js';
import type { CommandView, EffectsViewSettings, ToolView } from '../../domain/effects/effects-settings.js';
import { SNAPSHOT_MAX_BYTES, takeSnapshot, type SnapshotResult } from '../../domain/effects/snapshot.js';
import { escapeTerminalText } from '../../domain/text/terminal-text.js';
import type { RecordsCommand } from '../../ports/records-command.port.js';
import type { UpstreamCallOutcome, UpstreamSide } from '../../ports/upstream-side.port.js';

/** How long a snapshot waits for the read tool's answer or the command's exit. */
export const EFFECTS_TIMEOUT_MS = 30_000;

/** What a view is read through: the upstream (a tool view), the command runner and its folder (a command view). */
export interface EffectsReaders {
  upstream: Pick<UpstreamSide, 'callTool'>;
  command?: RecordsCommand;
  /** The folder a command view runs in. */
  cwd?: string;
}

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

/** One snapshot of a tool view through the upstream, or the reason there is none. */
export async function snapshotEffects(
  upstream: Pick<UpstreamSide, 'callTool'>,
  view: ToolView,
  timeoutMs = EFFECTS_TIMEOUT_MS,
): Promise<SnapshotResult> {
  const outcome = await upstream.callTool({ name: view.tool, arguments: view.arguments }, { timeoutMs });
  if (outcome.kind !== 'result') return { ok: false, reason: failure(view.tool, outcome) };
  const read = readAnswerItems(outcome.result, view.path);
  if (!read.ok) return { ok: false, reason: `the effects tool ${escapeTerminalText(view.tool)}: ${read.reason}` };
  return takeSnapshot(read.value, view.keyFields);
}

/** One snapshot of a command view: its standard output read as a tool's text answer (empty: zero records). */
export async function snapshotCommand(
  runner: RecordsCommand,
  view: CommandView,
  cwd: string,
  timeoutMs = EFFECTS_TIMEOUT_MS,
): Promise<SnapshotResult> {
  const outcome = await runner.run({ command: view.command, args: view.args, cwd, timeoutMs, maxBytes: SNAPSHOT_MAX_BYTES });
  if (!outcome.ok) return { ok: false, reason: outcome.reason };
  const read = readAnswerItems({ content: [{ type: 'text', text: outcome.stdout }] }, view.path);
  if (!read.ok) return { ok: false, reason: `the effects command ${escapeTerminalText(view.command)}: ${read.reason}` };
  return takeSnapshot(read.value, view.keyFields);
}

/** A snapshot of either view. */
export function snapshotView(
  readers: EffectsReaders,
  view: EffectsViewSettings,
  timeoutMs = EFFECTS_TIMEOUT_MS,
): Promise<SnapshotResult> {
  if (view.command === undefined) return snapshotEffects(readers.upstream, view, timeoutMs);
  if (readers.command === undefined || readers.cwd === undefined)
    return Promise.resolve({ ok: false, reason: `the effects command ${escapeTerminalText(view.command)} has no runner here` });
  return snapshotCommand(readers.command, view, readers.cwd, timeoutMs);
}
