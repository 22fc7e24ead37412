/**
 * The proxy as a process (R-8.7, R-8.8, R-8.9, R-9): how it ends (stdin EOF, a client that stops
 * reading, signals, an oversized message), that its upstream and the upstream's descendants end with it,
 * upstream crashes and start-up failures, and the report file at every moment of a session.
 * Upstream pids come from the fixtures' ledger (`pid`) or a pidfile; no process may be left behind.
 */
import { existsSync, lstatSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setImmediate as yieldLoop } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { executions } from './fixtures/lib/ledger.mjs';
import { isAlive, waitFor, waitForExit } from './fixtures/lib/raw-child.mjs';
import { FIXTURES } from './support/proxy-harness.js';
import { pidsFromFile, rawText, resultOf, spawnProxy, type RawProxy, type SpawnProxyOptions } from './support/raw-proxy.js';

const fixture = (name: string): string => join(FIXTURES, name);
const node = (name: string): string[] => ['--upstream-command', process.execPath, '--upstream-arg', fixture(name)];
/** `sh -c <script>` as the upstream: a wrapper, like `npx` or a shell line in an MCP config. */
const shell = (script: string): string[] => ['--upstream-command', 'sh', '--upstream-arg', '-c', '--upstream-arg', script];
/** A shell word running `node <fixture>`. */
const nodeWord = (name: string): string => `"${process.execPath}" "${fixture(name)}"`;
const COUNTING = node('counting-server.mjs');

let proxy: RawProxy | undefined;
/** Pids of upstream processes seen in a test: killed in afterEach if a failing test left them behind. */
const seenPids = new Set<number>();
afterEach(async () => {
  await proxy?.dispose();
  proxy = undefined;
  for (const pid of seenPids) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  seenPids.clear();
});

function launch(flags: string[], options: SpawnProxyOptions = {}): RawProxy {
  proxy = spawnProxy(flags, options);
  return proxy;
}

async function start(flags: string[], options: SpawnProxyOptions = {}): Promise<RawProxy> {
  const p = launch(flags, options);
  await p.initialize();
  return p;
}

const call = async (p: RawProxy, name: string, args: unknown = {}, timeoutMs?: number) =>
  resultOf(await p.request('tools/call', { name, arguments: args }, timeoutMs));

/** Writes a tools/call request without waiting for its answer. */
const sendCall = (p: RawProxy, id: number, name: string, args: unknown) =>
  p.raw.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });

/** The pid of the upstream that wrote the ledger. */
function upstreamPid(p: RawProxy): number {
  const pid = p.ledger()[0]?.pid;
  if (typeof pid !== 'number') throw new Error('no ledger entry with a pid yet');
  seenPids.add(pid);
  return pid;
}

async function expectGone(pids: number[], timeoutMs = 8000): Promise<void> {
  await waitFor(() => pids.every((pid) => !isAlive(pid)), timeoutMs, `processes ${pids.join(', ')} to end`);
}

function expectNoStackTrace(p: RawProxy): void {
  expect(p.raw.stderr()).not.toMatch(/^\s+at /m);
}

/** Exit 1 and exactly one stderr line, the fatal one. */
function expectOneErrorLine(p: RawProxy, pattern: RegExp): void {
  const lines = p.raw
    .stderr()
    .split('\n')
    .filter((l) => l !== '');
  expect(lines, p.raw.stderr()).toHaveLength(1);
  expect(lines[0]).toMatch(/^\[cuonztech-agent-harness\] error: /);
  expect(lines[0]).toMatch(pattern);
}

