/**
 * The CLI's `main(argv, io)` run in the test process, for behaviour that does not need a real process of
 * its own (the e2e project keeps one spawned check per process-level concern). The shapes:
 *
 * - `runCli(argv)` runs a command to its end and answers its exit code, stdout (what cac prints with
 *   `console.log` included) and stderr — every command's flag and bad-input tests use it;
 * - `startCliServer(argv)` / `startCliProxy` / `withCliProxy` start a command that serves MCP on stdio
 *   (`proxy`, the demo server) and connect the SDK's `Client` to it over the same newline-delimited
 *   JSON-RPC framing the real stdin and stdout carry. Closing the client ends stdin (the agent
 *   disconnects), and `stop()` answers the exit code;
 * - `startCliRaw(argv)` drives any such command with raw lines.
 *
 * Two more in-process shapes of the proxy live beside it: `cli-proxy-lines.ts` (raw JSON-RPC lines with
 * `initialize`/`request` helpers and the CLI's signal handler) and `cli-proxy-child.ts` (a look-alike of
 * `test/support/raw-proxy.ts`'s spawned proxy, so the e2e fault checkers read it unchanged).
 *
 * Upstreams the proxy starts are still real processes (the counting fixtures keep their ledger).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, type Readable, type Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult, JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { vi } from 'vitest';
import { main } from '../../src/cli/main.js';
import { readLedger, type FixtureLedgerEntry } from '../../e2e/fixtures/lib/ledger.mjs';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const FIXTURES = join(ROOT, 'e2e/fixtures');
/** Proxy flags for the raw counting upstream (no SDK: the cheapest real upstream process). */
export const COUNTING = ['--upstream-command', process.execPath, '--upstream-arg', join(FIXTURES, 'counting-server.mjs')];

export interface CliOptions {
  /** The command's current folder (default: a new temp folder, removed by `stop()`/after `runCli`). */
  cwd?: string;
  /**
   * The command's environment as `main` reads it (default: empty, so a CI's own variables such as
   * GITHUB_STEP_SUMMARY never reach a test). Spawned upstreams still inherit this process's environment.
   */
  env?: Record<string, string | undefined>;
  /** Receives the command's signal handler (default: none is ever called), to deliver a SIGINT in-process. */
  onSignal?: (handler: (signal: string) => void) => void;
  /** stderr says it is a terminal (`isTTY`), as a real one would: the command draws what it draws there. */
  tty?: boolean;
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

function collect(stream: Readable): () => string {
  let text = '';
  stream.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  return () => text;
}

function ioFor(cwd: string, env: Record<string, string | undefined>, onSignal?: CliOptions['onSignal']) {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  return {
    stdin,
    stdout,
    stderr,
    io: {
      stdin,
      stdout,
      stderr,
      env,
      cwd,
      onSignal: (handler: (signal: string) => void) => {
        onSignal?.(handler);
        return () => undefined;
      },
    },
  };
}

/**
 * Runs one command to its end in-process. stdin stays open (an agent that is still connected) until the
 * command returns. cac's own output (--help, --version) goes through console.log and is in `stdout`.
 */
export async function runCli(argv: string[], options: CliOptions = {}): Promise<CliResult> {
  const own = options.cwd === undefined ? mkdtempSync(join(tmpdir(), 'harness-cli-')) : null;
  const { stdin, stdout, stderr, io } = ioFor(options.cwd ?? own!, options.env ?? {}, options.onSignal);
  if (options.tty === true) Object.assign(stderr, { isTTY: true });
  const out = collect(stdout);
  const err = collect(stderr);
  const logged: string[] = [];
  const spy = vi.spyOn(console, 'log').mockImplementation((...parts: unknown[]) => void logged.push(parts.join(' ')));
  try {
    const code = await main(argv, io);
    await new Promise((resolve) => setImmediate(resolve));
    return { code, stdout: out() + logged.map((line) => `${line}\n`).join(''), stderr: err() };
  } finally {
    stdin.end();
    spy.mockRestore();
    if (own !== null) rmSync(own, { recursive: true, force: true });
  }
}

/** A Transport over a pair of streams with the stdio framing (one JSON message per line). */
class StreamTransport implements Transport {
  private readonly buffer = new ReadBuffer();
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  constructor(
    private readonly from: Readable,
    private readonly to: Writable,
  ) {}

  async start(): Promise<void> {
    this.from.on('data', (chunk: Buffer) => {
      this.buffer.append(chunk);
      for (let message = this.buffer.readMessage(); message !== null; message = this.buffer.readMessage())
        this.onmessage?.(message);
    });
    this.from.on('end', () => this.onclose?.());
  }

  async send(message: JSONRPCMessage): Promise<void> {
    this.to.write(serializeMessage(message));
  }

