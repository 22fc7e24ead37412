/**
 * The real upstream MCP server as a spawned process (R-8.7, R-8.8): an SDK `Client` over our own
 * process transport, every request forwarded verbatim with a loose result schema, every way a call can
 * end mapped to an outcome, and the whole process group ended on close or crash. No reconnect.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Logger } from '../../ports/logger.port.js';
import { ExitNotice, toolCallParams, upstreamInfo } from '../upstream-client.js';
import type { ToolCallRequest, ToolDescriptor } from '../../ports/mcp-shapes.js';
import type {
  UpstreamCallOptions,
  UpstreamCallOutcome,
  UpstreamExit,
  UpstreamInfo,
  UpstreamSide,
} from '../../ports/upstream-side.port.js';
import { describeExit, describeOutcome, errorMessage, oneLine } from './outcome-text.js';
import type { ProcessTransport } from './process-transport.js';
import { collectToolPages } from './tool-pages.js';
import { UpstreamProcess } from './upstream-process.js';
import { MAX_MESSAGE_BYTES } from '../message-limit.js';

/** How to start the upstream and how long to wait for it. */
export interface StdioUpstreamOptions {
  command: string;
  args: string[];
  cwd?: string;
  /** Extra variables on top of the FULL inherited `process.env`. */
  env: Record<string, string>;
  /** Per-request wait for `tools/list` pages (calls take theirs from `callTool`). Default 60 000. */
  callTimeoutMs?: number;
  /** Wait for the answer to `initialize`. Default 60 000. */
  connectTimeoutMs?: number;
  /** Largest accepted upstream message. Default 10 MiB. */
  maxMessageBytes?: number;
  /** Wait after each shut-down step (stdin close, SIGTERM, SIGKILL). Default 2000. */
  graceMs?: number;
  clientName: string;
  clientVersion: string;
  logger?: Logger;
  /** Test seam: loads the SDK half after the spawn (default: `import('./sdk-kit.js')`). */
  loadSdk?: () => Promise<SdkKit>;
}

const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_GRACE_MS = 2000;

/** The SDK half of the adapter, loaded after the spawn (see `sdk-kit.ts`). */
export type SdkKit = typeof import('./sdk-kit.js');

/** The MCP connection over the process's pipes. */
interface Connection {
  kit: SdkKit;
  transport: ProcessTransport;
  client: Client;
}

/** An `UpstreamSide` that spawns the upstream server and talks to it over stdio. */
export class StdioUpstreamSide implements UpstreamSide {
  private state: 'new' | 'connecting' | 'ready' | 'gone' = 'new';
  private child: UpstreamProcess | undefined;
  private connection: Connection | undefined;
  private ending: Promise<void> | undefined;
  private closeRequested = false;
  /** Writing to the upstream's stdin failed (EPIPE): its reader is gone, so the process is usually exiting. */
  private stdinBroken = false;
  private readonly exitNotice: ExitNotice;

  constructor(private readonly options: StdioUpstreamOptions) {
    this.exitNotice = new ExitNotice(options.logger);
  }

  /**
   * Spawns the upstream and completes the MCP handshake; rejects with a one-line reason. The SDK is
   * loaded after the spawn, while the process boots.
   */
  async connect(): Promise<UpstreamInfo> {
    if (this.state !== 'new') throw new Error(`upstream connect() called twice (state: ${this.state})`);
    this.state = 'connecting';
    this.child = this.spawn();
    const kit = await this.loadKit();
    if (this.state !== 'connecting') throw new Error(this.startFailure(kit, await this.ended(new Error('ended during start-up'))));
    const { client, transport } = this.attach(this.child, kit);
    try {
      await client.connect(transport, { timeout: this.options.connectTimeoutMs ?? DEFAULT_TIMEOUT_MS });
    } catch (error) {
      throw new Error(this.startFailure(kit, await this.ended(error)));
    }
    if (this.state !== 'connecting') throw new Error(this.startFailure(kit, await this.ended(new Error('ended during start-up'))));
    this.state = 'ready';
    return upstreamInfo(client);
  }

