/**
 * `stats` refuses to pool trials that measured different things: trials of one agent,
 * task and scenario whose fault set-up differs (`--hold`, `--fault-on`) are refused with one line naming
 * each setting and its two values; the same set-up run twice still merges. In-process: the CLI's `main`,
 * the scripted model server and the bundled booking server over loopback HTTP.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runCli } from '../../support/in-process-cli.js';
import { inProcessTrial, TASK, type InProcessTrial, modelArgs, useTrialServers } from '../../support/trial-runs.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });

const servers = useTrialServers();
const scratch = mkdtempSync(join(tmpdir(), 'harness-stats-settings-'));
const trials: Record<'plain' | 'again' | 'held' | 'later', InProcessTrial> = {} as never;
const trial = (...rest: string[]): Promise<InProcessTrial> =>
  inProcessTrial(servers.booking, modelArgs(servers, 'careful', ...TASK, '--scenario', 'F1', '--runs', '1', ...rest));

beforeAll(async () => {
  trials.plain = await trial();
  trials.again = await trial();
  trials.held = await trial('--hold', '20');
  trials.later = await trial('--fault-on', '2', '--hold', '20');
}, 240_000);

afterAll(() => {
  for (const output of Object.values(trials)) output.remove();
  rmSync(scratch, { recursive: true, force: true });
});

describe('stats: trials that measured different things are not pooled', () => {
  it('a different fault set-up is refused with one line naming each setting and its values; nothing is written', async () => {
    const out = join(scratch, 'held.json');
    const held = await runCli(['stats', trials.plain.out, trials.held.out, '--json', out]);
    expect(held.code).toBe(1);
    expect(held.stderr.trim().split('\n')).toEqual([
      `[cuonztech-agent-harness] cannot merge: ${trials.plain.out} and ${trials.held.out} measured different things: F1 --hold is none in ${trials.plain.out} but 20 ms in ${trials.held.out}`,
    ]);
    expect(existsSync(out)).toBe(false);
    const later = await runCli(['stats', trials.held.out, trials.later.out]);
    expect(later.code).toBe(1);
    expect(later.stderr).toContain(`F1 --fault-on is 1 in ${trials.held.out} but 2 in ${trials.later.out}`);
    expect(later.stderr).not.toContain('--hold');
  });

  it('the same set-up run twice merges', async () => {
    const merged = await runCli(['stats', trials.plain.out, trials.again.out]);
    expect(merged.code, merged.stderr).toBe(0);
  });
});
