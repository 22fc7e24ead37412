/**
 * A decorator around one of the SDK's HTTP client transports (Streamable HTTP or legacy SSE). It gives
 * the inner transport an observing `fetch`, keeps the raw reply of every tracked request in a ledger (so
 * a real JSON-RPC error reply is told apart from the SDK's own -32000/-32001), and remembers the first
 * failure that left the upstream unusable: a network error, a response stream that broke or ended
 * before the answer, a message over the size limit, or a 404 for the session.
 */
import type { FetchLike, Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../../ports/logger.port.js';
import type { UpstreamCallOutcome } from '../../ports/upstream-side.port.js';
import type { RecordingTransport } from '../upstream-core/client-connection.js';
import { classifyLine, type RawReply } from '../upstream-core/incoming-message.js';
import { ReplyLedger } from '../upstream-core/reply-ledger.js';
import type { ExchangeFailure } from './exchange-failure.js';
import { exchangeFetch } from './exchange-fetch.js';
import type { AwaitedReplies } from './exchange-hooks.js';
import { httpLostOutcome } from './http-call-outcome.js';
import { cancelledRequestId } from '../wire/json-rpc-id-token.js';

/** The JSON-RPC code of the error handed to the SDK in place of an unusable answer (as on stdio). */
const INVALID_ANSWER_CODE = -32603;

/** The SDK transport being decorated, with the optional members the adapter uses. */
export type InnerTransport = Transport & { terminateSession?: () => Promise<void> };

/** Options of the decorator. */
export interface HttpRecordingTransportOptions {
  /** Builds the SDK transport around the observing fetch. */
  makeInner: (fetch: FetchLike) => InnerTransport;
  channel: 'streamable' | 'sse';
  /** Largest accepted upstream message (a JSON body, one SSE event's data), in bytes. */
  maxMessageBytes: number;
  logger?: Logger;
}

/** An SDK client transport whose upstream messages are recorded raw before the SDK sees them. */
export class HttpRecordingTransport implements RecordingTransport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** Called once, when a failure leaves the upstream unusable. */
  onunusable?: (failure: ExchangeFailure) => void;
  /** Raw replies of the requests the adapter tracks. */
  readonly ledger = new ReplyLedger();
  private readonly inner: InnerTransport;
  private closingNow = false;
  private firstFailure: ExchangeFailure | undefined;
  private fatalFailure: ExchangeFailure | undefined;
  private started = false;
  /** Ids of the requests the SDK cancelled (their replies are no longer due). */
  private readonly cancelled = new Set<string>();

  constructor(private readonly options: HttpRecordingTransportOptions) {
    this.inner = options.makeInner(
      exchangeFetch({
        channel: options.channel,
        maxMessageBytes: options.maxMessageBytes,
        incoming: (text, awaited) => this.incoming(text, awaited),
        unanswered: (id, detail) => this.unanswered(id, detail),
        abandoned: (id) => this.cancelled.has(id),
        failed: (failure) => this.failed(failure),
        closing: () => this.closingNow,
      }),
    );
    this.inner.onmessage = (message) => this.onmessage?.(message);
    this.inner.onerror = (error) => this.onerror?.(error);
    this.inner.onclose = () => this.onclose?.();
  }

  /** The Streamable HTTP session id, once the upstream gave one. */
  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  /** The first failure of any kind (an HTTP error status included), for start-up messages. */
  get failure(): ExchangeFailure | undefined {
    return this.firstFailure;
  }

  /** The failure that left the upstream unusable, if any. */
  get unusable(): ExchangeFailure | undefined {
    return this.fatalFailure;
  }

  /** True once `start()` succeeded (for legacy SSE: the endpoint event arrived). */
  get hasStarted(): boolean {
    return this.started;
  }

  /** Passes the negotiated protocol version to the inner transport (sent as a header). */
  setProtocolVersion(version: string): void {
    this.inner.setProtocolVersion?.(version);
  }

  /** Starts the inner transport. */
  async start(): Promise<void> {
    await this.inner.start();
    this.started = true;
  }

  /** Notes the id the SDK gave a tracked request (and which requests it cancels), then sends it. */
  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if ('method' in message && 'id' in message) this.ledger.noteSent(message.params, message.id);
    const requestId = cancelledRequestId(message);
    if (requestId !== undefined) this.cancelled.add(String(requestId));
    return this.inner.send(message, options);
  }

  /** Why a request lost its answer: the failed exchange it was in, or the failure that made the upstream unusable. */
  lostOutcome(error: unknown): UpstreamCallOutcome {
    return httpLostOutcome(error, this.fatalFailure);
  }

  /** Ends the Streamable HTTP session with a DELETE, if there is one. Rejects when that fails. */
  async terminateSession(): Promise<void> {
    if (this.inner.sessionId !== undefined) await this.inner.terminateSession?.();
  }

  /** Closes the inner transport; failures caused by closing are not reported. */
  async close(): Promise<void> {
    this.closingNow = true;
    await this.inner.close();
  }

  private incoming(text: string, awaited: AwaitedReplies): string | undefined {
    const message = classifyLine(text);
    if (message.kind === 'ignored') {
      this.options.logger?.debug({ reason: message.reason, text: text.slice(0, 200) }, 'ignored a message from the upstream');
      return undefined;
    }
    if (message.kind === 'reply') {
      this.ledger.noteReply(message.id, message.reply);
      awaited.delete(String(message.id));
    }
    return JSON.stringify(message.forward);
  }

  private unanswered(id: RequestId, detail: string): string {
    const reply: RawReply = { kind: 'invalid', detail };
    this.ledger.noteReply(id, reply);
    const error = { code: INVALID_ANSWER_CODE, message: `invalid answer from upstream: ${detail}` };
    return JSON.stringify({ jsonrpc: '2.0', id, error });
  }

  private failed(failure: ExchangeFailure): void {
    this.firstFailure ??= failure;
    const fatal = failure.kind !== 'http-status' || failure.sessionGone;
    if (!fatal || this.fatalFailure !== undefined || this.closingNow) return;
    this.fatalFailure = failure;
    this.onunusable?.(failure);
  }
}