  /** Every tool of every page, verbatim; throws a one-line Error when a page cannot be read. */
  async listTools(): Promise<ToolDescriptor[]> {
    const timeoutMs = this.options.callTimeoutMs ?? DEFAULT_TIMEOUT_MS;
    return collectToolPages(async (cursor) => {
      if (this.state !== 'ready') throw new Error('upstream tools/list failed: the upstream is not running');
      const outcome = await this.forward('tools/list', cursor === undefined ? {} : { cursor }, { timeoutMs });
      if (outcome.kind === 'result') return outcome.result;
      throw new Error(oneLine(`upstream tools/list failed: ${describeOutcome(outcome)}${await this.exitDetail(outcome)}`, 500));
    }, this.options.logger);
  }

  /** Forwards `tools/call` verbatim; never rejects. */
  async callTool(request: ToolCallRequest, options: UpstreamCallOptions): Promise<UpstreamCallOutcome> {
    if (this.state !== 'ready') return { kind: 'unavailable', detail: this.unavailableDetail() };
    return this.forward('tools/call', toolCallParams(request), options);
  }

  /** Registers a listener for the upstream going away; called at once if it is already gone. */
  onExit(listener: (exit: UpstreamExit) => void): void {
    this.exitNotice.listen(listener);
  }

  /** Ends the upstream (R-8.8 sequence on the whole process group). Idempotent. */
  async close(): Promise<void> {
    this.closeRequested = true;
    if (this.state === 'new') this.state = 'gone';
    await this.end(true);
  }

  /** The SDK half; if it cannot be loaded (a broken install), the process just spawned is ended too. */
  private async loadKit(): Promise<SdkKit> {
    try {
      return await (this.options.loadSdk?.() ?? import('./sdk-kit.js'));
    } catch (error) {
      await this.end(true);
      throw new Error(oneLine(`could not load the MCP SDK: ${errorMessage(error)}`));
    }
  }

  /** Spawns the process; its exit ends the adapter. */
  private spawn(): UpstreamProcess {
    const { command, args, cwd, env, logger } = this.options;
    const child = UpstreamProcess.start({ command, args, cwd, env }, logger);
    child.onExit(() => void this.end(false));
    return child;
  }

  /** Connects an SDK client to the process's pipes; a closed stdout or a broken stdin ends the adapter. */
  private attach(child: UpstreamProcess, kit: SdkKit): Connection {
    const { logger, clientName, clientVersion } = this.options;
    const maxMessageBytes = this.options.maxMessageBytes ?? MAX_MESSAGE_BYTES;
    const transport = new kit.ProcessTransport({ stdin: child.stdin, stdout: child.stdout, maxMessageBytes, logger });
    const client = new kit.Client({ name: clientName, version: clientVersion }, { capabilities: {} });
    client.onerror = (error) => logger?.debug({ err: error.message }, 'upstream connection notice');
    transport.onclose = () => {
      if (transport.closeCause?.kind !== 'local') void this.end(false);
    };
    transport.onstdinerror = (error) => {
      logger?.debug({ err: error.message }, 'writing to the upstream stdin failed; ending the upstream');
      this.stdinBroken = true;
      void this.end(false);
    };
    this.connection = { kit, transport, client };
    return this.connection;
  }

