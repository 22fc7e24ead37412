/**
 * The one-line reason shown when the HTTP upstream could not be connected to. Names the URL without
 * credentials, query or fragment, and never a header value.
 */
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { mcpErrorMessage, formatDuration, oneLine } from '../upstream-core/outcome-text.js';
import { describeStatus, type ExchangeFailure } from './exchange-failure.js';

/** How one connection attempt (Streamable HTTP, or the legacy SSE fallback) failed. */
export interface FailedAttempt {
  /** What the attempt rejected with. */
  error: unknown;
  /** The first failed exchange of the attempt, if any. */
  failure: ExchangeFailure | undefined;
  /** True when the transport started (legacy SSE: the endpoint event arrived), so the server speaks it. */
  started: boolean;
  /** True when the attempt ran out of time. */
  timedOut: boolean;
}

/** Everything known when `connect()` failed. */
export interface ConnectFailure {
  url: URL;
  connectTimeoutMs: number;
  streamable: FailedAttempt;
  /** The legacy SSE attempt, when the Streamable HTTP one asked for the fallback. */
  sse?: FailedAttempt;
}

/** `http://127.0.0.1:3001/mcp`: scheme, host, port and path only. */
export function safeUrl(url: URL): string {
  return `${url.origin}${url.pathname}`;
}

/** Why the URL cannot be used at all (not http/https, or credentials in it), or undefined. */
export function unusableUrl(url: URL): string | undefined {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return `upstream URL must start with http:// or https://, got ${url.protocol}//`;
  }
  if (url.username !== '' || url.password !== '') {
    return 'upstream URL must not contain a user name or password; send credentials as a header instead';
  }
  return undefined;
}

/** One line, e.g. `upstream HTTP 401 Unauthorized at http://127.0.0.1:3001/mcp`. */
export function describeConnectFailure(failure: ConnectFailure): string {
  const { sse } = failure;
  if (sse?.started) return oneLine(describeAttempt(sse, failure), 500);
  const primary = describeAttempt(failure.streamable, failure);
  if (sse === undefined) return oneLine(primary, 500);
  return oneLine(`${primary} (and no legacy SSE endpoint there either: ${shortReason(sse)})`, 500);
}

/** True when a failed Streamable HTTP attempt means "try the legacy SSE transport" (a 4xx but 401/403). */
export function wantsSseFallback(attempt: FailedAttempt): boolean {
  const { failure } = attempt;
  if (failure?.kind !== 'http-status') return false;
  return failure.status >= 400 && failure.status < 500 && failure.status !== 401 && failure.status !== 403;
}

function describeAttempt(attempt: FailedAttempt, context: ConnectFailure): string {
  const where = safeUrl(context.url);
  const { error, failure } = attempt;
  const timedOut = error instanceof McpError && error.code === ErrorCode.RequestTimeout;
  if (attempt.timedOut || timedOut) {
    return `upstream did not answer initialize within ${formatDuration(context.connectTimeoutMs)} at ${where}`;
  }
  switch (failure?.kind) {
    case 'http-status':
      return `upstream ${describeStatus(failure)} at ${where}`;
    case 'unreachable':
      return `upstream not reachable at ${where} (${failure.code})`;
    case 'broken':
    case 'ended':
    case 'too-large':
      return `upstream connection failed during the MCP handshake at ${where} (${failure.text})`;
    default:
      return `upstream MCP handshake failed at ${where}: ${mcpErrorMessage(error)}`;
  }
}

function shortReason(attempt: FailedAttempt): string {
  const { failure } = attempt;
  if (failure?.kind === 'http-status') return describeStatus(failure);
  if (failure !== undefined) return failure.kind === 'unreachable' ? failure.code : failure.text;
  return mcpErrorMessage(attempt.error);
}
