/**
 * An MCP SDK `Transport` over a child process's stdin and stdout, replacing the SDK's
 * `StdioClientTransport` so the adapter controls framing, the message size limit, garbage lines,
 * EPIPE and, through the ledger, which replies really came from the upstream.
 */
import { asError } from '../../domain/error-message.js';
import type { Readable, Writable } from 'node:stream';
import { serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../../ports/logger.port.js';
import type { UpstreamCallOutcome } from '../../ports/upstream-side.port.js';
import { connectionLost } from '../upstream-core/call-outcome.js';
import type { RecordingTransport } from '../upstream-core/client-connection.js';
import { classifyLine } from '../upstream-core/incoming-message.js';
import { LineFramer } from '../wire/line-framer.js';
import { ReplyLedger } from '../upstream-core/reply-ledger.js';

/** Why the connection ended; the first reason is kept. */
export type CloseCause =
  { kind: 'eof' } | { kind: 'too-large'; detail: string } | { kind: 'stdout-error'; detail: string } | { kind: 'local' };

/** The child's pipes and the limits. */
export interface ProcessTransportOptions {
  stdin: Writable;
  stdout: Readable;
  maxMessageBytes: number;
  logger?: Logger;
}

/** Newline-delimited JSON-RPC over a child's pipes. */
export class ProcessTransport implements RecordingTransport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** Called when writing to the child's stdin fails (EPIPE …): no request can reach the upstream any more. */
  onstdinerror?: (error: Error) => void;
  /** Raw replies of the requests the adapter tracks. */
  readonly ledger = new ReplyLedger();
  /** Resolves once the connection has ended, whatever the cause. */
  readonly closed: Promise<void>;
  private cause: CloseCause | undefined;
  private markClosed: () => void = () => undefined;
  private readonly framer: LineFramer;

  constructor(private readonly options: ProcessTransportOptions) {
    this.framer = new LineFramer(options.maxMessageBytes);
    this.closed = new Promise((resolve) => (this.markClosed = resolve));
  }

  /** Why the connection ended, or undefined while it is open. */
  get closeCause(): CloseCause | undefined {
    return this.cause;
  }

  /** Starts reading the child's stdout. */
  async start(): Promise<void> {
    const { stdin, stdout } = this.options;
    stdin.on('error', (error: Error) => this.onstdinerror?.(error));
    stdout.on('data', (chunk: Buffer | string) => this.onData(chunk));
    stdout.on('end', () => this.onEnd());
    stdout.on('close', () => this.finish({ kind: 'eof' }));
    stdout.on('error', (error: Error) => this.finish({ kind: 'stdout-error', detail: error.message }));
  }

  /** Writes one message to the child's stdin; rejects (never throws) when the pipe is gone. */
  send(message: JSONRPCMessage): Promise<void> {
    const { stdin } = this.options;
    if (this.cause !== undefined || stdin.destroyed || stdin.writableEnded) {
      return Promise.reject(new Error('the upstream stdin is closed'));
    }
    if ('method' in message && 'id' in message) this.ledger.noteSent(message.params, message.id);
    return new Promise((resolve, reject) => {
      stdin.write(serializeMessage(message), (error) => (error ? reject(error) : resolve()));
    });
  }

  /** Why a request lost its answer: how the connection ended. */
  lostOutcome(error: unknown): UpstreamCallOutcome {
    const cause = this.cause;
    switch (cause?.kind) {
      case 'too-large':
        return { kind: 'too-large', detail: cause.detail };
      case 'eof':
        return { kind: 'connection-lost', detail: 'the upstream closed its stdout (exited or crashed) before answering' };
      case 'stdout-error':
        return { kind: 'connection-lost', detail: `reading the upstream stdout failed: ${cause.detail}` };
      case 'local':
        return { kind: 'connection-lost', detail: 'the connection was closed before the upstream answered' };
      default:
        return connectionLost(error);
    }
  }

  /** Ends the connection from our side; the process itself is ended by its owner. */
  async close(): Promise<void> {
    this.finish({ kind: 'local' });
  }

  private onData(chunk: Buffer | string): void {
    if (this.cause !== undefined) return;
    const framed = this.framer.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
    for (const line of framed.lines) this.dispatch(line);
    if (framed.overflowed) {
      const detail = `the upstream sent a message over ${this.options.maxMessageBytes} bytes`;
      this.finish({ kind: 'too-large', detail });
    }
  }

  /**
   * The upstream closed its stdout. A last message it wrote without the final newline (just before
   * exiting) is still read: it may be the answer to a call that executed.
   */
  private onEnd(): void {
    const last = this.cause === undefined ? this.framer.end() : undefined;
    if (last !== undefined) this.dispatch(last);
    this.finish({ kind: 'eof' });
  }

  private dispatch(line: string): void {
    if (this.cause !== undefined) return;
    const incoming = classifyLine(line);
    if (incoming.kind === 'ignored') {
      const fields = { reason: incoming.reason, line: line.slice(0, 200) };
      this.options.logger?.debug(fields, 'ignored a line on the upstream stdout');
      return;
    }
    if (incoming.kind === 'reply') this.ledger.noteReply(incoming.id, incoming.reply);
    try {
      this.onmessage?.(incoming.forward);
    } catch (error) {
      this.onerror?.(asError(error));
    }
  }

  private finish(cause: CloseCause): void {
    if (this.cause !== undefined) return;
    this.cause = cause;
    this.options.stdout.destroy();
    this.markClosed();
    this.onclose?.();
  }
}
