/**
 * Streamable HTTP on both sides of the compiled proxy, with real processes only: the bundled booking
 * server in `--http 0` mode (its stderr banner names the URL; its ledger is the ground truth), the proxy
 * with `--listen 127.0.0.1:0 --report-dir <tmp>` (it prints `agents connect to <url>` once ready; one
 * report file per agent session), `@modelcontextprotocol/server-everything` over HTTP, and an SDK
 * `Client` over `StreamableHTTPClientTransport` as the agent. Every wait is bounded; `stopAll()` kills
 * whatever is still running (use it in `afterEach`/`finally`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { waitFor } from '../../e2e/fixtures/lib/raw-child.mjs';
import { BIN, BOOKING_SERVER, readLines, requireBuild, ROOT, type ReportFile } from './proxy-harness.js';

/** The entry of server-everything, run with `streamableHttp` and env PORT. */
export const EVERYTHING_SERVER = join(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');

/** How a process ended. */
export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A spawned `node` process with its output captured. */
export interface NodeProcess {
  pid: number;
  /** stdout and stderr so far. */
  stdout(): string;
  stderr(): string;
  /** Resolves when the process has exited. */
  exited: Promise<Exit>;
  /** Waits (bounded) until `pattern` matches stdout + stderr; answers the match. */
  waitForOutput(pattern: RegExp, timeoutMs: number, what: string): Promise<RegExpExecArray>;
  /** Sends `signal` and waits up to `timeoutMs` for the exit (then SIGKILL and throw). */
  stop(signal?: NodeJS.Signals, timeoutMs?: number): Promise<Exit>;
}

const running = new Set<NodeProcess>();

/** Spawns `node <args…>` with `env` on top of the full environment; stdin is closed. */
export function spawnNode(args: string[], env: Record<string, string> = {}, cwd = ROOT): NodeProcess {
  const child: ChildProcess = spawn(process.execPath, args, {
    env: { ...process.env, ...env },
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  // 'close', not 'exit': only then has everything the process wrote to stdout and stderr been read.
  const exited = new Promise<Exit>((resolve) => child.once('close', (code, signal) => resolve({ code, signal })));
  const hasExited = (): boolean => child.exitCode !== null || child.signalCode !== null;
  const proc: NodeProcess = {
    pid: child.pid ?? -1,
    stdout: () => out,
    stderr: () => err,
    exited,
    waitForOutput: (pattern, timeoutMs, what) =>
      waitFor(
        () => pattern.exec(out + err) ?? (hasExited() ? fail(`${what}: the process exited; stderr: ${err}`) : null),
        timeoutMs,
        what,
      ),
    async stop(signal = 'SIGTERM', timeoutMs = 10_000) {
      if (!hasExited()) child.kill(signal);
      const timer = new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), timeoutMs).unref());
      const exit = await Promise.race([exited, timer]);
      if (exit !== 'late') return exit;
      child.kill('SIGKILL');
      throw new Error(`process ${child.pid} still running ${timeoutMs} ms after ${signal}`);
    },
  };
  running.add(proc);
  void exited.then(() => running.delete(proc));
  return proc;
}

function fail(message: string): never {
  throw new Error(message);
}

/** Kills every process spawned here that is still running (SIGKILL) and waits for their exits. */
export async function stopAll(): Promise<void> {
  await Promise.all([...running].map((proc) => proc.stop('SIGKILL', 5_000).catch(() => undefined)));
}