describe('R-8.8: the proxy ends with its agent, and its upstream with it', () => {
  it('R-8.8: stdin EOF ends the proxy (exit 0) and its upstream; the report says finished', async () => {
    const p = await start(COUNTING);
    await call(p, 'create_order', { item: 'pen' });
    const pid = upstreamPid(p);
    expect(await p.stop(8000)).toEqual({ code: 0, signal: null });
    await expectGone([pid], 3000);
    expect(p.report().status).toBe('finished');
    expect(p.report().report.operations).toEqual([expect.objectContaining({ tool: 'create_order', executions: 1 })]);
  });

  it('R-8.8: a client that stops reading (EPIPE) ends the proxy and its upstream without a stack trace', async () => {
    const p = await start(COUNTING);
    await call(p, 'get_order', { order_id: 'o-0' });
    const pid = upstreamPid(p);
    p.raw.child.stdout.destroy();
    for (let i = 1; i <= 200; i++) sendCall(p, 100 + i, 'get_order', { order_id: `o-${i}`, hugeAnswerBytes: 20_000 });
    const exit = await waitForExit(p.raw.child, 15_000);
    expect(exit.signal).toBeNull();
    expect(p.raw.stderr()).toMatch(/stopped reading/);
    expectNoStackTrace(p);
    await expectGone([pid]);
  });

  it('R-8.8: a message over 10 MB ends the session: report written, proxy exits, upstream gone', async () => {
    const p = await start(COUNTING);
    await call(p, 'create_order', { item: 'pen' });
    const pid = upstreamPid(p);
    sendCall(p, 50, 'create_order', { item: 'x'.repeat(11 * 1024 * 1024) });
    const exit = await waitForExit(p.raw.child, 15_000);
    expect(exit.signal).toBeNull();
    expect(p.raw.stderr()).toMatch(/10 MB/);
    expectNoStackTrace(p);
    await expectGone([pid]);
    expect(p.report().status).toBe('finished');
    expect(executions(p.ledger(), 'create_order')).toHaveLength(1);
  });

  it('R-8.8 / R-9.1: a client that disconnects during a slow start-up still ends the upstream; the report ends in a final state saying so', async () => {
    const p = launch(shell(`echo $$ > "$FIXTURE_PIDFILE"; exec ${nodeWord('slow-start.mjs')}`), {
      env: { FIXTURE_START_DELAY_MS: '1500' },
    });
    const pids = await pidsFromFile(p, 1, seenPids);
    p.raw.child.stdin.end();
    expect(await waitForExit(p.raw.child, 15_000)).toEqual({ code: 0, signal: null });
    expectNoStackTrace(p);
    await expectGone(pids);
    // Not `status: "starting"` for good (issue 11): the file says the run never started, and why.
    expect(p.report()).toEqual({
      verdict: 'NOT_TESTED',
      status: 'failed',
      certification: 'UNVERIFIED_FOR_PRODUCTION',
      harnessVersion: expect.any(String),
      startupError: 'start-up did not complete: the agent disconnected during start-up; no calls were made',
    });
  });

  it('R-8.8 / R-9.1: SIGTERM during a slow start-up: exit 0, and the report says start-up did not complete', async () => {
    const p = launch(node('slow-start.mjs'), { env: { FIXTURE_START_DELAY_MS: '20000' } });
    await waitFor(() => (existsSync(p.reportFile) ? p.report() : undefined), 10_000, 'the starting report');
    p.raw.child.kill('SIGTERM');
    expect(await waitForExit(p.raw.child, 15_000)).toEqual({ code: 0, signal: null });
    expect(p.report()).toMatchObject({
      verdict: 'NOT_TESTED',
      status: 'failed',
      startupError: 'start-up did not complete: received SIGTERM; no calls were made',
    });
  });
  // The agent side reads stdin from the start (messages wait until the session is served), so an agent
  // that leaves while the upstream never answers `initialize` ends both at once, not after 60 s.
  it('R-8.8: a client that disconnects while the upstream never answers initialize ends both at once', async () => {
    const p = launch(shell(`echo $$ > "$FIXTURE_PIDFILE"; exec ${nodeWord('slow-start.mjs')}`), {
      env: { FIXTURE_START_DELAY_MS: '55000' },
    });
    const pids = await pidsFromFile(p, 1, seenPids);
    p.raw.child.stdin.end();
    try {
      await waitForExit(p.raw.child, 5000);
      await expectGone(pids, 3000);
    } finally {
      p.raw.child.kill('SIGKILL');
    }
  });
});

describe('R-8.8: signals end the proxy cleanly', () => {
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
    it(`R-8.8: ${signal} during a slow call: exit 0, no stack trace, the call EXECUTION_UNKNOWN, upstream gone`, async () => {
      const p = await start(COUNTING);
      sendCall(p, 9, 'create_order', { item: 'pen', sleepMs: 8000 });
      await waitFor(() => executions(p.ledger(), 'create_order').length === 1, 10_000, 'the slow call to execute');
      const pid = upstreamPid(p);
      p.raw.child.kill(signal);
      expect(await waitForExit(p.raw.child, 15_000)).toEqual({ code: 0, signal: null });
      expectNoStackTrace(p);
      await expectGone([pid]);
      expect(p.report().status).toBe('finished');
      expect(p.report().report.operations).toEqual([
        expect.objectContaining({ tool: 'create_order', outcome: 'EXECUTION_UNKNOWN' }),
      ]);
    });
  }

  it('R-8.8: an answer arriving within the drain window after SIGTERM still counts', async () => {
    const p = await start(COUNTING);
    sendCall(p, 9, 'create_order', { item: 'pen', sleepMs: 600 });
    await waitFor(() => executions(p.ledger(), 'create_order').length === 1, 10_000, 'the call to execute');
    p.raw.child.kill('SIGTERM');
    expect(await waitForExit(p.raw.child, 15_000)).toEqual({ code: 0, signal: null });
    const [op] = p.report().report.operations;
    expect(op).toMatchObject({ tool: 'create_order', executions: 1 });
    expect(op!.outcome).not.toBe('EXECUTION_UNKNOWN');
  });
});

