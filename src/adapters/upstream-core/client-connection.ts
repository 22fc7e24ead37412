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

/** The client and its transport. */
export class ClientConnection<T extends RecordingTransport = RecordingTransport> {
  readonly client: Client;

  constructor(
    readonly transport: T,
    { clientName, clientVersion, logger }: ClientIdentity,
  ) {
    this.client = new Client({ name: clientName, version: clientVersion }, { capabilities: {} });
    this.client.onerror = (error) => logger?.debug({ err: error.message }, 'upstream connection notice');
  }

  /** Starts the transport and completes the MCP handshake (`initialize`), waiting at most `timeoutMs`. */
  connect(timeoutMs: number): Promise<void> {
    return this.client.connect(this.transport, { timeout: timeoutMs });
  }

  /** The instructions and server name/version from the initialize result. */
  info(): UpstreamInfo {
    const info: UpstreamInfo = {};
    const instructions = this.client.getInstructions();
    const version = this.client.getServerVersion();
    if (instructions !== undefined) info.instructions = instructions;
    if (version?.name !== undefined) info.serverName = version.name;
    if (version?.version !== undefined) info.serverVersion = version.version;
    return info;
  }

  /** Sends one request and tells how it ended, the raw reply first (see `call-outcome.ts`). Never rejects. */
  async forward(
    method: string,
    params: Record<string, unknown>,
    { timeoutMs, signal }: UpstreamCallOptions,
  ): Promise<UpstreamCallOutcome> {
    const { ledger } = this.transport;
    ledger.track(params);
    const settled = await this.client.request({ method, params }, ResultSchema, { timeout: timeoutMs, signal }).then(
      (result): SettledRequest => ({ ok: true, result }),
      (error: unknown): SettledRequest => ({ ok: false, error }),
    );
    const { reply } = ledger.release(params);
    const aborted = signal?.aborted ?? false;
    return outcomeOfRequest({ settled, reply, aborted, timeoutMs, lostOutcome: (error) => this.transport.lostOutcome(error) });
  }

  /** Closes the client and its transport; never rejects. */
  async close(): Promise<void> {
    await this.client.close().catch(() => undefined);
  }
}
