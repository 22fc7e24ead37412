/**
 * One connection to the HTTP upstream: the shared SDK client connection over an `HttpRecordingTransport`
 * around the SDK's Streamable HTTP or legacy SSE client transport, opened with the MCP handshake under one
 * deadline, and the polite end of its session.
 */
import { errorMessage } from '../../domain/error-message.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Logger } from '../../ports/logger.port.js';
import { ClientConnection, type UpstreamRelay } from '../upstream-core/client-connection.js';
import type { FailedAttempt } from './connect-failure.js';
import { HttpRecordingTransport } from './recording-transport.js';

/** The client and its transport. */
export type HttpConnection = ClientConnection<HttpRecordingTransport>;

/** What opening a connection needs. */
export interface ConnectionSpec {
  url: URL;
  headers: Record<string, string>;
  clientName: string;
  clientVersion: string;
  /** Bounds the whole attempt: the transport's start (legacy SSE: the endpoint event) and `initialize`. */
  timeoutMs: number;
  /** Largest accepted upstream message, in bytes. */
  maxMessageBytes: number;
  logger?: Logger;
  /** relay the upstream's notifications and requests to the agent through this. */
  relay?: UpstreamRelay;
}

/** How one attempt ended. */
export type ConnectAttempt = { ok: true; connection: HttpConnection } | { ok: false; failed: FailedAttempt };

/**
 * Opens a connection over one transport and completes the handshake. `opened` gets the connection as
 * soon as it exists, so that a `close()` during the attempt can end it. Never rejects.
 */
export async function connectOver(
  channel: 'streamable' | 'sse',
  spec: ConnectionSpec,
  opened: (connection: HttpConnection) => void,
): Promise<ConnectAttempt> {
  const connection = openConnection(channel, spec);
  opened(connection);
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), spec.timeoutMs)));
  let error: unknown;
  let ended: 'timeout' | 'too-large' | undefined;
  try {
    const handshake = connection.connect(spec.timeoutMs);
    const connected = handshake.then(() => 'connected' as const);
    const result = await Promise.race([connected, deadline, tooLarge(connection.transport)]);
    if (result === 'connected') return { ok: true, connection };
    ended = result;
  } catch (caught) {
    error = caught;
  } finally {
    clearTimeout(timer);
  }
  await connection.close();
  const { transport } = connection;
  return {
    ok: false,
    failed: { error, failure: transport.failure, started: transport.hasStarted, timedOut: ended === 'timeout' },
  };
}

/**
 * Resolves when an answer over the size limit arrives during the handshake: on an SSE stream the SDK
 * would otherwise wait for the deadline, as the request stays open after its stream was cut.
 */
function tooLarge(transport: HttpRecordingTransport): Promise<'too-large'> {
  return new Promise((resolve) => {
    transport.onunusable = (failure) => {
      if (failure.kind === 'too-large') resolve('too-large');
    };
  });
}

function openConnection(channel: 'streamable' | 'sse', spec: ConnectionSpec): HttpConnection {
  const { url, headers, logger, maxMessageBytes } = spec;
  const requestInit: RequestInit = { headers: { ...headers } };
  const transport = new HttpRecordingTransport({
    channel,
    maxMessageBytes,
    logger,
    makeInner: (fetch) =>
      channel === 'streamable'
        ? new StreamableHTTPClientTransport(url, { requestInit, fetch })
        : new SSEClientTransport(url, { requestInit, fetch }),
  });
  return new ClientConnection(transport, spec);
}

/** The Streamable HTTP session's DELETE, bounded by `graceMs`; a failure is only logged. */
export async function endSession(transport: HttpRecordingTransport, graceMs: number, logger?: Logger): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const giveUp = new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)));
  const terminated = transport.terminateSession().catch((error: unknown) => {
    logger?.debug({ err: errorMessage(error) }, 'ending the upstream session failed');
  });
  await Promise.race([terminated, giveUp]);
  clearTimeout(timer);
}
