/**
 * The whole CLI in-process (`main(['proxy', …], io)`: flags, wiring, report file, stderr lines, exit
 * code), driven with raw JSON-RPC lines on its stdin/stdout pipes like `test/support/raw-proxy.ts` drives
 * the compiled proxy: the same exact bytes reach the stdio agent side, and the upstream is whatever the
 * flags say — a real spawned fixture process (`--upstream-command`) or a URL. What the proxy's own process
 * adds (its start-up, the real stdin/stdout of a process, signals, exit status) is proven in `e2e/`.
 * The upstream inherits this process's environment; fixture variables go with `--upstream-env-var`.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { main } from '../../src/cli/main.js';
import { readLedger, type FixtureLedgerEntry } from '../../e2e/fixtures/lib/ledger.mjs';
import { INITIALIZE, waitFor, type RawMessage } from '../../e2e/fixtures/lib/raw-child.mjs';
import type { ReportFile } from './proxy-harness.js';

/** The proxy CLI running in this process, with its temp folder, report file and upstream ledger. */
export interface LinesProxy {
  dir: string;
  reportFile: string;
  ledgerFile: string;
  /** Resolves with the exit code `main` returned. */
  exit: Promise<number>;
  /** Everything the CLI wrote to stderr so far. */
  stderr(): string;
  /** Writes a message (serialised with JSON.stringify) or a raw line, plus "\n", to the proxy's stdin. */
  send(message: RawMessage | string): void;
  /** Sends initialize and notifications/initialized; answers the initialize result. */
  initialize(): Promise<Record<string, unknown>>;
  /** Sends one request with the next id and answers its response message (result or error). */
  request(method: string, params?: unknown, timeoutMs?: number): Promise<RawMessage>;
  /** The response to `id` (for requests written with `send` as a string). */
  response(id: number | string | null, timeoutMs?: number): Promise<RawMessage>;
  /** The report file, parsed. */
  report(): ReportFile;
  /** The upstream's ledger (FIXTURE_LEDGER). */
  ledger(): FixtureLedgerEntry[];
  /** A signal as the process would get it (the CLI's signal handler). */
  signal(name: string): void;
  /** Closes the proxy's stdin (the agent leaves) and answers the exit code. */
  stop(): Promise<number>;
  /** Stops if still running and removes the temp folder. Never throws. */
  dispose(): Promise<void>;
}

export interface LinesProxyOptions {
  /** Variables for a spawned upstream (`--upstream-env-var`), besides FIXTURE_LEDGER and BOOKING_LEDGER. */
  upstreamEnv?: Record<string, string>;
  /** The CLI's own environment (e.g. for `--upstream-header-env`). */
  env?: Record<string, string>;
  /** Add `--report-file <tmp>/report.json` (default true; a `--listen` proxy takes `--report-dir` instead). */
  reportFile?: boolean;
}

/** Runs `proxy <flags> --report-file <tmp>/report.json` in-process with raw pipes. */
export function startLinesProxy(flags: string[], options: LinesProxyOptions = {}): LinesProxy {
  const dir = mkdtempSync(join(tmpdir(), 'harness-cli-'));
  const reportFile = join(dir, 'report.json');
  const ledgerFile = join(dir, 'ledger.jsonl');
  const upstreamEnv = { FIXTURE_LEDGER: ledgerFile, BOOKING_LEDGER: ledgerFile, ...options.upstreamEnv };
  // Only a spawned upstream takes variables (the CLI refuses them with --upstream-url).
  const envFlags = flags.includes('--upstream-command')
    ? Object.entries(upstreamEnv).flatMap(([key, value]) => ['--upstream-env-var', `${key}=${value}`])
    : [];
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let stderrText = '';
  stderr.setEncoding('utf8').on('data', (chunk: string) => (stderrText += chunk));
  const messages: RawMessage[] = [];
  let buffered = '';
  stdout.setEncoding('utf8').on('data', (chunk: string) => {
    buffered += chunk;
    let end;
    while ((end = buffered.indexOf('\n')) !== -1) {
      const line = buffered.slice(0, end);
      buffered = buffered.slice(end + 1);
      messages.push(JSON.parse(line) as RawMessage);
    }
  });
  const handlers: Array<(signal: string) => void> = [];
  const argv = ['proxy', ...flags, ...envFlags, ...(options.reportFile === false ? [] : ['--report-file', reportFile])];
  const exit = main(argv, {
    stdin,
    stdout,
    stderr,
    env: options.env ?? {},
    cwd: dir,
    onSignal(handler) {
      handlers.push(handler);
      return () => void handlers.splice(handlers.indexOf(handler), 1);
    },
  });
  let finished = false;
  void exit.finally(() => (finished = true));
  const send = (message: RawMessage | string): void =>
    void stdin.write(`${typeof message === 'string' ? message : JSON.stringify(message)}\n`);
  const response = (id: number | string | null, timeoutMs = 10_000) =>
    waitFor(
      () => messages.find((m) => m['id'] === id && ('result' in m || 'error' in m)),
      timeoutMs,
      `the response to ${String(id)}`,
    );
  let nextId = 1;
  const stop = async (): Promise<number> => {
    stdin.end();
    return exit;
  };
  return {
    dir,
    reportFile,
    ledgerFile,
    exit,
    stderr: () => stderrText,
    send,
    response,
    async initialize() {
      send(INITIALIZE);
      const answer = await response(0, 30_000);
      send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      return answer['result'] as Record<string, unknown>;
    },
    async request(method, params, timeoutMs) {
      const id = nextId++;
      send({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });
      return response(id, timeoutMs);
    },
    report: () => JSON.parse(readFileSync(reportFile, 'utf8')) as ReportFile,
    ledger: () => readLedger(ledgerFile),
    signal: (name) => {
      for (const handler of [...handlers]) handler(name);
    },
    stop,
    async dispose() {
      if (!finished) {
        handlers.forEach((handler) => handler('SIGTERM'));
        stdin.end();
        await Promise.race([exit, new Promise((resolve) => setTimeout(resolve, 10_000).unref())]).catch(() => undefined);
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
