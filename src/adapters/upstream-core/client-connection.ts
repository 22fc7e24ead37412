/**
 * One SDK `Client` over a recording transport: the MCP connection both upstream sides use, whatever
 * carries it (a child's pipes, Streamable HTTP, legacy SSE). Requests go out verbatim with the loose
 * result schema, so nothing the upstream answers is stripped, and every way one ends becomes an outcome.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ResultSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../../ports/logger.port.js';
import type { UpstreamCallOptions, UpstreamCallOutcome, UpstreamInfo } from '../../ports/upstream-side.port.js';
import { outcomeOfRequest, type SettledRequest } from './call-outcome.js';
import type { ReplyLedger } from './reply-ledger.js';
import { toolCallReply } from './incoming-message.js';
import { idKey } from '../json-rpc-id-token.js';

/** An SDK client transport that records the upstream's raw replies and can tell why an answer was lost. */
export interface RecordingTransport extends Transport {
  /** Raw replies of the requests the connection tracks. */
  readonly ledger: ReplyLedger;
  /** The outcome of a request that ended with no reply, not cancelled and not timed out. */
  lostOutcome(error: unknown): UpstreamCallOutcome;
}

/** Who we are to the upstream. */
export interface ClientIdentity {
  clientName: string;
  clientVersion: string;
  logger?: Logger;
}

/** The key of the request's `_meta.progressToken`, if it has one. */
function progressTokenOf(params: Record<string, unknown>): string | undefined {
  const meta = params['_meta'];
  return typeof meta === 'object' && meta !== null ? idKey((meta as Record<string, unknown>)['progressToken']) : undefined;
}

/**
 * The client and its transport. A call forwarded with `onProgress` and the agent's `_meta.progressToken`
 * gets the upstream's `notifications/progress` for that token, taken off the transport before the SDK
 * sees them (the SDK only knows tokens it made itself; forwarding the agent's token verbatim keeps the
 * request as the agent sent it).
 */
export class ClientConnection<T extends RecordingTransport = RecordingTransport> {
  readonly client: Client;
  /** Progress listeners of the calls in flight, by token key. */
  private readonly progress = new Map<string, (params: Record<string, unknown>) => void>();

  constructor(
    readonly transport: T,
    { clientName, clientVersion, logger }: ClientIdentity,
  ) {
    this.client = new Client({ name: clientName, version: clientVersion }, { capabilities: {} });
    this.client.onerror = (error) => logger?.debug({ err: error.message }, 'upstream connection notice');
  }

  /** Starts the transport and completes the MCP handshake (`initialize`), waiting at most `timeoutMs`. */
  async connect(timeoutMs: number): Promise<void> {
    await this.client.connect(this.transport, { timeout: timeoutMs });
    const toSdk = this.transport.onmessage;
    this.transport.onmessage = (message, extra) => {
      if (this.progress.size > 0 && 'method' in message && message.method === 'notifications/progress') {
        const listener = this.progress.get(idKey(message.params?.['progressToken']) ?? '');
        if (listener !== undefined) return listener(message.params as Record<string, unknown>);
      }
      toSdk?.(message, extra);
    };
  }

  /** The instructions, server name/version and capabilities from the initialize result. */
  info(): UpstreamInfo {
    const info: UpstreamInfo = {};
    const instructions = this.client.getInstructions();
    const version = this.client.getServerVersion();
    if (instructions !== undefined) info.instructions = instructions;
    if (version?.name !== undefined) info.serverName = version.name;
    if (version?.version !== undefined) info.serverVersion = version.version;
    const capabilities = this.client.getServerCapabilities();
    if (capabilities !== undefined) info.capabilities = { ...capabilities };
    return info;
  }

  /** Sends one request and tells how it ended, the raw reply first (see `call-outcome.ts`). Never rejects. */
  async forward(
    method: string,
    params: Record<string, unknown>,
    { timeoutMs, signal, onProgress }: UpstreamCallOptions,
  ): Promise<UpstreamCallOutcome> {
    const { ledger } = this.transport;
    ledger.track(params);
    const token = onProgress === undefined ? undefined : progressTokenOf(params);
    if (token !== undefined) this.progress.set(token, onProgress!);
    const settled = await this.client.request({ method, params }, ResultSchema, { timeout: timeoutMs, signal }).then(
      (result): SettledRequest => ({ ok: true, result }),
      (error: unknown): SettledRequest => ({ ok: false, error }),
    );
    if (token !== undefined && this.progress.get(token) === onProgress) this.progress.delete(token);
    const released = ledger.release(params).reply;
    const reply = method === 'tools/call' && released !== undefined ? toolCallReply(released) : released;
    const aborted = signal?.aborted ?? false;
    return outcomeOfRequest({ settled, reply, aborted, timeoutMs, lostOutcome: (error) => this.transport.lostOutcome(error) });
  }

  /** Closes the client and its transport; never rejects. */
  async close(): Promise<void> {
    await this.client.close().catch(() => undefined);
  }
}
