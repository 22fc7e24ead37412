/**
 * Maps a request that did not end with a usable result to an `UpstreamCallOutcome`. The raw reply and
 * the SDK's own errors are read exactly as on stdio; on top of that the HTTP failures keep their
 * meaning: a connection that never opened means the call was not sent (unavailable), a broken
 * connection, a stream that ended early or an HTTP error status mean it may have run (connection-lost),
 * and an answer over the size limit is too-large, as on stdio.
 */
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { UpstreamCallOutcome } from '../../ports/upstream-side.port.js';
import { outcomeOfFailure } from '../stdio-upstream/call-outcome.js';
import type { RawReply } from '../stdio-upstream/incoming-message.js';
import { describeFailure, HttpExchangeError, type ExchangeFailure } from './exchange-failure.js';

/** Everything known about a request that the SDK rejected. */
export interface FailedHttpRequest {
  error: unknown;
  reply: RawReply | undefined;
  /** True when the caller's signal was aborted. */
  aborted: boolean;
  timeoutMs: number;
  /** Why the upstream became unusable, if it did (the SDK then rejects pending requests as closed). */
  unusable: ExchangeFailure | undefined;
}

/** The outcome of a request that the SDK rejected. */
export function outcomeOfHttpFailure(failed: FailedHttpRequest): UpstreamCallOutcome {
  const { error, reply, unusable } = failed;
  if (reply === undefined && error instanceof HttpExchangeError) return outcomeOfExchange(error.failure);
  const closed = error instanceof McpError && error.code === ErrorCode.ConnectionClosed;
  if (reply === undefined && closed && !failed.aborted && unusable !== undefined) return outcomeOfExchange(unusable);
  return outcomeOfFailure({ error, reply, aborted: failed.aborted, timeoutMs: failed.timeoutMs, closeCause: undefined });
}

/** What one failed exchange means for the call that was in it. */
function outcomeOfExchange(failure: ExchangeFailure): UpstreamCallOutcome {
  switch (failure.kind) {
    case 'unreachable':
      return { kind: 'unavailable', detail: `the upstream is not reachable (${failure.text}); the call was not sent` };
    case 'broken':
      return { kind: 'connection-lost', detail: `the connection to the upstream broke before it answered (${failure.text})` };
    case 'ended':
      return { kind: 'connection-lost', detail: failure.text };
    case 'too-large':
      return { kind: 'too-large', detail: failure.text };
    case 'http-status':
      return { kind: 'connection-lost', detail: `the upstream answered the call with ${describeFailure(failure)}` };
  }
}
