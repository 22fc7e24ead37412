/**
 * The compiled proxy driven with raw JSON-RPC lines instead of an SDK `Client`, for what the SDK would
 * hide or refuse: exact bytes (an own `__proto__` argument, request `_meta`), malformed lines, tool lists
 * the SDK rejects, a client that stops reading, signals. Everything is bounded; `dispose()` always ends it.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readLedger } from '../../e2e/fixtures/lib/ledger.mjs';
import type { FixtureLedgerEntry } from '../../e2e/fixtures/lib/ledger.mjs';
import { INITIALIZE, spawnRaw, waitFor, waitForExit } from '../../e2e/fixtures/lib/raw-child.mjs';
import type { RawChild, RawMessage } from '../../e2e/fixtures/lib/raw-child.mjs';
import { BIN, requireBuild, type ReportFile } from './proxy-harness.js';

/** A running proxy driven with raw JSON-RPC lines, with its temp folder, report file and upstream ledger. */
export interface RawProxy {
  raw: RawChild;
  dir: string;
  reportFile: string;
  ledgerFile: string;
  /** The path given to the upstream in env FIXTURE_PIDFILE (fixtures that write their pids use it). */
  pidFile: string;
  /** Sends initialize and notifications/initialized; answers the initialize result. */
  initialize(): Promise<Record<string, unknown>>;
  /** Sends one request with the next id and answers its response message (result or error). */
  request(method: string, params?: unknown, timeoutMs?: number): Promise<RawMessage>;
  /** The response to `id` (for requests written with `raw.send` as a string). */
  response(id: number | string | null, timeoutMs?: number): Promise<RawMessage>;
  /** The report file, parsed. */
  report(): ReportFile;
  /** The upstream's ledger (env FIXTURE_LEDGER). */
  ledger(): FixtureLedgerEntry[];
  /** Closes the proxy's stdin and waits for its exit (SIGKILL after `timeoutMs`). */
  stop(timeoutMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Ends the proxy if still running and removes the temp folder. Never throws. */
  dispose(): Promise<void>;
}

/** Options of {@link spawnProxy}. */
/** The JSON-RPC conversation over a proxy's raw lines: a response by id, the handshake, numbered requests. */
export function rawConversation(raw: RawChild): Pick<RawProxy, 'response' | 'initialize' | 'request'> {
  let nextId = 1;
  const response = (id: number | string | null, timeoutMs = 10_000) =>
    raw.next((m) => m['id'] === id && ('result' in m || 'error' in m), timeoutMs);
  return {
    response,
    async initialize() {
      raw.send(INITIALIZE);
      const answer = await response(0, 30_000);
      raw.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      return answer['result'] as Record<string, unknown>;
    },
    async request(method, params, timeoutMs) {
      const id = nextId++;
      raw.send({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });
      return response(id, timeoutMs);
    },
  };
}

export interface SpawnProxyOptions {
  /** Extra environment variables (on top of the full environment, FIXTURE_LEDGER and FIXTURE_PIDFILE). */
  env?: Record<string, string>;
  /** Runs before the proxy starts, with the temp folder and the report file path (e.g. to plant a link). */
  prepare?: (dir: string, reportFile: string) => void;
}

/** Starts `node dist/cli/bin.js proxy <flags> --report-file <tmp>/report.json` with raw pipes. */
export function spawnProxy(flags: string[], { env = {}, prepare }: SpawnProxyOptions = {}): RawProxy {
  requireBuild();
  const dir = mkdtempSync(join(tmpdir(), 'harness-raw-'));
  const reportFile = join(dir, 'report.json');
  const ledgerFile = join(dir, 'ledger.jsonl');
  const pidFile = join(dir, 'pids');
  prepare?.(dir, reportFile);
  const raw = spawnRaw(BIN, {
    args: ['proxy', ...flags, '--report-file', reportFile],
    env: { FIXTURE_LEDGER: ledgerFile, BOOKING_LEDGER: ledgerFile, FIXTURE_PIDFILE: pidFile, ...env },
  });
  const stop = async (timeoutMs = 10_000) => {
    raw.child.stdin.end();
    try {
      return await waitForExit(raw.child, timeoutMs);
    } catch (error) {
      raw.child.kill('SIGKILL');
      throw error;
    }
  };
  return {
    raw,
    dir,
    reportFile,
    ledgerFile,
    pidFile,
    ...rawConversation(raw),
    stop,
    report: () => JSON.parse(readFileSync(reportFile, 'utf8')) as ReportFile,
    ledger: () => readLedger(ledgerFile),
    async dispose() {
      if (raw.child.exitCode === null && raw.child.signalCode === null) await stop(5_000).catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The `result` of a response, failing clearly when it is an error. */
export function resultOf(message: RawMessage): Record<string, unknown> {
  if (!('result' in message)) throw new Error(`expected a result, got ${JSON.stringify(message)}`);
  return message['result'] as Record<string, unknown>;
}

/** The first text block of a raw tools/call result. */
export function rawText(result: Record<string, unknown>): string {
  const content = result['content'] as Array<{ type: string; text?: string }> | undefined;
  return content?.[0]?.text ?? '';
}

/** The pids in the upstream's pidfile once it holds `count` of them; each is added to `seen` (for clean-up). */
export async function pidsFromFile(p: RawProxy, count: number, seen: Set<number>): Promise<number[]> {
  const read = () =>
    existsSync(p.pidFile)
      ? readFileSync(p.pidFile, 'utf8')
          .split('\n')
          .filter((l) => l !== '')
          .map(Number)
      : [];
  const pids = await waitFor(() => (read().length >= count ? read() : undefined), 10_000, `${count} pid(s) in ${p.pidFile}`);
  for (const pid of pids) seen.add(pid);
  return pids;
}
