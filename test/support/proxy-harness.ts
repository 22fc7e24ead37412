/**
 * Runs the compiled proxy (`dist/cli/bin.js proxy …`) as a real process in front of a real upstream,
 * driven by an SDK `Client` as the agent. The upstream's own ledger is the ground truth; the report file
 * is what the proxy concluded. Every test gets its own temp folder; everything is closed in `stop()`.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult, ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';

export const ROOT = resolve(import.meta.dirname, '../..');
export const BIN = join(ROOT, 'dist/cli/bin.js');
export const BOOKING_SERVER = join(ROOT, 'dist/examples/booking-server/server.js');
export const FIXTURES = join(ROOT, 'e2e/fixtures');

/** Fails fast with a clear message when the build is missing (`npm test` builds first). */
export function requireBuild(): void {
  if (!existsSync(BIN) || !existsSync(BOOKING_SERVER)) throw new Error('dist/ is missing: run `npm run build` first');
}

export interface ProxyRun {
  client: Client;
  dir: string;
  reportFile: string;
  ledgerFile: string;
  /** Everything the proxy wrote to stderr so far. */
  stderr(): string;
  /** The proxy's pid. */
  pid: number | undefined;
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  /** The report file, parsed. */
  report(): ReportFile;
  /** Lines of the upstream's ledger (JSON objects). */
  ledger(): Array<Record<string, unknown>>;
  /**
   * Closes the agent side (stdin EOF) and waits for the proxy to exit, as the SDK's client does: 2 s,
   * then SIGTERM, 2 s, then SIGKILL.
   */
  stop(): Promise<void>;
  /**
   * Closes the agent side (stdin EOF) and waits up to `timeoutMs` for the proxy to end by itself, as an
   * agent that waits for it would; then {@link stop}. For work the proxy does after the agent has left
   * (the effects' snapshot after the run) that can take longer than the SDK's 2 s on a loaded machine.
   */
  finish(timeoutMs: number): Promise<void>;
}

export interface ReportFile {
  verdict: string;
  status: string;
  certification: string;
  harnessVersion: string;
  report: {
    verdict: string;
    verdictReason: string;
    kind: string;
    operations: Array<{ tool: string; executions: number; attempts: number; outcome: string }>;
    violations: Array<{ type: string; tool: string; duplicate?: Record<string, unknown> }>;
    observations: Array<{ type: string; tool: string }>;
    coverage: Record<string, unknown>;
  };
  score: { overall: number | null; verdict: string; capped: boolean; dimensions: Record<string, unknown> };
  patches: Array<{ id: string }>;
  toolClassification: Array<{ name: string; class: string; reason: string }>;
  startupError?: string;
}

export interface StartOptions {
  /** Proxy flags after `proxy` (the upstream flags included). Defaults to the booking server. */
  flags?: string[];
  /** Extra flags appended to the default booking-server flags. */
  extra?: string[];
  env?: Record<string, string>;
  /** The agent's client capabilities (default: none). */
  capabilities?: ClientCapabilities;
  /** Sets the agent's handlers (elicitation, sampling, …) before it connects. */
  setup?: (client: Client) => void;
}

/** Starts the proxy in front of an upstream (default: the bundled booking server) with a report file. */
export async function startProxy(options: StartOptions = {}): Promise<ProxyRun> {
  requireBuild();
  const dir = mkdtempSync(join(tmpdir(), 'harness-e2e-'));
  const reportFile = join(dir, 'report.json');
  const ledgerFile = join(dir, 'ledger.jsonl');
  const upstreamFlags = options.flags ?? ['--upstream-command', process.execPath, '--upstream-arg', BOOKING_SERVER];
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'proxy', ...upstreamFlags, '--report-file', reportFile, ...(options.extra ?? [])],
    env: { ...(process.env as Record<string, string>), BOOKING_LEDGER: ledgerFile, FIXTURE_LEDGER: ledgerFile, ...options.env },
    cwd: dir,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: 'e2e-agent', version: '1.0.0' }, { capabilities: options.capabilities ?? {} });
  options.setup?.(client);
  await client.connect(transport, { timeout: 30_000 });
  return {
    client,
    dir,
    reportFile,
    ledgerFile,
    stderr: () => stderr,
    pid: transport.pid ?? undefined,
    call: async (name, args = {}) =>
      (await client.callTool({ name, arguments: args }, undefined, { timeout: 30_000 })) as CallToolResult,
    report: () => JSON.parse(readFileSync(reportFile, 'utf8')) as ReportFile,
    ledger: () => readLines(ledgerFile),
    stop: async () => {
      await client.close();
    },
    finish: async (timeoutMs) => {
      // The SDK's transport keeps its child private; its stdin is what an agent closes when it leaves.
      const child = (transport as unknown as { _process?: ChildProcess })._process;
      if (child !== undefined && child.exitCode === null && child.signalCode === null) {
        const exited = new Promise<void>((done) => child.once('close', () => done()));
        child.stdin?.end();
        await Promise.race([exited, sleep(timeoutMs, undefined, { ref: false })]);
      }
      await client.close();
    },
  };
}

/** Parses a JSON-lines file; a missing file is empty. */
export function readLines(file: string): Array<Record<string, unknown>> {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** The text of a tool result's first block. */
export function textOf(result: CallToolResult): string {
  const block = result.content[0];
  return block && block.type === 'text' ? block.text : '';
}

/** Removes a test's temp folder. */
export function cleanup(run: ProxyRun | undefined): void {
  if (run) rmSync(run.dir, { recursive: true, force: true });
}
