/** Whether this test run may mount a small tmpfs (to fill a disk on purpose): root, outside a sandbox that forbids it. */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

let answer: string | null | undefined;

/**
 * Why this run may not mount a tmpfs (not root; root in a sandbox that refuses `mount`), or null when it
 * may. Tried once per test file (a mount and an unmount), then remembered.
 */
export function whyNoTmpfs(): string | null {
  answer ??= probe();
  return answer;
}

/**
 * Skips the running test unless a tmpfs can be mounted (the full-disk tests run only as root), saying why:
 * on stderr, which vitest prints under the test's name in every run, and as the skip note the verbose and
 * JSON reporters show. `skip` is the test context's.
 */
export function skipUnlessTmpfs(skip: (note: string) => never): void {
  const why = whyNoTmpfs();
  if (why === null) return;
  const note = `skipped: a real full disk needs a 64 KiB tmpfs, and ${why}`;
  console.warn(note);
  skip(note);
}

function probe(): string | null {
  const uid = process.getuid?.();
  if (uid !== 0) return `mounting one needs root (this run's uid is ${uid ?? 'unknown'})`;
  const dir = mkdtempSync(join(tmpdir(), 'harness-mount-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', dir], { stdio: 'ignore' });
    execFileSync('umount', [dir], { stdio: 'ignore' });
    return null;
  } catch (error) {
    return `this root may not mount one here (${error instanceof Error ? error.message.split('\n')[0] : String(error)})`;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
