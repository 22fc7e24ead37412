/**
 * The texts the upstream adapters show for outcomes and exits. Free of the MCP SDK, so the stdio adapter
 * can use them before it has loaded the SDK.
 */
import { errorMessage } from '../../domain/error-message.js';
import type { UpstreamCallOutcome } from '../../ports/upstream-side.port.js';

/** One line describing an outcome that is not a result (for errors thrown at start-up). */
export function describeOutcome(outcome: Exclude<UpstreamCallOutcome, { kind: 'result' }>): string {
  switch (outcome.kind) {
    case 'protocol-error':
      return `JSON-RPC error ${outcome.code}: ${outcome.message}`;
    case 'timeout':
      return `no answer within ${outcome.afterMs} ms`;
    default:
      return outcome.detail;
  }
}

/** The message of any thrown value, with the SDK's "MCP error N: " prefix removed. */
export function mcpErrorMessage(error: unknown): string {
  return errorMessage(error).replace(/^MCP error -?\d+: /, '');
}

/** Collapses a text to one line of at most `maxChars` characters. */
export function oneLine(text: string, maxChars = 300): string {
  const flat = text.replace(/\s*\r?\n\s*/g, ' ').trim();
  return flat.length > maxChars ? `${flat.slice(0, maxChars - 1)}…` : flat;
}

/** `exit code 1` or `signal SIGKILL`. */
export function describeExit(exit: { code: number | null; signal: string | null }): string {
  if (exit.code !== null) return `exit code ${exit.code}`;
  return exit.signal !== null ? `signal ${exit.signal}` : 'no exit status';
}

/** `60 s` for whole seconds, otherwise `1500 ms`. */
export function formatDuration(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}