describe('R-8.8: wrappers and their descendants end with the proxy', () => {
  it('R-8.8: sh -c "node spawns-child.mjs": the server and its SIGTERM-proof grandchild are gone after disconnect', async () => {
    const p = await start(shell(nodeWord('spawns-child.mjs')), { env: { FIXTURE_MAX_LIFE_MS: '60000' } });
    await call(p, 'get_order', { order_id: 'o-1' });
    const pids = await pidsFromFile(p, 2, seenPids);
    expect(pids.every(isAlive)).toBe(true);
    expect(await p.stop(15_000)).toEqual({ code: 0, signal: null });
    await expectGone(pids, 3000);
  });

  it('R-8.8: sh -c "node ignores-sigterm.mjs; true": the server that ignores SIGTERM and EOF is gone after disconnect', async () => {
    const p = await start(shell(`${nodeWord('ignores-sigterm.mjs')}; true`), { env: { FIXTURE_MAX_LIFE_MS: '60000' } });
    const [pid] = await pidsFromFile(p, 1, seenPids);
    expect(await p.stop(15_000)).toEqual({ code: 0, signal: null });
    await expectGone([pid!], 3000);
  });
});

describe('R-8.7: an upstream that crashes mid-session', () => {
  it('R-8.7: stderr says "upstream crashed" with its stderr tail; the call is EXECUTION_UNKNOWN; later calls get UPSTREAM_UNAVAILABLE', async () => {
    const p = await start(shell(`echo "fixture-stderr: about to serve" >&2; exec ${nodeWord('counting-server.mjs')}`));
    const crashed = await call(p, 'create_order', { item: 'pen', crash: true });
    expect(crashed['isError']).toBe(true);
    upstreamPid(p);
    await waitFor(() => p.raw.stderr().includes('upstream crashed'), 10_000, '"upstream crashed" on stderr');
    expect(p.raw.stderr()).toMatch(/upstream crashed[^\n]*\n(.*\n)*.*fixture-stderr: about to serve/);
    expect(p.report().report.operations).toEqual([
      expect.objectContaining({ tool: 'create_order', outcome: 'EXECUTION_UNKNOWN' }),
    ]);
    const later = await call(p, 'create_order', { item: 'book' });
    expect(later['isError']).toBe(true);
    expect(rawText(later)).toMatch(/UPSTREAM_UNAVAILABLE/);
    expect(rawText(await call(p, 'cuonztech__get_score'))).not.toBe('');
    expect(executions(p.ledger(), 'create_order')).toHaveLength(1);
    expect(await p.stop(8000)).toEqual({ code: 0, signal: null });
    expectNoStackTrace(p);
  });
});

describe('R-8.9 / R-9.1: an upstream that does not start', () => {
  const cases: Array<[string, string[], RegExp]> = [
    ['crash-before-init.mjs (exit 1 with a reason)', node('crash-before-init.mjs'), /cannot open database/],
    ['exits-at-once.mjs (exit 0, no word)', node('exits-at-once.mjs'), /upstream did not start/],
    ['a command that does not exist', ['--upstream-command', 'cuonztech-no-such-command-e2e'], /cuonztech-no-such-command-e2e/],
  ];
  for (const [name, flags, pattern] of cases) {
    it(`R-8.9: ${name} → exit 1, one line, report NOT_TESTED with startupError`, async () => {
      const p = launch(flags);
      expect(await waitForExit(p.raw.child, 30_000)).toEqual({ code: 1, signal: null });
      expectOneErrorLine(p, /upstream did not start/);
      expectOneErrorLine(p, pattern);
      expect(p.report()).toMatchObject({
        verdict: 'NOT_TESTED',
        certification: 'UNVERIFIED_FOR_PRODUCTION',
        startupError: expect.any(String),
      });
    });
  }

  it('R-9.1: during a slow start-up the report file says status "starting", verdict NOT_TESTED', async () => {
    const p = launch(node('slow-start.mjs'), { env: { FIXTURE_START_DELAY_MS: '1500' } });
    const early = await waitFor(() => (existsSync(p.reportFile) ? p.report() : undefined), 10_000, 'the first report file');
    expect(early).toMatchObject({ status: 'starting', verdict: 'NOT_TESTED', certification: 'UNVERIFIED_FOR_PRODUCTION' });
    await p.initialize();
    await call(p, 'get_order', { order_id: 'o-1' });
    expect(p.report().status).toBe('running');
  });
});

