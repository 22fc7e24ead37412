/**
 * The real upstream MCP server as a spawned process (R-8.7, R-8.8): the shared upstream core
 * (`../upstream-core/`) over our own process transport, and the whole process group ended on close or
 * crash. No reconnect. This side only spawns and connects, and ends the process.
 */
import type { UpstreamCallOutcome, UpstreamInfo } from '../../ports/upstream-side.port.js';
import type { ClientConnection } from '../upstream-core/client-connection.js';
import { describeExit, mcpErrorMessage, oneLine } from '../upstream-core/outcome-text.js';
import { UPSTREAM_DEFAULTS, UpstreamCore, type UpstreamCoreOptions } from '../upstream-core/upstream-core.js';
import type { ProcessTransport } from './process-transport.js';
import { UpstreamProcess } from './upstream-process.js';
import { MAX_MESSAGE_BYTES } from '../wire/message-limit.js';

/** How long the shut-down waits for the upstream's stderr to end after its exit (a descendant may hold it). */
const STDERR_DRAIN_MS = 250;

/** How to start the upstream and how long to wait for it. */
export interface StdioUpstreamOptions extends UpstreamCoreOptions {
  command: string;
  args: string[];
  cwd?: string;
  /** Extra variables on top of the FULL inherited `process.env`. */
  env: Record<string, string>;
  /** Test seam: loads the SDK half after the spawn (default: `import('./sdk-kit.js')`). */
  loadSdk?: () => Promise<SdkKit>;
}

/** The SDK half of the adapter, loaded after the spawn (see `sdk-kit.ts`). */
export type SdkKit = typeof import('./sdk-kit.js');

/** An `UpstreamSide` that spawns the upstream server and talks to it over stdio. */
export class StdioUpstreamSide extends UpstreamCore<ProcessTransport, StdioUpstreamOptions> {
  private child: UpstreamProcess | undefined;
  /** Writing to the upstream's stdin failed (EPIPE): its reader is gone, so the process is usually exiting. */
  private stdinBroken = false;

  constructor(options: StdioUpstreamOptions) {
    super(options);
  }

  /**
   * Spawns the upstream and completes the MCP handshake; rejects with a one-line reason. The SDK is
   * loaded after the spawn, while the process boots.
   */
  protected async open(): Promise<UpstreamInfo> {
    this.child = this.spawn();
    const kit = await this.loadKit();
    if (this.state !== 'connecting')
      throw new Error(this.startFailure(kit, await this.ended(new Error('ended during start-up'))));
    const connection = this.attach(this.child, kit);
    try {
      await connection.connect(this.options.connectTimeoutMs ?? UPSTREAM_DEFAULTS.timeoutMs);
    } catch (error) {
      throw new Error(this.startFailure(kit, await this.ended(error)));
    }
    if (this.state !== 'connecting')
      throw new Error(this.startFailure(kit, await this.ended(new Error('ended during start-up'))));
    return connection.info();
  }

  /** The SDK half; if it cannot be loaded (a broken install), the process just spawned is ended too. */
  private async loadKit(): Promise<SdkKit> {
    try {
      return await (this.options.loadSdk?.() ?? import('./sdk-kit.js'));
    } catch (error) {
      await this.end(true);
      throw new Error(oneLine(`could not load the MCP SDK: ${mcpErrorMessage(error)}`));
    }
  }

  /** Spawns the process; its exit ends the adapter. */
  private spawn(): UpstreamProcess {
    const { command, args, cwd, env, logger } = this.options;
    const graceMs = this.options.graceMs ?? UPSTREAM_DEFAULTS.graceMs;
    const child = UpstreamProcess.start({ command, args, cwd, env, graceMs }, logger);
    child.onExit(() => void this.end(false));
    return child;
  }

  /** Connects an SDK client to the process's pipes; a closed stdout or a broken stdin ends the adapter. */
  private attach(child: UpstreamProcess, kit: SdkKit): ClientConnection<ProcessTransport> {
    const { logger } = this.options;
    const maxMessageBytes = this.options.maxMessageBytes ?? MAX_MESSAGE_BYTES;
    const transport = new kit.ProcessTransport({ stdin: child.stdin, stdout: child.stdout, maxMessageBytes, logger });
    transport.onclose = () => {
      if (transport.closeCause?.kind !== 'local') void this.end(false);
    };
    transport.onstdinerror = (error) => {
      logger?.debug({ err: error.message }, 'writing to the upstream stdin failed; ending the upstream');
      this.stdinBroken = true;
      void this.end(false);
    };
    this.connection = new kit.ClientConnection(transport, {
      ...this.options,
      ...(this.relay !== undefined ? { relay: this.relay } : {}),
    });
    return this.connection;
  }

  /** The R-8.8 sequence on the whole process group, then the exit with the stderr tail. */
  protected async shutDown(expected: boolean): Promise<void> {
    this.state = 'gone';
    const child = this.child;
    if (child === undefined) return;
    const transport = this.connection?.transport;
    const graceMs = this.options.graceMs ?? UPSTREAM_DEFAULTS.graceMs;
    // A process that closed its stdout or its stdin is usually exiting: let it, so its own exit status is recorded.
    if (!expected && (transport?.closeCause?.kind === 'eof' || this.stdinBroken)) await child.waitForExit(graceMs);
    await child.terminate(graceMs);
    if (transport !== undefined) {
      await waitAtMost(transport.closed, graceMs);
      await transport.close();
    }
    // Its last words: the exit can be seen before the last stderr chunk is read.
    await child.stderrDrained(STDERR_DRAIN_MS);
    const exit = child.exit ?? { code: null, signal: null };
    this.reportExit({ expected, code: exit.code, signal: exit.signal, detail: child.stderrTail.tail() });
  }

  /** Ends the start-up that failed with `error` (letting a process that is going away exit by itself first). */
  private async ended(error: unknown): Promise<unknown> {
    const child = this.child as UpstreamProcess;
    const transport = this.connection?.transport;
    // A broken pipe or a closed stdout means the process is going away by itself: let it, so that its own
    // exit status and reason are reported instead of "write EPIPE".
    if (isBrokenPipe(error) || transport?.closeCause?.kind === 'eof')
      await child.waitForExit(this.options.graceMs ?? UPSTREAM_DEFAULTS.graceMs);
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
      lastStderrLine: child.stderrTail.reasonLine(),
      connectTimeoutMs: this.options.connectTimeoutMs ?? UPSTREAM_DEFAULTS.timeoutMs,
      closeRequested: this.closeRequested,
    });
  }

  /**
   * For a connection lost while reading the tools: how the process ended and its last stderr line, once
   * the shut-down has recorded them (e.g. ` (exit code 3): cannot load tools`); '' otherwise.
   */
  protected override async lossDetail(outcome: UpstreamCallOutcome): Promise<string> {
    if (outcome.kind !== 'connection-lost' || this.ending === undefined) return '';
    await this.ending;
    const child = this.child as UpstreamProcess;
    const line = child.stderrTail.reasonLine();
    return `${child.exit === undefined ? '' : ` (${describeExit(child.exit)})`}${line === '' ? '' : `: ${line}`}`;
  }

  protected goneDetail(): string {
    const exit = this.exit;
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
