/**
 * How one HTTP exchange with the upstream failed, told apart by what it means for a forwarded call:
 * a connection that never opened (nothing was sent), a connection that broke or a response stream that
 * ended before the answer (the call may have run), an answer over the size limit, or an HTTP error status.
 */
import { errorMessage } from '../../domain/error-message.js';
import { STATUS_CODES } from 'node:http';

/** One failed exchange. */
export type ExchangeFailure =
  /** The TCP connection could not be opened (refused, unknown host …): the request never left. */
  | { kind: 'unreachable'; code: string; text: string }
  /** The connection broke while the request or its answer was under way. */
  | { kind: 'broken'; text: string }
  /** The upstream closed a response stream without answering the request(s) sent on it. */
  | { kind: 'ended'; text: string }
  /** The upstream sent a message over the size limit: the proxy stopped reading and cuts the upstream. */
  | { kind: 'too-large'; text: string }
  /** The upstream answered with an HTTP error status. `sessionGone` is a 404 for an existing session. */
  | { kind: 'http-status'; status: number; statusText: string; sessionGone: boolean };

/** Thrown by the adapter's fetch in place of the SDK's own error, so the failure keeps its meaning. */
export class HttpExchangeError extends Error {
  constructor(readonly failure: ExchangeFailure) {
    super(describeFailure(failure));
    this.name = 'HttpExchangeError';
  }
}

/** Error codes that mean the connection was never opened. */
const UNREACHABLE: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'DNS lookup failed',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
};

/** Error codes of a connection that broke once open. */
const BROKEN: Readonly<Record<string, string>> = {
  ECONNRESET: 'connection reset',
  EPIPE: 'connection reset',
  UND_ERR_SOCKET: 'the upstream closed the connection',
  UND_ERR_CLOSED: 'the upstream closed the connection',
};

/** Classifies an error thrown by `fetch` or by reading a response body. */
export function networkFailure(error: unknown): ExchangeFailure {
  // fetch refuses some ports outright (the fetch standard's "bad port" list, e.g. 1, 25, 6000).
  if (innermostMessage(error) === 'bad port') return { kind: 'unreachable', code: 'bad port', text: 'fetch refuses this port' };
  const code = errorCode(error);
  if (code !== undefined && UNREACHABLE[code] !== undefined) return { kind: 'unreachable', code, text: UNREACHABLE[code] };
  if (code !== undefined && BROKEN[code] !== undefined) return { kind: 'broken', text: BROKEN[code] };
  return { kind: 'broken', text: innermostMessage(error) };
}

/** A message over `maxMessageBytes`, worded as on stdio (the limit in bytes). */
export function tooLargeFailure(maxMessageBytes: number): ExchangeFailure {
  return { kind: 'too-large', text: `the upstream sent a message over ${maxMessageBytes} bytes` };
}

/** An HTTP error status as a failure. */
export function statusFailure(status: number, statusText: string, sessionGone: boolean): ExchangeFailure {
  return { kind: 'http-status', status, statusText: statusText || STATUS_CODES[status] || 'error', sessionGone };
}

/** `HTTP 401 Unauthorized`. */
export function describeStatus(failure: { status: number; statusText: string }): string {
  return `HTTP ${failure.status} ${failure.statusText}`;
}

/** One short line, e.g. `connection refused` or `HTTP 404 Not Found (the session is gone)`. */
export function describeFailure(failure: ExchangeFailure): string {
  if (failure.kind !== 'http-status') return failure.text;
  return failure.sessionGone ? `${describeStatus(failure)} (the session is gone)` : describeStatus(failure);
}

/** The first string `code` along the `cause` chain (undici nests the socket error in `cause`). */
function errorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth += 1) {
    const code: unknown = (current as { code?: unknown }).code;
    if (typeof code === 'string' && code !== '') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function innermostMessage(error: unknown): string {
  let message = errorMessage(error);
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth += 1) {
    if (current.message !== '') message = current.message;
    current = current.cause;
  }
  return message.replace(/\s*\r?\n\s*/g, ' ');
}
