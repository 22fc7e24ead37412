/**
 * One SDK `Client` over a recording transport: the MCP connection both upstream sides use, whatever
 * carries it (a child's pipes, Streamable HTTP, legacy SSE). Requests go out verbatim with the loose
 * result schema, so nothing the upstream answers is stripped, and every way one ends becomes an outcome.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  ResultSchema,
  type Result,
} from '@modelcontextprotocol/sdk/types.js';
import type { AgentPeer } from '../../ports/agent-side.port.js';
import type { Logger } from '../../ports/logger.port.js';
import type { UpstreamCallOptions, UpstreamCallOutcome, UpstreamInfo } from '../../ports/upstream-side.port.js';
import { outcomeOfRequest, type SettledRequest } from './call-outcome.js';
import type { ReplyLedger } from './reply-ledger.js';
import { toolCallReply } from './incoming-message.js';
import { idKey } from '../wire/json-rpc-id-token.js';

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
  /**
   * relay the upstream's notifications and requests to an agent (the proxy): the client then declares
   * {@link RELAYED_CLIENT_CAPABILITIES}. Absent (probe, check): the client declares nothing and relays nothing.
   */
  relay?: UpstreamRelay;
}

/**
 * what a relaying client declares to the upstream, before any agent is there to ask: every client
 * capability an agent may answer for. A request the agent did not declare the capability for gets the
 * SDK's refusal from the agent side (`enforceStrictCapabilities`), so it never hangs.
 */
export const RELAYED_CLIENT_CAPABILITIES = {
  sampling: {},
  elicitation: { form: {}, url: {} },
  roots: { listChanged: true },
} as const;

/**
 * The upstream's notifications passed on to the agent (progress goes to its call; cancellations are the
 * SDK's). Only a log message goes to the agent of the request in flight; the others concern every session
 * (the proxy classifies a changed tool list again before it tells the agents).
 */
const RELATED_NOTIFICATIONS = new Set(['notifications/message']);
const RELAYED_NOTIFICATIONS = new Set([
  ...RELATED_NOTIFICATIONS,
  'notifications/resources/updated',
  'notifications/resources/list_changed',
  'notifications/tools/list_changed',
  'notifications/prompts/list_changed',
]);

/** Where a relaying connection sends what belongs to no request in flight; `peer` is set by the proxy. */
export interface UpstreamRelay {
  peer?: AgentPeer;
  /** How long the agent may take to answer one of the upstream's requests (the upstream time-out). */
  timeoutMs: number;
}

/** A JSON-RPC error for the SDK to send: a plain `Error` with `code` keeps the message unprefixed. */
function rpcError(code: number, message: string, data?: unknown): Error {
  return Object.assign(new Error(message), { code, ...(data !== undefined ? { data } : {}) });
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
  /** The requests in flight, each with the agent it came from (undefined: none given). */
  private readonly inFlight = new Set<{ peer: AgentPeer | undefined }>();

  constructor(
    readonly transport: T,
    { clientName, clientVersion, logger, relay }: ClientIdentity,
  ) {
    const capabilities = relay === undefined ? {} : RELAYED_CLIENT_CAPABILITIES;
    this.client = new Client({ name: clientName, version: clientVersion }, { capabilities });
    this.client.onerror = (error) => logger?.debug({ err: error.message }, 'upstream connection notice');
    if (relay !== undefined) this.relayTo(relay, logger);
  }

  /**
   * the upstream's notifications and requests go to the agent they belong to: the one whose request
   * is the only one in flight (the upstream sent them while handling it), otherwise the relay's peer.
   * Requests go through the SDK's own handlers (they validate the request and the agent's answer); the
   * upstream's `notifications/cancelled` aborts `extra.signal`, which cancels the request at the agent.
   */
  private relayTo(relay: UpstreamRelay, logger: Logger | undefined): void {
    const peerNow = (): AgentPeer | undefined => {
      if (this.inFlight.size === 1) {
        const [only] = this.inFlight;
        if (only?.peer !== undefined) return only.peer;
      }
      return relay.peer;
    };
    this.client.fallbackNotificationHandler = async (notification) => {
      if (!RELAYED_NOTIFICATIONS.has(notification.method)) return;
      const peer = RELATED_NOTIFICATIONS.has(notification.method) ? peerNow() : relay.peer;
      if (peer === undefined) return;
      await peer.notify(notification.method, notification.params).catch((error: unknown) => {
        logger?.debug({ method: notification.method, err: String(error) }, 'upstream notification not passed on');
      });
    };
    const ask = async (request: { method: string; params?: Record<string, unknown> }, signal: AbortSignal): Promise<Result> => {
      const peer = peerNow();
      if (peer === undefined) throw rpcError(-32603, `no agent is connected to answer ${request.method}`);
      const answer = await peer.request(request.method, request.params, { signal, timeoutMs: relay.timeoutMs });
      if ('error' in answer) throw rpcError(answer.error.code, answer.error.message, answer.error.data);
      return answer.result;
    };
    for (const schema of [CreateMessageRequestSchema, ElicitRequestSchema, ListRootsRequestSchema] as const) {
      // The SDK's handler type is the method's own result; the agent's answer is validated by the SDK's wrapper.
      this.client.setRequestHandler(
        schema,
        (request: { method: string; params?: Record<string, unknown> }, extra: { signal: AbortSignal }) =>
          ask(request, extra.signal),
      );
    }
  }

  /** passes a notification of the agent's on to the upstream (`notifications/roots/list_changed`). */
  async notify(method: string, params: Record<string, unknown> | undefined): Promise<void> {
    await this.client.notification({ method, ...(params !== undefined ? { params } : {}) });
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
    { timeoutMs, signal, onProgress, peer }: UpstreamCallOptions,
  ): Promise<UpstreamCallOutcome> {
    const { ledger } = this.transport;
    ledger.track(params);
    const entry = { peer };
    this.inFlight.add(entry);
    const token = onProgress === undefined ? undefined : progressTokenOf(params);
    if (token !== undefined) this.progress.set(token, onProgress!);
    const settled = await this.client.request({ method, params }, ResultSchema, { timeout: timeoutMs, signal }).then(
      (result): SettledRequest => ({ ok: true, result }),
      (error: unknown): SettledRequest => ({ ok: false, error }),
    );
    this.inFlight.delete(entry);
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
