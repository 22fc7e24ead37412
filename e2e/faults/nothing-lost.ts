/**
 * The shared "nothing lost" checker of the adversarial suite. After a fault, a proxy run has
 * lost nothing when:
 * - the proxy exited with the expected code (or keeps serving, when that is what the rule says), and its
 *   stderr is a clear message in the proxy's own one-line format, without a stack trace;
 * - the report file parses, is complete (`status: "finished"` after an exit, every field) and agrees
 *   with the upstream's own ledger: every execution the ledger recorded for a judged write is counted in
 *   the report's `executions` of that operation, unless the report admits it could not know
 *   (EXECUTION_UNKNOWN), and no execution is invented;
 * - no process is left behind (pids from the ledger, the pidfile and the caller);
 * - no `*.tmp` file is left beside the report file (after SIGKILL they may be: the caller says so).
 */
import type { ChildProcess, ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { expect } from 'vitest';
import { DEFAULT_KEY_FIELDS, KeyFieldMatcher } from '../../src/domain/judging/key-fields.js';
import { identifyOperation, previewArgs } from '../../src/domain/judging/operation.js';
import { executions, readLedger, type FixtureLedgerEntry } from '../fixtures/lib/ledger.mjs';
import { isAlive, waitFor, waitForExit } from '../fixtures/lib/raw-child.mjs';
import type { ReportFile } from '../../test/support/proxy-harness.js';
import type { RawProxy } from '../../test/support/raw-proxy.js';

/** What the checker reads of one proxy run. */
export interface ProxyEvidence {
  child: ChildProcess;
  stderr(): string;
  reportFile: string;
  /** The upstream's ledger (env FIXTURE_LEDGER). */
  ledgerFile: string;
  /** A file of upstream pids, one a line (env FIXTURE_PIDFILE), if the fixture writes one. */
  pidFile?: string;
}

/** One `operations[]` entry of the report file, with the fields the checker reads. */
export interface ReportOperation {
  tool: string;
  arguments: string;
  attempts: number;
  executions: number;
  outcome: string;
}

/** How the run must have ended, and what else is allowed. */
export interface NothingLostOptions {
  /** The exit code the proxy must end with (waited for, bounded), or 'running': it keeps serving. */
  end: 0 | 1 | 'running';
  /** The clear message stderr must contain. */
  message?: RegExp;
  /**
   * What the report file must be: 'complete' (default: status finished after an exit, running while
   * serving), 'startup-error' (NOT_TESTED with startupError), or 'stale' (it could not be written: it
   * must still parse and must never claim to be finished; ledger agreement is not required).
   */
  report?: 'complete' | 'startup-error' | 'stale';
  /** Every operation's executions must equal the ledger's (no outcome may be unknown). */
  exact?: boolean;
  /** The proxy's key fields (`--key-fields`), to derive operations from ledger arguments. */
  keyFields?: readonly string[];
  /** More pids that must be gone (grandchildren, wrappers). */
  pids?: readonly number[];
  /** Temp files may remain (only after SIGKILL, as documented in ). */
  tempFilesAllowed?: boolean;
  /** Bound of the wait for the exit. Default 20 s. */
  exitTimeoutMs?: number;
}

/** The evidence of a raw proxy run. */
export function evidenceOf(p: RawProxy): ProxyEvidence {
  return {
    child: p.raw.child,
    stderr: () => p.raw.stderr(),
    reportFile: p.reportFile,
    ledgerFile: p.ledgerFile,
    pidFile: p.pidFile,
  };
}

const PREFIX = '[cuonztech-agent-harness] ';

/** Asserts that the run lost nothing (see the file comment); answers the parsed report file. */
export async function expectNothingLost(run: ProxyEvidence | RawProxy, options: NothingLostOptions): Promise<ReportFile> {
  const evidence = 'raw' in run ? evidenceOf(run) : run;
  await expectEnd(evidence, options);
  expectClearStderr(evidence.stderr(), options.message);
  const report = readReport(evidence.reportFile);
  const kind = options.report ?? 'complete';
  if (kind === 'startup-error') {
    expect(report, 'a start-up failure report').toMatchObject({
      verdict: 'NOT_TESTED',
      status: 'failed',
      startupError: expect.any(String),
    });
  } else if (kind === 'stale') {
    expect(report.status, 'a report that could not be written must not claim to be finished').not.toBe('finished');
  } else {
    expectComplete(report, options.end === 'running' ? 'running' : 'finished');
    expectLedgerAgrees(report, readLedger(evidence.ledgerFile), options);
  }
  if (options.end !== 'running') {
    await expectProcessesGone([...upstreamPids(evidence), ...(options.pids ?? [])]);
    if (options.tempFilesAllowed !== true)
      expect(tempFilesBeside(evidence.reportFile), 'temp files left beside the report').toEqual([]);
  }
  return report;
}

async function expectEnd(evidence: ProxyEvidence, options: NothingLostOptions): Promise<void> {
  const child = evidence.child as ChildProcessWithoutNullStreams;
  if (options.end === 'running') {
    expect(child.exitCode, `the proxy must keep serving; stderr:\n${evidence.stderr()}`).toBeNull();
    expect(child.signalCode).toBeNull();
    return;
  }
  const exit = await waitForExit(child, options.exitTimeoutMs ?? 20_000);
  expect(exit, `how the proxy ended; stderr:\n${evidence.stderr()}`).toEqual({ code: options.end, signal: null });
}

/** A clear message: every stderr line is one of the proxy's own lines; no stack trace. */
export function expectClearStderr(stderr: string, message?: RegExp): void {
  expect(stderr, 'a stack trace on stderr').not.toMatch(/^\s+at /m);
  const foreign = stderr.split('\n').filter((line) => line !== '' && !line.startsWith(PREFIX));
  expect(foreign, "stderr lines not in the proxy's format").toEqual([]);
  if (message !== undefined) expect(stderr).toMatch(message);
}

/** The report file parsed; fails clearly when it is missing or not JSON. */
export function readReport(reportFile: string): ReportFile {
  expect(existsSync(reportFile), `report file ${reportFile} exists`).toBe(true);
  const text = readFileSync(reportFile, 'utf8');
  try {
    return JSON.parse(text) as ReportFile;
  } catch (error) {
    throw new Error(`the report file is not valid JSON (${String(error)}): ${text.slice(0, 200)}`);
  }
}

/** every field is there and the top-level verdict is the report's. */
function expectComplete(report: ReportFile, status: 'running' | 'finished'): void {
  expect(report.status).toBe(status);
  expect(report).toMatchObject({ certification: 'UNVERIFIED_FOR_PRODUCTION', harnessVersion: expect.any(String) });
  expect(report.verdict).toBe(report.report.verdict);
  expect(report.score).toEqual(expect.objectContaining({ verdict: report.verdict }));
  expect(Array.isArray(report.patches) && Array.isArray(report.toolClassification)).toBe(true);
}

/** Operations by tool and argument preview, as the report shows them; ledger entries mapped the same way. */
function operationKey(tool: string, preview: string): string {
  return `${tool}\u0000${preview}`;
}

/**
 * The report agrees with the ledger for every judged write: executions never invented; executions the
 * report does not count only where it admits it could not know (EXECUTION_UNKNOWN, or a duplicate whose
 * further attempts ended unknown), never more than were attempted.
 */
export function expectLedgerAgrees(
  report: ReportFile,
  ledger: readonly FixtureLedgerEntry[],
  options: Pick<NothingLostOptions, 'exact' | 'keyFields'> = {},
): void {
  const writes = new Set(report.toolClassification.filter((t) => t.class === 'write').map((t) => t.name));
  const matcher = new KeyFieldMatcher(options.keyFields ?? DEFAULT_KEY_FIELDS);
  const executed = new Map<string, number>();
  for (const entry of executions([...ledger])) {
    if (typeof entry.tool !== 'string' || !writes.has(entry.tool)) continue;
    const key = operationKey(entry.tool, previewArgs(identifyOperation(entry.tool, entry.arguments, matcher).canonicalArgs));
    executed.set(key, (executed.get(key) ?? 0) + 1);
  }
  const reported = new Map<string, { executions: number; attempts: number; slack: number }>();
  for (const op of report.report.operations as unknown as ReportOperation[]) {
    const key = operationKey(op.tool, op.arguments);
    const sum = reported.get(key) ?? { executions: 0, attempts: 0, slack: 0 };
    const admitsUnknown = op.outcome === 'EXECUTION_UNKNOWN' || op.outcome === 'DUPLICATE_EXECUTION';
    reported.set(key, {
      executions: sum.executions + op.executions,
      attempts: sum.attempts + op.attempts,
      slack: sum.slack + (admitsUnknown ? op.attempts - op.executions : 0),
    });
  }
  for (const key of new Set([...executed.keys(), ...reported.keys()])) {
    const ran = executed.get(key) ?? 0;
    const seen = reported.get(key) ?? { executions: 0, attempts: 0, slack: 0 };
    const name = key.replace('\u0000', ' ');
    expect(seen.executions, `${name}: executions invented (ledger ${ran})`).toBeLessThanOrEqual(ran);
    if (options.exact === true) expect(seen.executions, `${name}: executions (ledger ${ran})`).toBe(ran);
    expect(
      ran,
      `${name}: executions missing from the report (reported ${seen.executions}, unknown ${seen.slack})`,
    ).toBeLessThanOrEqual(seen.executions + seen.slack);
  }
}

/** Pids the upstream recorded (ledger lines, pidfile). */
export function upstreamPids(evidence: Pick<ProxyEvidence, 'ledgerFile' | 'pidFile'>): number[] {
  const pids = new Set(readLedger(evidence.ledgerFile).map((entry) => entry.pid));
  if (evidence.pidFile !== undefined && existsSync(evidence.pidFile)) {
    for (const line of readFileSync(evidence.pidFile, 'utf8').split('\n')) if (line.trim() !== '') pids.add(Number(line));
  }
  return [...pids].filter((pid) => Number.isInteger(pid) && pid > 0);
}

/** Waits (bounded) until none of `pids` is alive; kills the survivors before failing. */
export async function expectProcessesGone(pids: readonly number[], timeoutMs = 8000): Promise<void> {
  try {
    await waitFor(() => pids.every((pid) => !isAlive(pid)), timeoutMs, `processes ${pids.join(', ')} to end`);
  } catch (error) {
    for (const pid of pids) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
    throw error;
  }
}

/** `*.tmp` files in the report file's folder (and its real folder, when it is a link). */
export function tempFilesBeside(reportFile: string): string[] {
  const folders = new Set([dirname(reportFile)]);
  if (existsSync(reportFile)) folders.add(dirname(realpathSync(reportFile)));
  return [...folders].flatMap((folder) =>
    (existsSync(folder) ? readdirSync(folder) : [])
      .filter((name) => name.endsWith('.tmp'))
      .map((name) => `${basename(folder)}/${name}`),
  );
}

/** Pids of the live reapers watching the process group `pgid` (Linux: read from /proc; elsewhere none are seen). */
export function reapersOf(pgid: number): number[] {
  if (process.platform !== 'linux') return [];
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const argv = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (argv.includes('cuonztech-reaper') && argv[argv.indexOf('cuonztech-reaper') + 1] === String(pgid))
        found.push(Number(entry));
    } catch {
      // the process ended meanwhile
    }
  }
  return found.filter(isAlive);
}