/** A port that was free a moment ago (a throw-away listener on 127.0.0.1:0, closed again). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A temp folder, removed by `removeDir`. */
export function tempDir(prefix = 'harness-http-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Removes a temp folder; never throws. */
export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** The bundled booking server serving Streamable HTTP. */
export interface BookingHttp {
  proc: NodeProcess;
  url: string;
  ledgerFile: string;
  /** Executed `create_booking` lines of the ledger, optionally of one guest. */
  bookings(guest?: string): Array<Record<string, unknown>>;
}

/** Starts `booking-server --http 0` with its ledger at `ledgerFile`; resolves with the URL of its banner. */
export async function startBookingHttp(ledgerFile: string, env: Record<string, string> = {}): Promise<BookingHttp> {
  requireBuild();
  const proc = spawnNode([BOOKING_SERVER, '--http', '0'], { BOOKING_LEDGER: ledgerFile, ...env });
  const [, url] = await proc.waitForOutput(/on (http:\/\/127\.0\.0\.1:\d+\/mcp)/, 20_000, 'the booking server banner');
  return { proc, url: url!, ledgerFile, bookings: (guest) => bookingsIn(ledgerFile, guest) };
}

/** The `create_booking` executions in a booking-server ledger, optionally of one guest. */
export function bookingsIn(ledgerFile: string, guest?: string): Array<Record<string, unknown>> {
  return readLines(ledgerFile).filter(
    (line) =>
      line['tool'] === 'create_booking' && (guest === undefined || (line['arguments'] as { guest?: unknown }).guest === guest),
  );
}

/** Starts server-everything in its Streamable HTTP mode on a free port; resolves with its `/mcp` URL. */
export async function startEverythingHttp(): Promise<{ proc: NodeProcess; url: string }> {
  const port = await freePort();
  const proc = spawnNode([EVERYTHING_SERVER, 'streamableHttp'], { PORT: String(port) });
  await proc.waitForOutput(new RegExp(`listening on port ${port}`), 20_000, 'server-everything listening');
  return { proc, url: `http://127.0.0.1:${port}/mcp` };
}

/** The proxy serving agents over Streamable HTTP, one report file per session in `reportDir`. */
export interface ListeningProxy {
  proc: NodeProcess;
  /** Where agents connect (`http://127.0.0.1:<port>/mcp`). */
  url: string;
  dir: string;
  reportDir: string;
  /** Given to the proxy (and so to a stdio upstream) as env BOOKING_LEDGER. */
  ledgerFile: string;
  /** The report files in `reportDir`, sorted by name (session order). */
  reportFiles(): string[];
  /** The report of one session (by its MCP session id). */
  reportOf(sessionId: string): ReportFile;
  /** Waits (bounded) until the session's report satisfies `accept`. */
  waitForReport(sessionId: string, accept: (report: ReportFile) => boolean, timeoutMs?: number): Promise<ReportFile>;
}

/** Starts `proxy <upstreamFlags> --listen 127.0.0.1:0 --report-dir <tmp> <extra>` and reads the agent URL. */
export async function startListeningProxy(
  upstreamFlags: string[],
  extra: string[] = [],
  env: Record<string, string> = {},
): Promise<ListeningProxy> {
  requireBuild();
  const dir = tempDir();
  const reportDir = join(dir, 'reports');
  const ledgerFile = join(dir, 'ledger.jsonl');
  const args = [BIN, 'proxy', ...upstreamFlags, '--listen', '127.0.0.1:0', '--report-dir', reportDir, ...extra];
  const proc = spawnNode(args, { BOOKING_LEDGER: ledgerFile, ...env }, dir);
  const ready = await proc
    .waitForOutput(/agents connect to (http:\/\/\S+\/mcp)/, 30_000, 'the proxy ready line')
    .catch(async (error: unknown) => {
      await proc.stop('SIGKILL', 5_000).catch(() => undefined);
      removeDir(dir);
      throw error;
    });
  const url = ready[1]!;
  const reportFiles = () =>
    readdirSync(reportDir)
      .filter((name) => /^session-\d{4}-.*\.json$/.test(name))
      .sort();
  const reportOf = (sessionId: string): ReportFile => {
    const name = reportFiles().find((file) => file.endsWith(`-${sessionFileId(sessionId)}.json`));
    if (name === undefined) throw new Error(`no report file for session ${sessionId} in ${reportDir}`);
    return JSON.parse(readFileSync(join(reportDir, name), 'utf8')) as ReportFile;
  };
  const tryReport = (sessionId: string): ReportFile | null => {
    try {
      return reportOf(sessionId);
    } catch {
      return null;
    }
  };
  return {
    proc,
    url,
    dir,
    reportDir,
    ledgerFile,
    reportFiles,
    reportOf,
    waitForReport: (sessionId, accept, timeoutMs = 10_000) =>
      waitFor(
        () => {
          const report = tryReport(sessionId);
          return report !== null && accept(report) ? report : null;
        },
        timeoutMs,
        `the report of session ${sessionId}`,
      ),
  };
}

/** The id part of a session's report file name (`session-0001-<this>.json`). */
export function sessionFileId(sessionId: string): string {
  return sessionId.replace(/[^A-Za-z0-9_-]/g, '').slice(0, 8);
}

/** An agent connected by URL; `call` makes it a `ToolCaller` for the scripted agents. */
export interface HttpAgent {
  client: Client;
  transport: StreamableHTTPClientTransport;
  sessionId: string;
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  /** Ends the MCP session with an HTTP DELETE, then closes the client. */
  terminate(): Promise<void>;
}

/** Connects an SDK `Client` over Streamable HTTP to `url`. */
export async function connectHttpAgent(url: string, name = 'e2e-http-agent'): Promise<HttpAgent> {
  const transport = new StreamableHTTPClientTransport(new URL(url));
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(transport, { timeout: 30_000 });
  const sessionId = transport.sessionId ?? fail('the proxy gave the agent no Mcp-Session-Id');
  return {
    client,
    transport,
    sessionId,
    call: async (tool, args = {}) =>
      (await client.callTool({ name: tool, arguments: args }, undefined, { timeout: 30_000 })) as CallToolResult,
    async terminate() {
      await transport.terminateSession();
      await client.close();
    },
  };
}