  /** Sends one request with the loose result schema and maps how it ended, using the raw reply. */
  private async forward(
    method: string,
    params: Record<string, unknown>,
    { timeoutMs, signal }: UpstreamCallOptions,
  ): Promise<UpstreamCallOutcome> {
    const { client, transport, kit } = this.connection as Connection;
    transport.ledger.track(params);
    const settled = await client
      .request({ method, params }, kit.ResultSchema, { timeout: timeoutMs, signal })
      .then((result) => ({ ok: true as const, result }), (error: unknown) => ({ ok: false as const, error }));
    const { reply } = transport.ledger.release(params);
    if (settled.ok) return { kind: 'result', result: reply?.kind === 'result' ? reply.result : settled.result };
    const aborted = signal?.aborted ?? false;
    return kit.outcomeOfFailure({ error: settled.error, reply, aborted, timeoutMs, closeCause: transport.closeCause });
  }

  private end(expected: boolean): Promise<void> {
    this.ending ??= this.runEnd(expected);
    return this.ending;
  }

  private async runEnd(expected: boolean): Promise<void> {
    this.state = 'gone';
    const child = this.child;
    if (child === undefined) return;
    const transport = this.connection?.transport;
    const graceMs = this.options.graceMs ?? DEFAULT_GRACE_MS;
    // A process that closed its stdout or its stdin is usually exiting: let it, so its own exit status is recorded.
    if (!expected && (transport?.closeCause?.kind === 'eof' || this.stdinBroken)) await child.waitForExit(graceMs);
    await child.terminate(graceMs);
    if (transport !== undefined) {
      await waitAtMost(transport.closed, graceMs);
      await transport.close();
    }
    const exit = child.exit ?? { code: null, signal: null };
    this.exitNotice.fire({ expected, code: exit.code, signal: exit.signal, stderrTail: child.stderrTail.tail() });
  }

  /** Ends the start-up that failed with `error` (letting a process that is going away exit by itself first). */
  private async ended(error: unknown): Promise<unknown> {
    const child = this.child as UpstreamProcess;
    const transport = this.connection?.transport;
    // A broken pipe or a closed stdout means the process is going away by itself: let it, so that its own
    // exit status and reason are reported instead of "write EPIPE".
    if (isBrokenPipe(error) || transport?.closeCause?.kind === 'eof') await child.waitForExit(this.options.graceMs ?? DEFAULT_GRACE_MS);
    await this.end(true);
    return error;
  }

  /** The one-line reason of a failed start-up, once `ended` has recorded how the process ended. */
  private startFailure(kit: SdkKit, error: unknown): string {
    const child = this.child as UpstreamProcess;
    return kit.describeStartFailure({
      command: this.options.command,
      cwd: this.options.cwd,
      error,
      spawnError: child.spawnError,
      exit: child.exit,
      closeCause: this.connection?.transport.closeCause,
      lastStderrLine: child.stderrTail.lastLine(),
      connectTimeoutMs: this.options.connectTimeoutMs ?? DEFAULT_TIMEOUT_MS,
      closeRequested: this.closeRequested,
    });
  }

  /**
   * For a connection lost during start-up: how the process ended and its last stderr line, once the
   * shut-down has recorded them (e.g. ` (exit code 3): cannot load tools`); '' otherwise.
   */
  private async exitDetail(outcome: UpstreamCallOutcome): Promise<string> {
    if (outcome.kind !== 'connection-lost' || this.ending === undefined) return '';
    await this.ending;
    const child = this.child as UpstreamProcess;
    const line = child.stderrTail.lastLine();
    return `${child.exit === undefined ? '' : ` (${describeExit(child.exit)})`}${line === '' ? '' : `: ${line}`}`;
  }

  private unavailableDetail(): string {
    if (this.state === 'new' || this.state === 'connecting') return 'the upstream is not connected yet';
    const exit = this.exitNotice.report;
    return exit === undefined ? 'the upstream is shutting down' : `the upstream is gone (${describeExit(exit)})`;
  }
}


/** True for the error of a write to a pipe whose reader has gone (EPIPE). */
function isBrokenPipe(error: unknown): boolean {
  return error instanceof Error && Object.getOwnPropertyDescriptor(error, 'code')?.value === 'EPIPE';
}

function waitAtMost(promise: Promise<void>, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    void promise.then(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}
