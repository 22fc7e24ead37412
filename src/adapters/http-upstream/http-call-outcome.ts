/**
 * Why a request over HTTP lost its answer (the shared mapping in `../upstream-core/call-outcome.ts` has
 * already handled replies, cancels and timeouts). The HTTP failures keep their meaning: a connection that
 * never opened means the call was not sent (unavailable); a broken connection, a stream that ended early
 * or an HTTP error status mean it may have run (connection-lost); an answer over the size limit is
 * too-large, as on stdio.
 */
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { UpstreamCallOutcome } from '../../ports/upstream-side.port.js';
import { connectionLost } from '../upstream-core/call-outcome.js';
import { describeFailure, HttpExchangeError, type ExchangeFailure } from './exchange-failure.js';

/**
 * The outcome of a request that ended with `error` and no reply. `unusable` is why the upstream became
 * unusable, if it did (the SDK then rejects the pending requests as closed).
 */
export function httpLostOutcome(error: unknown, unusable: ExchangeFailure | undefined): UpstreamCallOutcome {
  if (error instanceof HttpExchangeError) return outcomeOfExchange(error.failure);
  const closed = error instanceof McpError && error.code === ErrorCode.ConnectionClosed;
  if (closed && unusable !== undefined) return outcomeOfExchange(unusable);
  return connectionLost(error);
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
