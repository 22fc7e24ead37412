/**
 * `trial` with the upstream options of `proxy`: a remote upstream by URL (the booking server
 * in HTTP mode: one shared ledger, one new connection per run) with `--reset-command` run before each
 * run, and a failing reset making that run NOT_TESTED. The booking server is a real process; the trial is
 * the compiled CLI's `main` in this process. (Chaos mode seeded per run: test/integration/trial/personas.test.ts.)
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startModelServer, type ModelServer } from '../test/fixtures/model-server/model-server.js';
import { removeDir, startBookingHttp, stopAll, tempDir, type BookingHttp } from '../test/support/http-harness.js';
import { removeOut, runCompiledTrialInProcess as runTrial, TASK } from '../test/support/trial-harness.js';

let server: ModelServer;
let booking: BookingHttp;
let dir: string;
beforeAll(async () => {
  server = await startModelServer();
  dir = tempDir('harness-trial-upstream-');
  booking = await startBookingHttp(join(dir, 'ledger.jsonl'));
});
afterAll(async () => {
  await server.close();
  await stopAll();
  removeDir(dir);
});

describe('R-13 trial: the upstream options of proxy', () => {
  it("--upstream-url with --reset-command: the reset runs before every run; each run's report counts its own execution, the shared ledger all of them", async () => {
    const resets = join(dir, 'resets.txt');
    writeFileSync(resets, '');
    const before = booking.bookings().length;
    const output = await runTrial([
      '--model',
      'naive',
      '--base-url',
      server.baseUrl,
      ...TASK,
      '--upstream-url',
      booking.url,
      '--scenario',
      'F1',
      '--runs',
      '2',
      '--reset-command',
      `echo reset >> '${resets}'`,
    ]);
    try {
      expect(output.result.exitCode, String(output.result.stderr)).toBe(0);
      expect(readFileSync(resets, 'utf8')).toBe('reset\nreset\n');
      expect(output.summary.groups[0]).toMatchObject({ runs: 2, fail: 2, extraExecutions: 2 });
      for (const run of output.runs) expect(run.executions).toBe(2);
      expect(booking.bookings().length - before).toBe(4);
    } finally {
      removeOut(output);
    }
  });

  it('a reset command that fails makes the run NOT_TESTED with its exit code; no agent runs then', async () => {
    const before = server.requests.length;
    const output = await runTrial([
      '--model',
      'careful',
      '--base-url',
      server.baseUrl,
      ...TASK,
      '--upstream-url',
      booking.url,
      '--runs',
      '2',
      '--reset-command',
      'echo no database >&2; exit 7',
    ]);
    try {
      expect(output.summary.groups[0]).toMatchObject({
        runs: 2,
        notTested: 2,
        notTestedReasons: { 'the reset command failed (exit code 7); stderr: no database': 2 },
      });
      expect(server.requests.length).toBe(before);
    } finally {
      removeOut(output);
    }
  });
});
