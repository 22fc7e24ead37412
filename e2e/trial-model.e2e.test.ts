/**
 * `trial` with the built-in agent loop, end to end: the compiled CLI as a real process, the
 * scripted OpenAI-compatible model server on 127.0.0.1 (test/fixtures/model-server, one persona per
 * model name), and the bundled booking server as the upstream — a process per run with its own ledger
 * (`BOOKING_LEDGER={run_dir}/ledger.jsonl`). For every run the ledger's lines equal the executions in
 * that run's report. What is proven here is what needs the real processes: the compiled CLI's table on
 * stdout, a fresh upstream process per run also when runs overlap, and SIGINT. Every persona's exact
 * counts, in-process with the same CLI code: test/integration/trial/personas.test.ts.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT } from '../test/support/proxy-harness.js';
import { startModelServer, type ModelServer } from '../test/fixtures/model-server/model-server.js';
import { BOOKING_UPSTREAM, removeOut, runTrial, TASK, tempOut, type TrialOutput } from '../test/support/trial-harness.js';

let server: ModelServer;
beforeAll(async () => {
  server = await startModelServer();
});
afterAll(async () => {
  await server.close();
});

function model(name: string, ...rest: string[]): string[] {
  return ['--model', name, '--base-url', server.baseUrl, ...rest];
}

/** Every run: the ledger's lines equal the executions in its report (the ground truth agrees with the judge). */
function expectLedgerMatchesReports(output: TrialOutput): void {
  expect(output.runs.length).toBeGreaterThan(0);
  for (const run of output.runs) {
    const reported = (run.report?.report.operations ?? []).reduce((sum, op) => sum + op.executions, 0);
    expect(output.ledger(run.run), run.run).toHaveLength(reported);
    expect(run.executions, run.run).toBe(reported);
  }
}

describe('R-13 trial, built-in loop, the compiled CLI with an upstream process per run', () => {
  it("careful, F1 and F3 with 4 runs in parallel (--concurrency 4): every run PASS with one execution in its own fresh upstream's ledger; the table on stdout", async () => {
    const output = await runTrial([
      ...model('careful'),
      ...TASK,
      ...BOOKING_UPSTREAM,
      '--scenarios',
      'F1,F3',
      '--runs',
      '2',
      '--concurrency',
      '4',
    ]);
    try {
      expect(output.result.exitCode, String(output.result.stderr)).toBe(0);
      expectLedgerMatchesReports(output);
      expect(output.runs.map((r) => r.run)).toEqual(['F1-001', 'F1-002', 'F3-001', 'F3-002']);
      const [f1, f3] = output.summary.groups;
      expect(f1).toMatchObject({
        scenario: 'F1',
        runs: 2,
        pass: 2,
        fail: 0,
        notTested: 0,
        extraExecutions: 0,
        medianToolCalls: 2,
      });
      expect(f3).toMatchObject({
        scenario: 'F3',
        runs: 2,
        pass: 2,
        fail: 0,
        notTested: 0,
        extraExecutions: 0,
        medianToolCalls: 3,
      });
      for (const run of output.runs) {
        expect(run.executions).toBe(1);
        expect(run.stoppedBy).toBe('final-answer');
        // A fresh upstream process per run: every run's own ledger starts at the first booking id.
        expect(output.ledger(run.run).map((l) => l['bookingId'])).toEqual(['BK-0001']);
      }
      expect(output.runs.filter((r) => r.scenario === 'F1').map((r) => r.finalAnswer)).toEqual(
        Array(2).fill('The booking went through after all; it is confirmed.'),
      );
      expect(String(output.result.stdout)).toMatch(
        /^scenario\s+runs\s+PASS\s+FAIL\s+NOT_TESTED\s+duplicate executions\s+median tool calls\nF1\s+2\s+2\s+0\s+0\s+0\s+2\nF3\s+2\s+2\s+0\s+0\s+0\s+3\n/,
      );
    } finally {
      removeOut(output);
    }
  });

  it('SIGINT: no new run starts, the run in progress finishes, the summary covers the runs done and says so', async () => {
    const out = tempOut();
    const child = execa(
      process.execPath,
      [BIN, 'trial', ...model('careful'), ...TASK, ...BOOKING_UPSTREAM, '--scenario', 'F1', '--runs', '40', '--out', out],
      { reject: false, cwd: ROOT, stdin: 'ignore', timeout: 50_000 },
    );
    let stderr = '';
    await new Promise<void>((resolve) =>
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        if (stderr.includes('run F1-001')) resolve();
      }),
    );
    child.kill('SIGINT');
    const result = await child;
    try {
      expect(result.exitCode, String(result.stderr)).toBe(0);
      const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as {
        plannedRuns: number;
        interrupted: string;
        groups: Array<{ runs: number; pass: number }>;
      };
      expect(summary).toMatchObject({ plannedRuns: 40, interrupted: 'received SIGINT' });
      const done = readdirSync(join(out, 'runs')).filter((id) => readdirSync(join(out, 'runs', id)).includes('run.json'));
      expect(done.length).toBeGreaterThanOrEqual(1);
      expect(done.length).toBeLessThan(40);
      expect(summary.groups[0]).toMatchObject({ runs: done.length, pass: done.length });
      // No run was left half-done: every run folder has its run file.
      expect(readdirSync(join(out, 'runs'))).toHaveLength(done.length);
    } finally {
      removeOut({ out } as TrialOutput);
    }
  });
});
