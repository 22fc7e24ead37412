/**
 * Drives one path as an agent would: an SDK `Client` over `StdioClientTransport` spawns the path's
 * process, then sends distinct writes one at a time and times each call. Also measures start-up to the
 * first `tools/list`, the spawned process's peak RSS, and checks the proxy's report file.
 */
import { EventEmitter } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { cpuMs, latencyStats, nowMs, peakRssMb, type LatencyStats } from './measure.js';
import { WARMUP_CALLS, WRITE_TOOL, pathSpec, type PathName, type PathSpec } from './scenarios.js';

const CALL_TIMEOUT_MS = 120_000;
const STDERR_TAIL_CHARS = 2_000;

/** Whether the proxy's report file held every write when the last answer arrived. */
export interface ReportCheck {
  ok: boolean;
  operations: number | null;
  expected: number;
  /** Size of the report file after the last answer. */
  bytes: number | null;
  detail?: string;
}

/** The result of one measured run of a path. */
export interface RunResult extends LatencyStats {
  path: PathName;
  /** The pid of the process the client spawned. */
  pid: number | null;
  /** Peak RSS (`VmHWM`) of the process the client spawned, read just before closing. */
  peakRssMb: number | null;
  /** Only for proxy paths. */
  report: ReportCheck | null;
  /** CPU time the spawned process used during the timed calls (ms; Linux only, else null). */
  cpuMs: number | null;
}

interface Connection {
  client: Client;
  transport: StdioClientTransport;
  spec: PathSpec;
  dir: string;
  stderrTail(): string;
}

/** Spawns the path's process (with `nodeFlags`) and connects a client to it (spawn and `initialize`). */
export async function connectPath(name: PathName, nodeFlags: readonly string[] = [], proxyBin?: string): Promise<Connection> {
  const dir = mkdtempSync(join(tmpdir(), 'harness-bench-'));
  const spec = pathSpec(name, dir, nodeFlags, proxyBin);
  const transport = new StdioClientTransport({
    command: spec.command,
    args: spec.args,
    env: { ...(process.env as Record<string, string>), ...spec.env },
    stderr: 'pipe',
  });
  let tail = '';
  transport.stderr?.on('data', (chunk: Buffer) => (tail = (tail + chunk.toString()).slice(-STDERR_TAIL_CHARS)));
  const client = new Client({ name: 'bench-agent', version: '1.0.0' });
  try {
    await client.connect(transport, { timeout: CALL_TIMEOUT_MS });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`${name}: could not connect (${String(error)}); stderr: ${tail.trim()}`);
  }
  return { client, transport, spec, dir, stderrTail: () => tail };
}

/** Closes the client (stdin EOF, then the SDK's grace periods) and removes the temp folder. */
export async function closePath(connection: Connection): Promise<void> {
  await connection.client.close();
  rmSync(connection.dir, { recursive: true, force: true });
}

/** Sends write number `n` (distinct arguments for every `n`); throws if the answer is not a tool result. */
async function write(client: Client, n: number): Promise<void> {
  const result = await client.callTool({ name: WRITE_TOOL, arguments: { n, note: 'bench' } }, undefined, {
    timeout: CALL_TIMEOUT_MS,
  });
  if (!Array.isArray(result.content)) throw new Error(`write ${n}: unexpected answer ${JSON.stringify(result)}`);
}

/** Runs `calls` timed distinct writes after the warm-up through one freshly spawned path. */
export async function measurePath(
  name: PathName,
  calls: number,
  nodeFlags: readonly string[] = [],
  proxyBin?: string,
): Promise<RunResult> {
  const connection = await connectPath(name, nodeFlags, proxyBin);
  try {
    for (let i = 0; i < WARMUP_CALLS; i++) await write(connection.client, i);
    const cpuBefore = cpuMs(connection.transport.pid);
    const samples = new Array<number>(calls);
    for (let i = 0; i < calls; i++) {
      const start = nowMs();
      await write(connection.client, WARMUP_CALLS + i);
      samples[i] = nowMs() - start;
    }
    const report = connection.spec.reportFile === null ? null : checkReport(connection.spec.reportFile, WARMUP_CALLS + calls);
    const pid = connection.transport.pid;
    const cpuAfter = cpuMs(pid);
    const cpu = cpuBefore === null || cpuAfter === null ? null : cpuAfter - cpuBefore;
    return { path: name, pid, ...latencyStats(samples), peakRssMb: peakRssMb(pid), report, cpuMs: cpu };
  } catch (error) {
    throw new Error(
      `${name} at N=${calls}: ${error instanceof Error ? error.message : String(error)}; stderr: ${connection.stderrTail().trim()}`,
    );
  } finally {
    await closePath(connection);
  }
}

/** The result of one parallel run: every write sent at once. */
export interface ParallelResult {
  path: PathName;
  calls: number;
  wallMs: number;
  peakRssMb: number | null;
  report: ReportCheck | null;
}

/** Sends `calls` distinct writes at once through one freshly spawned path; wall time and peak RSS. */
export async function measureParallel(name: PathName, calls: number): Promise<ParallelResult> {
  const connection = await connectPath(name);
  // The SDK's stdio client waits for 'drain' once per message written while the pipe is full: with
  // `calls` messages sent at once, that is up to `calls` listeners on the process's stdin, by design here.
  const defaultMaxListeners = EventEmitter.defaultMaxListeners;
  EventEmitter.defaultMaxListeners = calls + 10;
  try {
    const start = nowMs();
    await Promise.all(Array.from({ length: calls }, (_, i) => write(connection.client, i)));
    const wallMs = nowMs() - start;
    const report = connection.spec.reportFile === null ? null : checkReport(connection.spec.reportFile, calls);
    return { path: name, calls, wallMs, peakRssMb: peakRssMb(connection.transport.pid), report };
  } catch (error) {
    throw new Error(
      `${name} with ${calls} parallel writes: ${error instanceof Error ? error.message : String(error)}; stderr: ${connection.stderrTail().trim()}`,
    );
  } finally {
    EventEmitter.defaultMaxListeners = defaultMaxListeners;
    await closePath(connection);
  }
}

/** Milliseconds from spawning the path's process to the first successful `tools/list`. */
export async function measureStartup(name: PathName, proxyBin?: string): Promise<number> {
  const start = nowMs();
  const connection = await connectPath(name, [], proxyBin);
  try {
    const listed = await connection.client.listTools(undefined, { timeout: CALL_TIMEOUT_MS });
    if (!listed.tools.some((tool) => tool.name === WRITE_TOOL)) throw new Error(`${name}: ${WRITE_TOOL} not listed`);
    return nowMs() - start;
  } finally {
    await closePath(connection);
  }
}

/** Reads the report file as it is after the last answer: it must parse and hold one operation per write. */
export function checkReport(file: string, expected: number): ReportCheck {
  let bytes: number | null = null;
  try {
    const text = readFileSync(file, 'utf8');
    bytes = Buffer.byteLength(text);
    const operations = (JSON.parse(text) as { report?: { operations?: unknown } }).report?.operations;
    if (!Array.isArray(operations)) return { ok: false, operations: null, expected, bytes, detail: 'report.operations missing' };
    return { ok: operations.length === expected, operations: operations.length, expected, bytes };
  } catch (error) {
    return { ok: false, operations: null, expected, bytes, detail: error instanceof Error ? error.message : String(error) };
  }
}
