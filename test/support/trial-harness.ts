/**
 * Runs the compiled `trial` command — as a real process (`runTrial`), or the compiled CLI's `main` loaded
 * into this test process (`runCompiledTrialInProcess`, for tests that are not about the CLI process
 * itself) — against the scripted model server (in this test process, real HTTP on 127.0.0.1) and the
 * bundled booking server with a fresh ledger per run (`BOOKING_LEDGER={run_dir}/ledger.jsonl`). Reads
 * back summary.json and every run's files.
 */
import { trialRunSchema } from '../../src/adapters/schemas/trial-run.schema.js';
import { trialSummarySchema } from '../../src/adapters/schemas/trial-summary.schema.js';
import { expectMatchesSchema } from './file-schemas.js';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { execa } from 'execa';
import { BIN, BOOKING_SERVER, readLines, requireBuild, ROOT } from './proxy-harness.js';

export const BOOKING_UPSTREAM = [
  '--upstream-command',
  process.execPath,
  '--upstream-arg',
  BOOKING_SERVER,
  '--upstream-env-var',
  'BOOKING_LEDGER={run_dir}/ledger.jsonl',
];
export const TASK = ['--task', 'Book a standard room for Ann Lee on 2026-05-01.'];

export interface RunFile {
  run: string;
  scenario: string;
  task: string;
  verdict: string;
  verdictReason: string;
  sessionVerdict: string | null;
  stoppedBy: string | null;
  finalAnswer: string | null;
  toolCalls: number;
  modelCalls: number;
  executions: number;
  extraExecutions: number;
  endpointErrors: Array<{ attempt: number; kind: string; status?: number; detail: string; waitMs?: number }>;
  transcript: Array<{ at: string; kind: string; [field: string]: unknown }>;
  userTurns: string[];
  agent: Record<string, unknown>;
  agentProgram?: { exitCode: number | null; timedOut: boolean; stderrTail: string };
  report: {
    verdict: string;
    report: { operations: Array<{ tool: string; executions: number; attempts: number }>; verdictReason: string };
  } | null;
}

/** How the `trial` command ended (a process's exit code, or what the in-process `main` returned). */
export interface TrialResult {
  exitCode: number | undefined;
  stdout: string;
  stderr: string;
}

export interface TrialOutput {
  result: TrialResult;
  out: string;
  summary: {
    groups: Array<{
      scenario: string;
      task: string;
      runs: number;
      pass: number;
      fail: number;
      notTested: number;
      extraExecutions: number;
      medianToolCalls: number | null;
      notTestedReasons: Record<string, number>;
      runFiles: string[];
      statistics: unknown;
    }>;
    [field: string]: unknown;
  };
  runs: RunFile[];
  /** The booking server's ledger of one run. */
  ledger(run: string): Array<Record<string, unknown>>;
}

export function tempOut(): string {
  return mkdtempSync(join(tmpdir(), 'harness-trial-'));
}

/** Runs `trial` with the given flags (plus `--out`) to its end as a real process; never rejects. */
export async function runTrial(
  args: string[],
  options: { env?: Record<string, string>; timeoutMs?: number } = {},
): Promise<TrialOutput> {
  requireBuild();
  const out = tempOut();
  const result = await execa(process.execPath, [BIN, 'trial', ...args, '--out', out], {
    reject: false,
    timeout: options.timeoutMs ?? 50_000,
    stdin: 'ignore',
    cwd: ROOT,
    env: options.env ?? {},
  });
  return readTrial(out, { exitCode: result.exitCode, stdout: String(result.stdout), stderr: String(result.stderr) });
}

type Main = (typeof import('../../src/cli/main.js'))['main'];
let compiledMain: Promise<Main> | undefined;

/**
 * Runs `trial` with the given flags (plus `--out`) through the compiled CLI's `main`
 * (dist/src/cli/main.js) in this process: the same wiring, upstream processes and agent programs as the
 * real process, without its start-up; no signals, `env` as the CLI's environment (agent programs
 * inherit this process's environment plus their run's variables, as from the real CLI).
 */
export async function runCompiledTrialInProcess(
  args: string[],
  options: { env?: Record<string, string> } = {},
): Promise<TrialOutput> {
  requireBuild();
  compiledMain ??= import(pathToFileURL(join(ROOT, 'dist/src/cli/main.js')).href).then((m: { main: Main }) => m.main);
  const main = await compiledMain;
  const out = tempOut();
  const capture = () => {
    const stream = new PassThrough();
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    return { stream, text: () => Buffer.concat(chunks).toString('utf8') };
  };
  const stdout = capture();
  const stderr = capture();
  const code = await main(['trial', ...args, '--out', out], {
    stdin: new PassThrough(),
    stdout: stdout.stream,
    stderr: stderr.stream,
    env: options.env ?? {},
    cwd: ROOT,
    onSignal: () => () => undefined,
  });
  return readTrial(out, { exitCode: code, stdout: stdout.text(), stderr: stderr.text() });
}

/** A trial folder's summary.json and run files, in run order; empty when there is no summary. */
export function readTrialFiles(out: string): Pick<TrialOutput, 'summary' | 'runs'> {
  const runsDir = join(out, 'runs');
  let files: Pick<TrialOutput, 'summary' | 'runs'>;
  try {
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as TrialOutput['summary'];
    const runs = readdirSync(runsDir)
      .sort()
      .map((id) => JSON.parse(readFileSync(join(runsDir, id, 'run.json'), 'utf8')) as RunFile);
    files = { summary, runs };
  } catch {
    return { summary: { groups: [] }, runs: [] }; // no summary: the tests look at result
  }
  // The writers must match their schemas (docs/formats.md).
  expectMatchesSchema(trialSummarySchema, files.summary, 'summary.json');
  for (const run of files.runs) expectMatchesSchema(trialRunSchema, run, 'run.json');
  return files;
}

function readTrial(out: string, result: TrialResult): TrialOutput {
  const ledger = (run: string) => readLines(join(out, 'runs', run, 'ledger.jsonl'));
  return { result, out, ...readTrialFiles(out), ledger };
}

export function removeOut(output: TrialOutput | undefined): void {
  if (output) rmSync(output.out, { recursive: true, force: true });
}
