/**
 * The reaper on its own (Linux: found through /proc): disarmed, it exits at once and signals nothing,
 * even to a process group it was watching. What it does when the proxy dies is shown end to end with a
 * SIGKILLed proxy in e2e/proxy-orphan.e2e.test.ts.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { Reaper } from '../../../../src/adapters/processes/reaper.js';

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

function reapersOf(pgid: number): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        const argv = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
        return argv.includes('cuonztech-reaper') && argv[argv.indexOf('cuonztech-reaper') + 1] === String(pgid);
      } catch {
        return false;
      }
    })
    .map(Number)
    .filter(isAlive);
}

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 250 && !condition(); i += 1) await new Promise((resolve) => setTimeout(resolve, 20));
  if (!condition()) throw new Error(`timed out waiting for ${what}`);
}

it.skipIf(process.platform !== 'linux')('R-8.8: a disarmed reaper exits without signalling the group it watched', async () => {
  const group = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { detached: true, stdio: 'ignore' });
  const pid = group.pid!;
  try {
    const reaper = Reaper.watch(pid, 1000);
    expect(reaper).toBeDefined();
    await until(() => reapersOf(pid).length === 1, 'the reaper to start');
    reaper!.disarm();
    reaper!.disarm();
    await until(() => reapersOf(pid).length === 0, 'the disarmed reaper to exit');
    expect(isAlive(pid)).toBe(true);
  } finally {
    process.kill(-pid, 'SIGKILL');
  }
});