  async close(): Promise<void> {
    this.to.end();
    this.onclose?.();
  }
}

export interface CliServer {
  client: Client;
  dir: string;
  /** Everything the command wrote to stderr so far. */
  stderr(): string;
  call(
    name: string,
    args?: Record<string, unknown>,
    options?: { timeout?: number; signal?: AbortSignal },
  ): Promise<CallToolResult>;
  /** Ends the agent's session (stdin EOF) and answers the command's exit code; removes its own temp folder. */
  stop(): Promise<number>;
  /** The exit code, once the command has returned. */
  readonly exit: Promise<number>;
}

/** Starts a stdio MCP command in-process (`['proxy', …]`, or `[]` for the demo server) and connects a client. */
export async function startCliServer(argv: string[], options: CliOptions = {}): Promise<CliServer> {
  const own = options.cwd === undefined ? mkdtempSync(join(tmpdir(), 'harness-cli-')) : null;
  const dir = options.cwd ?? own!;
  const { stdin, stdout, stderr, io } = ioFor(dir, options.env ?? {});
  const err = collect(stderr);
  const exit = main(argv, io);
  const client = new Client({ name: 'in-process-agent', version: '1.0.0' });
  try {
    await client.connect(new StreamTransport(stdout, stdin), { timeout: 30_000 });
  } catch (error) {
    stdin.end();
    throw new Error(`the command did not start: ${String(error)}; stderr: ${err()}`);
  }
  let stopped: Promise<number> | null = null;
  return {
    client,
    dir,
    stderr: err,
    exit,
    call: async (name, args = {}, callOptions = {}) =>
      (await client.callTool({ name, arguments: args }, undefined, {
        timeout: callOptions.timeout ?? 30_000,
        ...(callOptions.signal ? { signal: callOptions.signal } : {}),
      })) as CallToolResult,
    stop() {
      stopped ??= (async () => {
        await client.close();
        const code = await exit;
        if (own !== null) rmSync(own, { recursive: true, force: true });
        return code;
      })();
      return stopped;
    },
  };
}

/** A stdio MCP command in-process, driven with raw JSON-RPC lines (as `e2e/fixtures/lib/raw-child.mjs` drives a child). */
export interface CliRaw {
  /** Writes a message (serialised with JSON.stringify) or a raw line, plus "\n". */
  send(message: Record<string, unknown> | string): void;
  /** The first stdout message matching `predicate`, waiting up to `timeoutMs` (default 5000). */
  next(predicate: (message: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>;
  /** stdout lines that were not JSON, in order. */
  nonJsonLines: string[];
  stderr(): string;
  /** Ends stdin (the agent disconnects). */
  end(): void;
  /** The exit code, once the command has returned. */
  readonly exit: Promise<number>;
  /** Whether the command has returned. */
  returned(): boolean;
}

export function startCliRaw(argv: string[], options: CliOptions & { cwd: string }): CliRaw {
  const { stdin, stdout, stderr, io } = ioFor(options.cwd, options.env ?? {});
  const err = collect(stderr);
  let returned = false;
  const exit = main(argv, io).finally(() => (returned = true));
  const messages: Array<Record<string, unknown>> = [];
  const nonJsonLines: string[] = [];
  let partial = '';
  stdout.on('data', (chunk: Buffer) => {
    const lines = (partial + chunk.toString('utf8')).split('\n');
    partial = lines.pop()!;
    for (const line of lines) {
      try {
        messages.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        nonJsonLines.push(line);
      }
    }
  });
  return {
    send: (message) => void stdin.write(`${typeof message === 'string' ? message : JSON.stringify(message)}\n`),
    async next(predicate, timeoutMs = 5000) {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const found = messages.find(predicate);
        if (found !== undefined) return found;
        if (Date.now() > until) throw new Error(`no matching message in ${timeoutMs} ms; stderr: ${err()}`);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    },
    nonJsonLines,
    stderr: err,
    end: () => void stdin.end(),
    exit,
    returned: () => returned,
  };
}

/** A proxy session in-process in front of a real upstream process, with its report file and ledger. */
export interface CliProxy extends CliServer {
  reportFile: string;
  ledgerFile: string;
  report(): Record<string, any>;
  ledger(): FixtureLedgerEntry[];
}

/**
 * `proxy <flags> --report-file <temp>/report.json`, the upstream told its ledger file with
 * `--upstream-env-var FIXTURE_LEDGER=…` (in-process, the upstream inherits this process's environment).
 */
export async function startCliProxy(flags: string[], options: CliOptions = {}): Promise<CliProxy> {
  const dir = options.cwd ?? mkdtempSync(join(tmpdir(), 'harness-proxy-'));
  const reportFile = join(dir, 'report.json');
  const ledgerFile = join(dir, 'ledger.jsonl');
  const server = await startCliServer(
    ['proxy', ...flags, '--upstream-env-var', `FIXTURE_LEDGER=${ledgerFile}`, '--report-file', reportFile],
    { ...options, cwd: dir },
  );
  return {
    ...server,
    reportFile,
    ledgerFile,
    report: () => JSON.parse(readFileSync(reportFile, 'utf8')) as Record<string, any>,
    ledger: () => readLedger(ledgerFile),
    async stop() {
      const code = await server.stop();
      if (options.cwd === undefined) rmSync(dir, { recursive: true, force: true });
      return code;
    },
  };
}

/** Runs `body` against an in-process proxy; always stops it. `body` may read the report after `stop()`. */
export async function withCliProxy<T>(
  flags: string[],
  body: (run: CliProxy) => Promise<T>,
  options: CliOptions = {},
): Promise<T> {
  const dir = options.cwd ?? mkdtempSync(join(tmpdir(), 'harness-proxy-'));
  const run = await startCliProxy(flags, { ...options, cwd: dir });
  try {
    return await body(run);
  } finally {
    await run.stop();
    if (options.cwd === undefined) rmSync(dir, { recursive: true, force: true });
  }
}

/** The text of a tool result's first block. */
export function textOf(result: CallToolResult): string {
  const block = result.content[0];
  return block && block.type === 'text' ? block.text : '';
}

/** Waits until `condition` holds (polling every 10 ms), or fails after `timeoutMs`. */
export async function waitUntil(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
