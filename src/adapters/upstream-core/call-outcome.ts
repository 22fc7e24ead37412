/**
 * How one forwarded request ended, for both upstream transports. The raw reply recorded by the transport
 * decides first: a result that arrived is a `result` even when the SDK gave up on it a moment before (a
 * timeout or a cancel racing the answer), because the upstream did execute and its answer is in hand;
 * only a JSON-RPC error that really arrived from the upstream is a `protocol-error`; the SDK's own errors
 * (-32000 connection closed, -32001 timeout) never are, whatever code they carry. A request that got no
 * reply ends as cancelled, not sent, timed out, or lost in the way the transport explains.
 */
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { UpstreamCallOutcome } from '../../ports/upstream-side.port.js';
import type { RawReply } from './incoming-message.js';
import { mcpErrorMessage, oneLine } from './outcome-text.js';

/** How the SDK request settled. */
export type SettledRequest = { ok: true; result: Record<string, unknown> } | { ok: false; error: unknown };

/** Everything known about one request once it settled. */
export interface EndedRequest {
  settled: SettledRequest;
  /** The reply exactly as the upstream sent it, if one arrived. */
  reply: RawReply | undefined;
  /** True when the caller's signal was aborted. */
  aborted: boolean;
  timeoutMs: number;
  /** Why the connection lost the answer (the transport knows: a closed pipe, a broken HTTP exchange …). */
  lostOutcome: (error: unknown) => UpstreamCallOutcome;
}

/** The outcome of one request. */
export function outcomeOfRequest(ended: EndedRequest): UpstreamCallOutcome {
  const { reply, settled } = ended;
  if (reply !== undefined) return outcomeOfReply(reply);
  if (settled.ok) return { kind: 'result', result: settled.result };
  const { error } = settled;
  if (ended.aborted) return { kind: 'connection-lost', detail: 'the call was cancelled before the upstream answered' };
  // JSON.stringify gives up on very deep arguments before a single byte is written: nothing was sent.
  if (error instanceof RangeError) {
    return {
      kind: 'not-sent',
      detail: `the request could not be serialised (${oneLine(error.message)}); arguments nested too deeply?`,
    };
  }
  if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) return { kind: 'timeout', afterMs: ended.timeoutMs };
  return ended.lostOutcome(error);
}

/** The outcome of a reply that arrived (live, or replayed from a recording). */
export function outcomeOfReply(reply: RawReply): UpstreamCallOutcome {
  if (reply.kind === 'result') return { kind: 'result', result: reply.result };
  if (reply.kind === 'error') return { kind: 'protocol-error', ...reply.error };
  return { kind: 'invalid-answer', detail: reply.detail };
}

/** A lost answer when the transport knows nothing more: the SDK's message, e.g. `Connection closed`. */
export function connectionLost(error: unknown): UpstreamCallOutcome {
  return { kind: 'connection-lost', detail: oneLine(mcpErrorMessage(error)) };
}
