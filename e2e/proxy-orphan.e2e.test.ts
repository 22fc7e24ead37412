/**
 * when the proxy cannot run its shut-down: a SIGKILLed proxy (issue 11, item 4). The upstream sees
 * its stdin close, but one that ignores EOF and SIGTERM — any server with a timer — would live on,
 * re-parented to PID 1. The proxy's reaper (src/adapters/stdio-upstream/reaper.ts) reads a pipe only the
 * proxy writes to; the kernel closes it when the proxy dies, and the reaper ends the upstream's process
 * group: grace, SIGTERM, grace, SIGKILL. Checked by pid. And a proxy that stops normally disarms it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isAlive, waitFor, waitForExit } from './fixtures/lib/raw-child.mjs';
import { FIXTURES } from './support/proxy-harness.js';
import { pidsFromFile, spawnProxy, type RawProxy } from './support/raw-proxy.js';

const node = (name: string): string[] => ['--upstream-command', process.execPath, '--upstream-arg', join(FIXTURES, name)];
/** The reaper's grace is 2 s per step (SIGTERM after 2 s, SIGKILL 2 s later): 4 s, plus a margin for a busy machine. */
const REAPED_WITHIN_MS = 10_000;

let proxy: RawProxy | undefined;
const seenPids = new Set<number>();
afterEach(async () => {
  await proxy?.dispose();
  proxy = undefined;
  for (const pid of seenPids) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  seenPids.clear();
});

async function start(flags: string[]): Promise<RawProxy> {
  proxy = spawnProxy(flags, { env: { FIXTURE_MAX_LIFE_MS: '60000' } });
  await proxy.initialize();
  return proxy;
}

/** Pids of the reapers watching the process group `pgid` (Linux: read from /proc; elsewhere none are seen). */
function reapersOf(pgid: number): number[] {
  if (process.platform !== 'linux') return [];
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const argv = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (argv.includes('cuonztech-reaper') && argv[argv.indexOf('cuonztech-reaper') + 1] === String(pgid))
        found.push(Number(entry));
    } catch {
      // the process ended meanwhile
    }
  }
  return found.filter(isAlive);
}

/** SIGKILLs the proxy: `orphan` outlives it (stdin EOF does not end it), then every pid is gone in time. */
async function killProxyAndExpectReaped(p: RawProxy, pids: number[], orphan: number, pgid: number): Promise<void> {
  expect(pids.every(isAlive)).toBe(true);
  expect(reapersOf(pgid)).toHaveLength(process.platform === 'linux' ? 1 : 0);
  p.raw.child.kill('SIGKILL');
  expect(await waitForExit(p.raw.child, 5000)).toEqual({ code: null, signal: 'SIGKILL' });
  expect(isAlive(orphan)).toBe(true);
  await waitFor(() => pids.every((pid) => !isAlive(pid)), REAPED_WITHIN_MS, `processes ${pids.join(', ')} to be reaped`);
  await waitFor(() => reapersOf(pgid).length === 0, 5000, 'the reaper to exit');
}

describe('R-8.8: a SIGKILLed proxy leaves no upstream behind', () => {
  it.skipIf(process.platform === 'win32')(
    'R-8.8: an upstream that ignores stdin EOF outlives the proxy only until the reaper ends it, within seconds',
    async () => {
      const p = await start(node('ignores-sigterm.mjs'));
      const [pid] = await pidsFromFile(p, 1, seenPids);
      await killProxyAndExpectReaped(p, [pid!], pid!, pid!);
    },
  );

  it.skipIf(process.platform === 'win32')(
    'R-8.8: the SIGTERM-proof grandchild of an upstream that exits on EOF is reaped with its process group',
    async () => {
      const p = await start(node('spawns-child.mjs'));
      const [server, grandchild] = await pidsFromFile(p, 2, seenPids);
      await killProxyAndExpectReaped(p, [server!, grandchild!], grandchild!, server!);
    },
  );

  it.skipIf(process.platform !== 'linux')('R-8.8: a proxy that stops normally leaves no reaper behind', async () => {
    const p = await start(node('counting-server.mjs'));
    await p.request('tools/call', { name: 'get_order', arguments: {} });
    const pid = p.ledger()[0]!.pid; // the counting upstream writes its pid with every call
    seenPids.add(pid);
    const [reaper] = reapersOf(pid);
    expect(reaper).toBeDefined();
    expect(await p.stop(15_000)).toEqual({ code: 0, signal: null });
    await waitFor(() => !isAlive(reaper!), 3000, 'the disarmed reaper to exit');
    expect(isAlive(pid)).toBe(false);
  });
});
