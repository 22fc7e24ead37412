/**
 * What every upstream side does the same way, whatever carries the MCP messages: the state machine
 * (new → connecting → ready → gone), the defaults, every page of `tools/list`, `tools/call` forwarded
 * verbatim through one SDK client over a recording transport (`client-connection.ts`), the outcome of
 * every call (`call-outcome.ts`) and the exit notice. A transport adds only how it connects (`open`) and
 * how it ends (`shutDown`, `goneDetail`). Free of the MCP SDK at run time (type imports only), so the
 * stdio side can spawn its process before the SDK is loaded.
 */
import type { AgentPeer } from '../../ports/agent-side.port.js';
import type { Logger } from '../../ports/logger.port.js';
import type { ToolCallRequest, ToolDescriptor } from '../../ports/shapes/mcp-shapes.js';
import type {
  UpstreamCallOptions,
  UpstreamCallOutcome,
  UpstreamExit,
  UpstreamInfo,
  UpstreamSide,
} from '../../ports/upstream-side.port.js';
import type { ClientConnection, RecordingTransport, UpstreamRelay } from './client-connection.js';
import { ExitNotice } from './exit-notice.js';
import { describeOutcome, oneLine } from './outcome-text.js';
import { collectToolPages } from './tool-pages.js';

/** The waits both transports use unless told otherwise. */
export const UPSTREAM_DEFAULTS = {
  /** The wait for `initialize` and for each `tools/list` page (the product waits 60 s). */
  timeoutMs: 60_000,
  /** The wait after each shut-down step (a process: stdin close, SIGTERM, SIGKILL; HTTP: the DELETE). */
  graceMs: 2000,
} as const;

/** What both transports are told. */
export interface UpstreamCoreOptions {
  /** Per-request wait for `tools/list` pages (calls take theirs from `callTool`). Default 60 000. */
  callTimeoutMs?: number;
  /** Wait for the MCP handshake. Default 60 000. */
  connectTimeoutMs?: number;
  /** Wait after each shut-down step. Default 2000. */
  graceMs?: number;
  /** Largest accepted upstream message, in bytes. Default 10 MiB. */
  maxMessageBytes?: number;
  clientName: string;
  clientVersion: string;
  logger?: Logger;
  /**
   * relay the upstream's notifications and requests to the agent (`setPeer`): the client declares the
   * capabilities an agent may answer for (sampling, elicitation, roots). Off (probe, check): it declares none.
   */
  relayToAgent?: boolean;
}

/** Where the side is in its life. Calls are forwarded only when `ready`; `gone` is final (no reconnect). */
export type UpstreamState = 'new' | 'connecting' | 'ready' | 'gone';

/** An `UpstreamSide` over one SDK client; subclasses connect and end it. */
export abstract class UpstreamCore<T extends RecordingTransport, O extends UpstreamCoreOptions> implements UpstreamSide {
  protected state: UpstreamState = 'new';
  /** True once `close()` was called (also while connecting). */
  protected closeRequested = false;
  /** The SDK client over the transport, set by `open` as soon as it exists. */
  protected connection: ClientConnection<T> | undefined;
  /** The end under way, once there is one: every later end waits for it. */
  protected ending: Promise<void> | undefined;
  private readonly exitNotice: ExitNotice;
  /** where the connection relays the upstream's messages to (its peer set by `setPeer`); absent: none. */
  protected readonly relay: UpstreamRelay | undefined;

  protected constructor(protected readonly options: O) {
    this.exitNotice = new ExitNotice(options.logger);
    if (options.relayToAgent === true) this.relay = { timeoutMs: options.callTimeoutMs ?? UPSTREAM_DEFAULTS.timeoutMs };
  }

  /** where the upstream's notifications and requests go that belong to no request in flight. */
  setPeer(peer: AgentPeer): void {
    if (this.relay !== undefined) this.relay.peer = peer;
  }

  /** a notification of the agent's (`notifications/roots/list_changed`), passed on; dropped when not ready. */
  async notify(method: string, params: Record<string, unknown> | undefined): Promise<void> {
    if (this.state !== 'ready') return;
    await (this.connection as ClientConnection<T>).notify(method, params).catch((error: unknown) => {
      this.options.logger?.debug({ method, err: String(error) }, 'agent notification not passed on');
    });
  }

