/** Whether this test run may mount a small tmpfs (to fill a disk on purpose): root, outside a sandbox that forbids it. */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

let answer: boolean | undefined;

/** Tried once per test file (a mount and an unmount), then remembered. */
export function canMountTmpfs(): boolean {
  answer ??= probe();
  return answer;
}

function probe(): boolean {
  if (process.getuid?.() !== 0) return false;
  const dir = mkdtempSync(join(tmpdir(), 'harness-mount-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', dir], { stdio: 'ignore' });
    execFileSync('umount', [dir], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
