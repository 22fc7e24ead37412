import { asError, errorMessage } from '../../domain/error-message.js';
import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { isJSONRPCRequest, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { AgentCloseReason } from '../../ports/agent-side.port.js';
import type { Logger } from '../../ports/logger.port.js';
import { BatchAnswers } from './batch-answers.js';
import { classifyInbound } from '../agent-core/inbound-message.js';
import { LineFramer } from '../wire/line-framer.js';
import { cancelledRequestId } from '../wire/json-rpc-id-token.js';

/** Settings of a {@link LineTransport}. */
export interface LineTransportOptions {
  /** The largest inbound message in bytes; a longer one ends the session. */
  maxMessageBytes: number;
  logger: Logger;
  /** Called exactly once, when the session ends for whatever reason. */
  onClosed: (reason: AgentCloseReason) => void;
}

function describe(error: unknown): string {
  return errorMessage(error);
}

/**
 * An SDK `Transport` speaking newline-delimited JSON over two streams, like the SDK's stdio framing, with
 * its gaps closed: stdin EOF ends the session, a stdout error (EPIPE) ends it instead of crashing,
 * an oversized message ends it without buffering it, and every malformed request gets an error reply.
 * A JSON-RPC batch (an array) is handled member by member and answered as one array (`batch-answers.ts`).
 * After the session ended, outgoing messages are dropped silently.
 */
export class LineTransport implements Transport {
  /** Set by the SDK: the session ended. */
  onclose?: () => void;
  /** Set by the SDK: a non-fatal problem. */
  onerror?: (error: Error) => void;
  /** Set by the SDK: one inbound JSON-RPC message. */
  onmessage?: (message: JSONRPCMessage) => void;

  private readonly splitter: LineFramer;
  private started = false;
  /** Messages read before the SDK attached `onmessage` (reading early, during the proxy's start-up). */
  private readonly early: JSONRPCMessage[] = [];
  private closeReason: AgentCloseReason | undefined;
  private readonly batches = new BatchAnswers();

  constructor(
    private readonly io: { stdin: Readable; stdout: Writable },
    private readonly options: LineTransportOptions,
  ) {
    this.splitter = new LineFramer(options.maxMessageBytes);
  }

  /** True once the session has ended. */
  get isClosed(): boolean {
    return this.closeReason !== undefined;
  }

  /**
   * Starts reading stdin. Stream errors are always handled, so none becomes an uncaught exception.
   * May be called early (to notice an agent that leaves during start-up) and again by the SDK's
   * `connect`: the second call delivers the messages that arrived in between.
   */
  async start(): Promise<void> {
    if (this.started) {
      queueMicrotask(() => {
        for (const message of this.early.splice(0)) this.onmessage?.(message);
      });
      return;
    }
    this.started = true;
    const { stdin, stdout } = this.io;
    stdout.on('error', this.onOutputError);
    stdout.on('close', this.onOutputClose);
    stdin.on('error', this.onInputError);
    stdin.on('end', this.onInputEnd);
    stdin.on('close', this.onInputEnd);
    stdin.on('data', this.onData);
    if (stdin.readableEnded) this.onInputEnd();
  }

  /**
   * Writes one message as a line; dropped when the session has ended. A response that cannot be
   * serialised (nested too deeply) is replaced by a `-32603` error to the same id, so no request is left
   * unanswered.
   */
  async send(message: JSONRPCMessage): Promise<void> {
    let text: string;
    try {
      text = JSON.stringify(message);
    } catch (error) {
      if (!('id' in message) || 'method' in message) throw error;
      this.options.logger.warn({ id: message.id, error: describe(error) }, 'an answer to the agent could not be serialised');
      text = JSON.stringify({
        jsonrpc: '2.0',
        id: message.id,
        error: { code: -32603, message: `the answer could not be serialised (${describe(error)}); nested too deeply?` },
      });
    }
    if ('id' in message && !('method' in message) && message.id !== undefined) {
      const batched = this.batches.answer(message.id, text);
      if (batched.held) {
        if (batched.line !== undefined) this.writeLine(batched.line);
        return;
      }
    }
    this.writeLine(text);
  }

  /** Ends the session from our side (reported as `disconnected`, "closed by the proxy"). */
  async close(): Promise<void> {
    this.finish({ kind: 'disconnected', detail: 'closed by the proxy' });
  }

  private readonly onData = (chunk: Buffer | string): void => {
    if (this.isClosed) return;
    const { lines, overflowed } = this.splitter.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
    for (const line of lines) {
      if (this.isClosed) return;
      this.handleLine(line);
    }
    if (overflowed) {
      const detail = `an inbound message exceeded ${this.options.maxMessageBytes} bytes`;
      this.finish({ kind: 'message-too-large', detail });
    }
  };

  private readonly onInputEnd = (): void => {
    const unfinished = this.splitter.bufferedBytes;
    if (unfinished > 0 && !this.isClosed) {
      this.options.logger.debug({ bytes: unfinished }, 'agent input ended inside a line; ignored');
    }
    this.finish({ kind: 'disconnected', detail: 'agent closed its input' });
  };

  private readonly onInputError = (error: Error): void => {
    this.finish({ kind: 'transport-error', detail: `agent input failed: ${describe(error)}` });
  };

  private readonly onOutputError = (error: Error): void => {
    this.finish({ kind: 'output-closed', detail: `agent output failed: ${describe(error)}` });
  };

  private readonly onOutputClose = (): void => {
    this.finish({ kind: 'output-closed', detail: 'agent output closed' });
  };

  private handleLine(line: string): void {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      this.options.logger.warn({ error: describe(error) }, 'agent sent a line that is not JSON');
      this.replyError('null', -32700, 'Parse error');
      return;
    }
    if (Array.isArray(value) && value.length > 0) {
      this.handleBatch(value);
      return;
    }
    const error = this.accept(value, line);
    if (error !== undefined) this.writeLine(error);
  }

  /**
   * One batch: every member is handled as if it came alone; the answers to its requests (and the errors
   * of its invalid members) are written together as one array once all are in.
   */
  private handleBatch(members: unknown[]): void {
    const accepted: JSONRPCMessage[] = [];
    const errors: string[] = [];
    for (const member of members) {
      const error = this.accept(member, '', (message) => accepted.push(message));
      if (error !== undefined) errors.push(error);
    }
    const requestIds = accepted.filter((message) => isJSONRPCRequest(message)).map((message) => message.id);
    const line = this.batches.open(requestIds, errors);
    if (line !== undefined) this.writeLine(line);
    for (const message of accepted) this.deliver(message);
  }

  /**
   * Classifies one message and hands it on (`pass`, default: deliver it now). Returns the error answer to
   * write when it is an invalid request.
   */
  private accept(
    value: unknown,
    line: string,
    pass: (message: JSONRPCMessage) => void = (message) => this.deliver(message),
  ): string | undefined {
    const inbound = classifyInbound(value, line);
    if (inbound.kind === 'invalid-request') {
      this.options.logger.warn({ id: inbound.idToken ?? inbound.id }, 'agent sent an invalid JSON-RPC message');
      return errorLine(inbound.idToken ?? JSON.stringify(inbound.id), -32600, 'Invalid Request');
    }
    if (inbound.kind === 'invalid-notification') {
      this.options.logger.warn({ method: inbound.method }, 'agent sent an invalid notification; ignored');
      return undefined;
    }
    if (inbound.strippedKeys.length > 0) {
      this.options.logger.warn({ keys: inbound.strippedKeys }, 'unknown top-level keys removed');
    }
    pass(inbound.message);
    return undefined;
  }

  /** Hands one message to the SDK (or keeps it until the SDK is attached). */
  private deliver(message: JSONRPCMessage): void {
    if (this.onmessage === undefined) this.early.push(message);
    else this.onmessage(message);
    const cancelled = this.batches.waiting ? cancelledRequestId(message) : undefined;
    if (cancelled !== undefined) {
      // A cancelled request gets no answer (MCP): a batch must not wait for it.
      const line = this.batches.cancelled(cancelled);
      if (line !== undefined) this.writeLine(line);
    }
  }

  /** An error answer; `idJson` is the id's JSON text (a token as sent when a number cannot hold it). */
  private replyError(idJson: string, code: number, message: string): void {
    this.writeLine(errorLine(idJson, code, message));
  }

  private writeLine(text: string): void {
    if (this.isClosed) return;
    try {
      this.io.stdout.write(`${text}\n`);
    } catch (error) {
      this.onOutputError(asError(error));
    }
  }

  private finish(reason: AgentCloseReason): void {
    if (this.isClosed) return;
    this.closeReason = reason;
    const { stdin } = this.io;
    stdin.off('data', this.onData);
    stdin.off('end', this.onInputEnd);
    stdin.off('close', this.onInputEnd);
    stdin.pause();
    this.options.logger.info({ kind: reason.kind, detail: reason.detail }, 'agent session ended');
    this.guarded('SDK close handler', () => this.onclose?.());
    this.guarded('session close handler', () => this.options.onClosed(reason));
  }

  /** Runs a callback from a stream event; a throw is logged instead of becoming an uncaught exception. */
  private guarded(what: string, callback: () => void): void {
    try {
      callback();
    } catch (error) {
      this.options.logger.error({ error: describe(error) }, `${what} threw`);
    }
  }
}

/** The JSON text of an error answer; `idJson` is the id's JSON text. */
function errorLine(idJson: string, code: number, message: string): string {
  return `{"jsonrpc":"2.0","id":${idJson},"error":${JSON.stringify({ code, message })}}`;
}