describe('R-9: the report file during a session', () => {
  it('R-9.2: after each of 5 calls returns, the file already reflects that call', async () => {
    const p = await start(COUNTING);
    for (let i = 1; i <= 5; i++) {
      await call(p, 'create_order', { item: `item-${i}` });
      const ops = p.report().report.operations;
      expect(ops).toHaveLength(i);
      expect(ops[i - 1]).toMatchObject({ tool: 'create_order', executions: 1 });
    }
  });

  it('R-9.2.1: SIGKILL while a write is at the upstream leaves a file saying NOT_TESTED with the call EXECUTION_UNKNOWN', async () => {
    const p = await start(COUNTING);
    await call(p, 'create_order', { item: 'tea' });
    expect(p.report().verdict).toBe('PASS');
    sendCall(p, 9, 'create_order', { item: 'pen', sleepMs: 8000 });
    await waitFor(() => executions(p.ledger(), 'create_order').length === 2, 10_000, 'the slow call to execute');
    const pid = upstreamPid(p);
    p.raw.child.kill('SIGKILL');
    await waitForExit(p.raw.child, 5000);
    process.kill(pid, 'SIGKILL');
    const file = p.report();
    expect(file).toMatchObject({ verdict: 'NOT_TESTED', status: 'running' });
    expect(file.report.operations).toEqual([
      expect.objectContaining({ arguments: expect.stringContaining('tea'), outcome: 'EXECUTED' }),
      expect.objectContaining({ arguments: expect.stringContaining('pen'), outcome: 'EXECUTION_UNKNOWN' }),
    ]);
  });

  it('R-9.3: the file is valid JSON at every moment while 200 calls run', async () => {
    const p = await start(COUNTING);
    for (let i = 1; i <= 200; i++) sendCall(p, 1000 + i, 'create_order', { item: `item-${i}` });
    let reads = 0;
    let done = false;
    const last = p.response(1200, 30_000).finally(() => (done = true));
    while (!done) {
      if (existsSync(p.reportFile)) {
        JSON.parse(readFileSync(p.reportFile, 'utf8'));
        reads++;
      }
      await yieldLoop();
    }
    await last;
    expect(reads).toBeGreaterThan(20);
    await waitFor(() => p.report().report.operations.length === 200, 5000, '200 operations in the report');
  });

  it('R-9.4: a symbolic link to a regular file is written through and stays a link', async () => {
    const prepare = (dir: string, reportFile: string) => {
      writeFileSync(join(dir, 'real.json'), '{}');
      symlinkSync(join(dir, 'real.json'), reportFile);
    };
    const p = await start(COUNTING, { prepare });
    await call(p, 'create_order', { item: 'pen' });
    expect(lstatSync(p.reportFile).isSymbolicLink()).toBe(true);
    const real = JSON.parse(readFileSync(join(p.dir, 'real.json'), 'utf8')) as { status: string };
    expect(real.status).toBe('running');
  });

  it('R-9.3/R-9.2.1: the target becoming a folder mid-session ends the proxy with exit 1; the call is neither forwarded nor answered', async () => {
    const p = await start(COUNTING);
    await call(p, 'create_order', { item: 'pen' });
    const pid = upstreamPid(p);
    rmSync(p.reportFile);
    mkdirSync(p.reportFile);
    sendCall(p, 77, 'create_order', { item: 'book' });
    expect(await waitForExit(p.raw.child, 15_000)).toEqual({ code: 1, signal: null });
    await expect(p.response(77, 300)).rejects.toThrow(/timed out/);
    // The write before forwarding failed, so the second call never reached the upstream.
    expect(executions(p.ledger(), 'create_order')).toHaveLength(1);
    expect(p.raw.stderr()).toMatch(/report file could not be written/);
    expectNoStackTrace(p);
    await expectGone([pid]);
  });
});
