/**
 * The `proxy` command run in the test process (`main(argv, io)`, the composition root the compiled CLI
 * runs), driven with raw JSON-RPC lines like `test/support/raw-proxy.ts`, in front of a REAL upstream
 * process (an `e2e/fixtures` server that counts what it executes in its own ledger). What is saved is
 * the proxy's own process start (~0.4 s of CPU each); what only a real proxy process can show (a real
 * signal, SIGKILL, a real pipe's EPIPE, the exit of the process) stays in `e2e/`.
 *
 * The object has the shape of a `RawProxy`, so the e2e checkers (`e2e/faults/nothing-lost.ts`) read it
 * unchanged: `raw.child` is a stand-in with `stdin`/`stdout`/`stderr` streams, `exitCode` once `main`
 * returned, and `kill(signal)` delivering SIGINT/SIGTERM/SIGHUP to the handler the CLI registered
 * through `CliIo.onSignal` (the same handler `processIo()` connects to the real signals).
 */
import { EventEmitter } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { main } from '../../src/cli/main.js';
import { readLedger } from '../../e2e/fixtures/lib/ledger.mjs';
import { isAlive, rawDriver, waitForExit } from '../../e2e/fixtures/lib/raw-child.mjs';
import type { RawChild } from '../../e2e/fixtures/lib/raw-child.mjs';
import type { ReportFile } from './proxy-harness.js';
import { rawConversation, type RawProxy, type SpawnProxyOptions } from './raw-proxy.js';
import { labOf, type FaultLab } from '../../e2e/faults/fault-lab.js';

export { FIXTURES } from './proxy-harness.js';

const HANDLED_SIGNALS = new Set(['SIGINT', 'SIGTERM', 'SIGHUP']);

/**
 * A stand-in for the proxy's child process: its three streams, its exit, and the signals it handles.
 * The proxy gets streams of its own, joined to the test's ends while it runs; once `main` returned they
 * are cut, as a dead process's pipes would be (no handler the proxy left behind sees the test's ends close).
 */
class InProcessChild extends EventEmitter {
  readonly stdin = new PassThrough();
  readonly stdout = new PassThrough();
  readonly stderr = new PassThrough();
  /** The proxy's own ends. */
  readonly io = { stdin: new PassThrough(), stdout: new PassThrough(), stderr: new PassThrough() };
  exitCode: number | null = null;
  readonly signalCode: NodeJS.Signals | null = null;
  /** The proxy runs in this process: temp names carrying the proxy's pid carry this one. */
  readonly pid = process.pid;
  signalHandler: ((signal: string) => void) | null = null;

  constructor() {
    super();
    this.stdin.on('error', () => undefined);
    this.stdin.on('data', (chunk: Buffer) => {
      if (this.exitCode === null) this.io.stdin.write(chunk);
    });
    this.stdin.on('end', () => {
      if (this.exitCode === null) this.io.stdin.end();
    });
    this.io.stdout.on('data', (chunk: Buffer) => {
      if (this.exitCode === null) this.stdout.write(chunk);
    });
    this.io.stderr.on('data', (chunk: Buffer) => {
      if (this.exitCode === null) this.stderr.write(chunk);
    });
  }

  kill(signal: NodeJS.Signals = 'SIGTERM'): boolean {
    if (!HANDLED_SIGNALS.has(signal)) throw new Error(`an in-process proxy cannot receive ${signal}; use a real process`);
    if (this.signalHandler === null) return false;
    this.signalHandler(signal);
    return true;
  }

  exited(code: number): void {
    // What the proxy wrote before returning is passed on first (a PassThrough hands it over in a later turn).
    setImmediate(() => {
      this.exitCode = code;
      this.emit('exit', code, null);
      this.stdout.end();
      this.stderr.end();
    });
  }
}

/**
 * Options of {@link cliProxy}: `env` goes to the upstream (as `--upstream-env-var`), not to the proxy;
 * `reportFile` replaces the temp folder's `report.json` (a path the test prepared: a device, a link …).
 */
export type CliProxyOptions = SpawnProxyOptions & { reportFile?: string };

/**
 * Runs `proxy <flags> --report-file <tmp>/report.json` in-process; the upstream gets FIXTURE_LEDGER,
 * BOOKING_LEDGER, FIXTURE_PIDFILE and `env` through `--upstream-env-var` (stdio upstreams only: an
 * `--upstream-url` upstream gets nothing).
 */
export function cliProxy(flags: string[], { env = {}, prepare, ...options }: CliProxyOptions = {}): RawProxy {
  const dir = mkdtempSync(join(tmpdir(), 'harness-inproc-'));
  const reportFile = options.reportFile ?? join(dir, 'report.json');
  const ledgerFile = join(dir, 'ledger.jsonl');
  const pidFile = join(dir, 'pids');
  prepare?.(dir, reportFile);
  const upstreamEnv = { FIXTURE_LEDGER: ledgerFile, BOOKING_LEDGER: ledgerFile, FIXTURE_PIDFILE: pidFile, ...env };
  // An HTTP upstream (`--upstream-url`) is started by the test itself, with its own environment.
  const envFlags = flags.includes('--upstream-url')
    ? []
    : Object.entries(upstreamEnv).flatMap(([key, value]) => ['--upstream-env-var', `${key}=${value}`]);
  const argv = ['proxy', ...flags, ...envFlags, '--report-file', reportFile];
  const child = new InProcessChild();
  void main(argv, {
    ...child.io,
    env: process.env,
    cwd: process.cwd(),
    onSignal(handler) {
      child.signalHandler = handler;
      return () => {
        child.signalHandler = null;
      };
    },
  }).then(
    (code) => child.exited(code),
    (error: unknown) => {
      child.io.stderr.write(`main threw: ${String(error)}\n`);
      child.exited(99);
    },
  );
  const raw = rawOf(child);
  const stop = async (timeoutMs = 10_000) => {
    child.stdin.end();
    return waitForExit(raw.child, timeoutMs);
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
      if (child.exitCode === null) {
        await stop(5_000).catch(() => undefined);
        // Still running (a test failed half-way): end it the way SIGTERM would.
        if (child.exitCode === null) child.kill('SIGTERM');
        await waitForExit(raw.child, 5_000).catch(() => undefined);
      }
      for (const pid of readLedger(ledgerFile).map((e) => e.pid)) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The raw-line driver of `spawnRaw`, over the stand-in's streams. */
function rawOf(child: InProcessChild): RawChild {
  return rawDriver(child, 'a message from the in-process proxy');
}

/** In-process proxies owned by one test (`e2e/faults/fault-lab.ts`'s FaultLab over `cliProxy`), ended when it finishes. */
export type CliLab = FaultLab<CliProxyOptions>;

/** A lab whose clean-up runs when the test finishes (pass `onTestFinished` from the test context). */
export function cliLab(onTestFinished: (fn: () => Promise<void>) => void): CliLab {
  return labOf(onTestFinished, cliProxy);
}
