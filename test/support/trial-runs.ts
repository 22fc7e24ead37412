/**
 * `trial` in-process (the CLI's `main`, test/support/in-process-cli.ts) in front of the booking server in this
 * process (booking-http.ts, a fresh store and ledger per MCP session = per run), with the scripted
 * model server. Reads back summary.json and every run file like test/support/trial-harness.ts, and gives
 * each run its own ledger: the trial checks the upstream once (the first session), then runs one at a
 * time (concurrency 1), each in its own session, in the order of the progress lines on stderr.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import type { LedgerEntry } from '../../examples/booking-server/ledger.js';
import { readTrialFiles, type RunFile, type TrialOutput } from './trial-harness.js';
import { startModelServer, type ModelServer } from '../fixtures/model-server/model-server.js';
import { startInProcessBooking, type InProcessBooking } from './booking-http.js';
import { runCli, type CliResult } from './in-process-cli.js';

export const TASK = ['--task', 'Book a standard room for Ann Lee on 2026-05-01.'];

/** The two servers a file of in-process trials talks to. */
export interface TrialServers {
  /** The scripted OpenAI-compatible model server (one persona per model name). */
  model: ModelServer;
  /** The bundled booking server in this process (a fresh store and ledger per run). */
  booking: InProcessBooking;
}

/** Starts both servers before the file's tests (before its own `beforeAll`) and closes them after. */
export function useTrialServers(): TrialServers {
  const servers = {} as TrialServers;
  beforeAll(async () => {
    servers.model = await startModelServer();
    servers.booking = await startInProcessBooking();
  });
  afterAll(async () => {
    await servers.booking?.close();
    await servers.model?.close();
  });
  return servers;
}

/** `--model <persona> --base-url <the scripted server>`, then `rest`. */
export function modelArgs(servers: TrialServers, persona: string, ...rest: string[]): string[] {
  return ['--model', persona, '--base-url', servers.model.baseUrl, ...rest];
}

export interface InProcessTrial {
  result: CliResult;
  out: string;
  summary: TrialOutput['summary'];
  runs: RunFile[];
  /** What the booking server executed in one run's session (concurrency 1 only). */
  ledger(run: string): LedgerEntry[];
  remove(): void;
}

/** Runs `trial <args> --upstream-url <booking> --out <temp>` in-process to its end. */
export async function inProcessTrial(
  booking: InProcessBooking,
  args: string[],
  options: { env?: Record<string, string>; onSignal?: (handler: (signal: string) => void) => void; tty?: boolean } = {},
): Promise<InProcessTrial> {
  const out = mkdtempSync(join(tmpdir(), 'harness-trial-unit-'));
  const first = booking.sessions.length;
  const result = await runCli(['trial', ...args, '--upstream-url', booking.url, '--out', out], options);
  const sessions = booking.sessions.slice(first);
  const { summary, runs } = readTrialFiles(out);
  const order = [...result.stderr.matchAll(/\] run (\S+) \(\d+\/\d+\)/g)].map((m) => m[1]!);
  const concurrency = args.includes('--concurrency') ? Number(args[args.indexOf('--concurrency') + 1]) : 1;
  return {
    result,
    out,
    summary,
    runs,
    ledger(run) {
      if (concurrency !== 1) throw new Error('ledger(run) needs concurrency 1');
      if (sessions.length !== order.length + 1)
        throw new Error(`${sessions.length} upstream sessions for ${order.length} runs (plus the check)`);
      const index = order.indexOf(run);
      if (index < 0) throw new Error(`no run ${run}`);
      return sessions[index + 1]!.ledger;
    },
    remove: () => rmSync(out, { recursive: true, force: true }),
  };
}

/** Every run: the booking server's ledger of its session holds exactly the executions of its report. */
export function expectLedgerMatchesReports(output: InProcessTrial): void {
  expect(output.runs.length).toBeGreaterThan(0);
  for (const run of output.runs) {
    const reported = (run.report?.report.operations ?? []).reduce((sum, op) => sum + op.executions, 0);
    expect(output.ledger(run.run), run.run).toHaveLength(reported);
    expect(run.executions, run.run).toBe(reported);
  }
}
