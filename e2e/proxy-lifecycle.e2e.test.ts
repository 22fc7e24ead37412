/**
 * The proxy as a process when its upstream does not start: the compiled CLI exits 1 with
 * exactly one line and no stack trace, and leaves a start-up report. The rest of the proxy's life (stdin
 * EOF, SIGTERM and its drain window, wrappers and descendants, crashes, the report file during a session)
 * runs in-process before real upstreams in `test/lifecycle-proxy.test.ts`; real signals and EPIPE are in
 * `faults/agent-faults.e2e.test.ts`, SIGKILL in `faults/report-before-forward.e2e.test.ts`, the reaper in
 * `proxy-orphan.e2e.test.ts`.
 */
import { describe, expect, it } from 'vitest';
import { waitForExit } from './fixtures/lib/raw-child.mjs';
import { nodeFixture, faultLab } from './faults/fault-lab.js';

describe('R-8.9 / R-9.1: an upstream that does not start', () => {
  it('R-8.9: crash-before-init.mjs (exit 1 with a reason) → the process exits 1 with one line and no stack trace; report NOT_TESTED with startupError', async ({
    onTestFinished,
  }) => {
    const p = faultLab(onTestFinished).launch(nodeFixture('crash-before-init.mjs'));
    expect(await waitForExit(p.raw.child, 30_000)).toEqual({ code: 1, signal: null });
    expect(p.raw.stderr()).not.toMatch(/^\s+at /m);
    const lines = p.raw
      .stderr()
      .split('\n')
      .filter((l) => l !== '');
    expect(lines, p.raw.stderr()).toHaveLength(1);
    expect(lines[0]).toMatch(/^\[cuonztech-agent-harness\] error: upstream did not start: .*cannot open database/);
    expect(p.report()).toMatchObject({
      verdict: 'NOT_TESTED',
      status: 'failed',
      certification: 'UNVERIFIED_FOR_PRODUCTION',
      startupError: expect.stringMatching(/cannot open database/),
    });
  });
});
