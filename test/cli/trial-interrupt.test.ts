/**
 * `trial` cut short by a signal (SIGINT/SIGTERM/SIGHUP), in-process: the handler is delivered once the
 * first model request arrived. No new run starts, every run folder holds its complete run file, and every
 * output — summary.json, summary.md and the table on stdout — says the trial was interrupted and how many
 * of the planned runs its figures cover (a rate over 1 of 20 runs must not read like the whole trial).
 * (The real process and its SIGINT: e2e/trial-model.e2e.test.ts.)
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { inProcessTrial, modelArgs, TASK, useTrialServers } from '../support/trial-runs.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });

const servers = useTrialServers();

describe('trial interrupted by a signal', () => {
  it('stdout, summary.md and summary.json say it was interrupted and cover the runs done, each run file complete', async () => {
    const before = servers.model.requests.length;
    let timer: NodeJS.Timeout | undefined;
    const output = await inProcessTrial(
      servers.booking,
      modelArgs(servers, 'careful', ...TASK, '--scenario', 'F1', '--runs', '20'),
      {
        onSignal: (handler) => {
          timer = setInterval(() => {
            if (servers.model.requests.length > before) {
              clearInterval(timer);
              handler('SIGINT');
            }
          }, 1);
        },
      },
    );
    clearInterval(timer);
    try {
      const { result, out } = output;
      expect(result.code, result.stderr).toBe(0);
      const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as {
        plannedRuns: number;
        doneRuns: number;
        interrupted: string;
      };
      expect(summary).toMatchObject({ plannedRuns: 20, interrupted: 'received SIGINT' });
      const done = summary.doneRuns;
      expect(done).toBeGreaterThanOrEqual(1);
      expect(done).toBeLessThan(20);
      expect(readdirSync(join(out, 'runs'))).toHaveLength(done);
      expect(output.runs).toHaveLength(done);
      const line = `interrupted (received SIGINT): ${done} of 20 planned runs done; every figure covers only these`;
      expect(result.stdout).toContain(line);
      expect(readFileSync(join(out, 'summary.md'), 'utf8')).toContain(line);
    } finally {
      output.remove();
    }
  });
});
