/**
 * Maps a failed SDK request to an `UpstreamCallOutcome`. The raw reply recorded by the transport decides
 * first: only a JSON-RPC error that really arrived from the upstream is a `protocol-error`; the SDK's own
 * errors (-32000 connection closed, -32001 timeout) never are, whatever code they carry.
 */
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { UpstreamCallOutcome } from '../../ports/upstream-side.port.js';
import type { RawReply } from './incoming-message.js';
import type { CloseCause } from './process-transport.js';
import { errorMessage, oneLine } from './outcome-text.js';

/** Everything known about a request that did not resolve with a result. */
export interface FailedRequest {
  error: unknown;
  reply: RawReply | undefined;
  /** True when the caller's signal was aborted. */
  aborted: boolean;
  timeoutMs: number;
  closeCause: CloseCause | undefined;
}

/** The outcome of a request that the SDK rejected. */
export function outcomeOfFailure(failed: FailedRequest): UpstreamCallOutcome {
  const { reply } = failed;
  if (reply?.kind === 'error') return { kind: 'protocol-error', ...reply.error };
  if (reply?.kind === 'invalid') return { kind: 'invalid-answer', detail: reply.detail };
  if (reply?.kind === 'result') {
    return { kind: 'invalid-answer', detail: `the result was refused: ${oneLine(errorMessage(failed.error))}` };
  }
  if (failed.aborted) return { kind: 'connection-lost', detail: 'the call was cancelled before the upstream answered' };
  // JSON.stringify gives up on very deep arguments before a single byte is written: nothing was sent.
  if (failed.error instanceof RangeError) {
    return { kind: 'not-sent', detail: `the request could not be serialised (${oneLine(failed.error.message)}); arguments nested too deeply?` };
  }
  if (failed.error instanceof McpError && failed.error.code === ErrorCode.RequestTimeout) {
    return { kind: 'timeout', afterMs: failed.timeoutMs };
  }
  return lostOutcome(failed.closeCause, failed.error);
}

function lostOutcome(cause: CloseCause | undefined, error: unknown): UpstreamCallOutcome {
  switch (cause?.kind) {
    case 'too-large':
      return { kind: 'too-large', detail: cause.detail };
    case 'eof':
      return { kind: 'connection-lost', detail: 'the upstream closed its stdout (exited or crashed) before answering' };
    case 'stdout-error':
      return { kind: 'connection-lost', detail: `reading the upstream stdout failed: ${cause.detail}` };
    case 'local':
      return { kind: 'connection-lost', detail: 'the connection was closed before the upstream answered' };
    default:
      return { kind: 'connection-lost', detail: oneLine(errorMessage(error)) };
  }
}