  /** Connects and completes the MCP handshake; rejects with a one-line reason. */
  async connect(): Promise<UpstreamInfo> {
    if (this.state !== 'new') throw new Error(`upstream connect() called twice (state: ${this.state})`);
    this.state = 'connecting';
    const info = await this.open();
    this.state = 'ready';
    this.onReady();
    return info;
  }

  /** Every tool of every page, verbatim; throws a one-line Error when a page cannot be read. */
  async listTools(): Promise<ToolDescriptor[]> {
    const timeoutMs = this.options.callTimeoutMs ?? UPSTREAM_DEFAULTS.timeoutMs;
    return collectToolPages(async (cursor) => {
      if (this.state !== 'ready') throw new Error(`upstream tools/list failed: ${this.unavailableDetail()}`);
      const outcome = await this.forward('tools/list', cursor === undefined ? {} : { cursor }, { timeoutMs });
      if (outcome.kind === 'result') return outcome.result;
      throw new Error(oneLine(`upstream tools/list failed: ${describeOutcome(outcome)}${await this.lossDetail(outcome)}`, 500));
    }, this.options.logger);
  }

  /** Forwards `tools/call` verbatim; never rejects. */
  async callTool(request: ToolCallRequest, options: UpstreamCallOptions): Promise<UpstreamCallOutcome> {
    if (this.state !== 'ready') return { kind: 'unavailable', detail: this.unavailableDetail() };
    return this.forward('tools/call', toolCallParams(request), options);
  }

  /**
   * Forwards a request that is not a tool call (R-17: resources, prompts, completions, logging, ping)
   * verbatim through the same SDK client; never rejects.
   */
  async forwardRequest(
    method: string,
    params: Record<string, unknown>,
    options: UpstreamCallOptions,
  ): Promise<UpstreamCallOutcome> {
    if (this.state !== 'ready') return { kind: 'unavailable', detail: this.unavailableDetail() };
    return this.forward(method, params, options);
  }

  /** Registers a listener for the upstream going away; called at once if it is already gone. */
  onExit(listener: (exit: UpstreamExit) => void): void {
    this.exitNotice.listen(listener);
  }

  /** Ends the upstream; also cancels a start-up under way. Idempotent. */
  close(): Promise<void> {
    this.closeRequested = true;
    if (this.state === 'new') this.state = 'gone';
    return this.end(true);
  }

  /** Opens the connection (setting `connection` as soon as it exists) and completes the handshake. */
  protected abstract open(): Promise<UpstreamInfo>;

  /** Ends the connection (and whatever runs the upstream), then reports the exit. Called once. */
  protected abstract shutDown(expected: boolean): Promise<void>;

  /** Why calls are refused once the upstream is gone or going. */
  protected abstract goneDetail(): string;

  /** Called once the side is ready. */
  protected onReady(): void {}

  /** More words for a `tools/list` page that failed (e.g. how the process ended); '' by default. */
  protected lossDetail(_outcome: UpstreamCallOutcome): Promise<string> {
    return Promise.resolve('');
  }

  /** Ends the upstream once; `expected` is true when we asked for it. */
  protected end(expected: boolean): Promise<void> {
    this.ending ??= this.shutDown(expected);
    return this.ending;
  }

  /** The exit of the upstream, told once to every listener. */
  protected get exit(): UpstreamExit | undefined {
    return this.exitNotice.report;
  }

  protected reportExit(exit: UpstreamExit): void {
    this.exitNotice.fire(exit);
  }

  private forward(method: string, params: Record<string, unknown>, options: UpstreamCallOptions): Promise<UpstreamCallOutcome> {
    return (this.connection as ClientConnection<T>).forward(method, params, options);
  }

  private unavailableDetail(): string {
    if (this.state === 'new' || this.state === 'connecting') return 'the upstream is not connected yet';
    return this.goneDetail();
  }
}

/** The `tools/call` params exactly as the agent sent them: name, arguments and `_meta` when present. */
export function toolCallParams(request: ToolCallRequest): Record<string, unknown> {
  const params: Record<string, unknown> = { name: request.name };
  if (request.arguments !== undefined) params['arguments'] = request.arguments;
  if (request.meta !== undefined) params['_meta'] = request.meta;
  return params;
}
