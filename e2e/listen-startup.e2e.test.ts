/**
 * `--listen` as CI scripts use it: the compiled proxy on a known port, an agent (the SDK's own
 * Streamable HTTP client, which does not retry `initialize`) started the moment the port accepts
 * connections, while the upstream is still starting. The upstream's ledger is the ground truth.
 */
import { connect } from 'node:net';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { executions, readLedger } from './fixtures/lib/ledger.mjs';
import { waitFor } from './fixtures/lib/raw-child.mjs';
import { freePort, removeDir, spawnNode, stopAll, tempDir, type NodeProcess } from '../test/support/http-harness.js';
import { BIN, FIXTURES, requireBuild, textOf } from '../test/support/proxy-harness.js';

const dirs: string[] = [];
afterEach(async () => {
  await stopAll();
  for (const dir of dirs.splice(0)) removeDir(dir);
});

/** True once a TCP connection to 127.0.0.1:`port` is accepted (the port is open). */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** The compiled proxy on a fixed loopback port, the fixture `upstream` behind it; answers once its port is open. */
async function proxyOnPort(upstream: string, env: Record<string, string>) {
  requireBuild();
  const dir = tempDir();
  dirs.push(dir);
  const ledger = join(dir, 'ledger.jsonl');
  const port = await freePort();
  const proc: NodeProcess = spawnNode(
    [
      BIN,
      'proxy',
      '--upstream-command',
      process.execPath,
      '--upstream-arg',
      join(FIXTURES, upstream),
      '--listen',
      `127.0.0.1:${port}`,
      '--report-dir',
      join(dir, 'reports'),
    ],
    { FIXTURE_LEDGER: ledger, ...env },
    dir,
  );
  await waitFor(async () => (await accepts(port)) || null, 60_000, 'the proxy port to accept connections');
  return { proc, ledger, url: new URL(`http://127.0.0.1:${port}/mcp`) };
}

describe('--listen: agents that connect while the upstream starts wait for it', () => {
  it('the SDK client connecting the moment the port opens (upstream still starting) is served; its write executes once', async () => {
    const { proc, ledger, url } = await proxyOnPort('slow-start.mjs', { FIXTURE_START_DELAY_MS: '2500' });
    // The upstream has not answered initialize yet: the proxy has not said it is ready.
    expect(proc.stderr()).not.toMatch(/proxy ready/);
    const client = new Client({ name: 'ci-agent', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(url), { timeout: 30_000 });
    expect(proc.stderr()).toMatch(/proxy ready: .*agents connect to http:\/\/127\.0\.0\.1:\d+\/mcp/);
    const answer = await client.callTool({ name: 'create_order', arguments: { item: 'pen' } });
    expect(textOf(answer as CallToolResult)).toBe('ok create_order #1');
    expect(executions(readLedger(ledger))).toHaveLength(1);
    await client.close();
    expect(await proc.stop('SIGTERM')).toEqual({ code: 0, signal: null });
  });

  it('R-8.9: an upstream that fails to start gives the waiting agent an error naming why, and the proxy exits 1', async () => {
    const { proc, url } = await proxyOnPort('crash-before-init.mjs', { FIXTURE_CRASH_DELAY_MS: '1500' });
    const client = new Client({ name: 'ci-agent', version: '1.0.0' });
    const connected = client.connect(new StreamableHTTPClientTransport(url), { timeout: 30_000 });
    await expect(connected).rejects.toThrow(/could not start: upstream did not start.*cannot open database/s);
    expect(await proc.exited).toEqual({ code: 1, signal: null });
    expect(proc.stderr()).toMatch(/error: upstream did not start: .*cannot open database/);
    expect(proc.stderr()).not.toMatch(/proxy ready/);
  });
});
