/**
 * `trial` cut short by a signal (SIGINT/SIGTERM/SIGHUP), in-process: the handler is delivered once the
 * first model request arrived. No new run starts, every run folder holds its complete run file, and every
 * output — summary.json, summary.md and the table on stdout — says the trial was interrupted and how many
 * of the planned runs its figures cover (a rate over 1 of 20 runs must not read like the whole trial).
 * (The real process and its SIGINT: e2e/trial-model.e2e.test.ts.)
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { inProcessTrial, modelArgs, TASK, useTrialServers } from '../../support/trial-runs.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });

const servers = useTrialServers();

/** A model endpoint that takes every chat request and never answers (no model list: any name is accepted). */
let hanging: Server;
let hangingUrl = '';
let hangingRequests = 0;
beforeAll(async () => {
  hanging = createServer((req, res) => {
    if (req.method === 'GET') res.writeHead(404).end();
    else hangingRequests++;
  });
  await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
  hangingUrl = `http://127.0.0.1:${(hanging.address() as AddressInfo).port}/v1`;
});
afterAll(async () => {
  hanging.closeAllConnections();
  await new Promise((resolve) => hanging.close(resolve));
});

/**
 * Delivers `signals` to the trial's handler as soon as `ready()` holds (polled every millisecond);
 * `stop()` ends the polling when the trial returned first.
 */
function signalWhen(ready: () => boolean, ...signals: string[]) {
  let timer: NodeJS.Timeout | undefined;
  return {
    onSignal: (handler: (signal: string) => void) => {
      timer = setInterval(() => {
        if (!ready()) return;
        clearInterval(timer);
        for (const signal of signals) handler(signal);
      }, 1);
    },
    stop: () => clearInterval(timer),
  };
}

describe('trial interrupted by a signal', () => {
  it('stdout, summary.md and summary.json say it was interrupted and cover the runs done, each run file complete', async () => {
    const before = servers.model.requests.length;
    const signal = signalWhen(() => servers.model.requests.length > before, 'SIGINT');
    const output = await inProcessTrial(
      servers.booking,
      modelArgs(servers, 'careful', ...TASK, '--scenario', 'F1', '--runs', '20'),
      { onSignal: signal.onSignal },
    );
    signal.stop();
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
      expect(readdirSync(out)).not.toContain('.trial'); // the claim on the folder ends with the trial
      expect(output.runs).toHaveLength(done);
      const line = `interrupted (received SIGINT): ${done} of 20 planned runs done; every figure covers only these`;
      expect(result.stdout).toContain(line);
      expect(readFileSync(join(out, 'summary.md'), 'utf8')).toContain(line);
    } finally {
      output.remove();
    }
  });

  it('a second signal stops the runs in progress (a model that never answers): NOT_TESTED "interrupted", and the summary is written', async () => {
    const signal = signalWhen(() => hangingRequests > 0, 'SIGINT', 'SIGTERM');
    const output = await inProcessTrial(
      servers.booking,
      ['--model', 'slow', '--base-url', hangingUrl, ...TASK, '--scenario', 'F1', '--runs', '3', '--model-timeout', '600'],
      { onSignal: signal.onSignal },
    );
    signal.stop();
    try {
      const { result, out } = output;
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toContain('received SIGTERM again: the runs in progress are stopped now');
      const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as Record<string, unknown>;
      expect(summary).toMatchObject({ plannedRuns: 3, doneRuns: 1, interrupted: 'received SIGINT' });
      expect(output.runs).toHaveLength(1);
      expect(output.runs[0]).toMatchObject({
        verdict: 'NOT_TESTED',
        verdictReason: 'interrupted: the run was stopped by a second signal (SIGTERM)',
      });
      expect(result.stdout).toContain('interrupted (received SIGINT): 1 of 3 planned runs done');
    } finally {
      output.remove();
    }
  });

  it('--patch auto cut short in the baseline: the patched arm is said not to have run, no treatment is named', async () => {
    const before = servers.model.requests.length;
    const signal = signalWhen(() => servers.model.requests.length > before, 'SIGINT');
    const output = await inProcessTrial(
      servers.booking,
      modelArgs(servers, 'ghost-patch', ...TASK, '--scenario', 'F1', '--runs', '20', '--patch', 'auto'),
      { onSignal: signal.onSignal },
    );
    signal.stop();
    try {
      const { result } = output;
      expect(result.code, result.stderr).toBe(0);
      const note = 'the trial was interrupted (received SIGINT) before the patched arm: it was not run';
      expect(output.summary['patchComparison']).toMatchObject({
        arms: { baseline: 'baseline', treatment: null },
        note,
        comparison: null,
      });
      expect(result.stdout).toContain(note);
      expect(output.runs.every((run) => run.run.startsWith('F1-'))).toBe(true);
    } finally {
      output.remove();
    }
  });
});

describe('notices during the runs on a terminal', () => {
  it("the notice of a signal takes the progress bar's line (cleared first), and the bar is drawn again below it", async () => {
    const before = servers.model.requests.length;
    const signal = signalWhen(() => servers.model.requests.length > before, 'SIGINT');
    const output = await inProcessTrial(servers.booking, modelArgs(servers, 'careful', ...TASK, '--runs', '3'), {
      onSignal: signal.onSignal,
      tty: true,
    });
    signal.stop();
    try {
      const { stderr } = output.result;
      expect(output.result.code, stderr).toBe(0);
      // Never written onto the bar: after the bar's own clear-to-end comes a carriage return, not text.
      expect(stderr).not.toMatch(/ETA [^\r\n]*\x1b\[K\[cuonztech-agent-harness\]/);
      expect(stderr).toMatch(/\r\x1b\[K\[cuonztech-agent-harness\] received SIGINT: no new run starts[^\n]*\n\r\[[#-]+\] \d\/3/);
    } finally {
      output.remove();
    }
  });
});

describe('the trial-wide stop signal across many runs', () => {
  it('12 model runs leave no listener on it: no MaxListenersExceededWarning', async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
    process.on('warning', onWarning);
    const output = await inProcessTrial(servers.booking, modelArgs(servers, 'careful', ...TASK, '--runs', '12'));
    // Node emits the warning on the next tick of the eleventh listener.
    await new Promise((resolve) => setImmediate(resolve));
    process.off('warning', onWarning);
    try {
      expect(output.result.code, output.result.stderr).toBe(0);
      expect(output.runs).toHaveLength(12);
      expect(warnings.filter((w) => /MaxListeners/.test(w))).toEqual([]);
    } finally {
      output.remove();
    }
  });
});
