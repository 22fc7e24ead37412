/**
 * `trial` bad input from the compiled CLI as a real process, for the family: one clear line
 * on stderr (no stack trace), exit 1, nothing on stdout and no run started — here an unknown model, found
 * before the first run; and `trial-relay`, the stdio relay process of agent programs. Every other bad
 * input, in-process with the same CLI code: test/integration/trial/bad-input.test.ts.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa, type Result } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startModelServer, type ModelServer } from '../test/fixtures/model-server/model-server.js';
import { BIN, requireBuild, ROOT } from '../test/support/proxy-harness.js';
import { BOOKING_UPSTREAM, TASK } from '../test/support/trial-harness.js';

const PREFIX = '[cuonztech-agent-harness] error:';
let server: ModelServer;
let dir: string;
let closedPort: number;

beforeAll(async () => {
  server = await startModelServer();
  dir = mkdtempSync(join(tmpdir(), 'harness-trial-cli-'));
  // A port that was free a moment ago: nothing listens there.
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  closedPort = (probe.address() as { port: number }).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

async function trial(args: string[]): Promise<{ result: Result; out: string }> {
  requireBuild();
  const out = join(dir, `out-${Math.random().toString(16).slice(2)}`);
  const argv = args.map((a) => (a === '{base}' ? server.baseUrl : a));
  const result = await execa(process.execPath, [BIN, 'trial', ...argv, '--out', out], {
    reject: false,
    timeout: 20_000,
    stdin: 'ignore',
    cwd: ROOT,
  });
  return { result, out };
}

function expectOneLineError({ result, out }: { result: Result; out: string }, pattern: RegExp): void {
  const stderr = String(result.stderr);
  expect(result.exitCode, stderr).toBe(1);
  expect(String(result.stdout)).toBe('');
  const lines = stderr.split('\n').filter((l) => l !== '');
  expect(lines, stderr).toHaveLength(1);
  expect(lines[0]!.startsWith(PREFIX), stderr).toBe(true);
  expect(lines[0]).toMatch(pattern);
  expect(stderr).not.toMatch(/^\s+at /m);
  // Nothing ran: no run folder was made.
  expect(existsSync(join(out, 'runs')) ? readdirSync(join(out, 'runs')) : []).toEqual([]);
}

/** `{base}` stands for the model server's URL (the cases are listed before it starts). */
const model = (name: string, ...rest: string[]) => [
  '--model',
  name,
  '--base-url',
  '{base}',
  ...TASK,
  ...BOOKING_UPSTREAM,
  ...rest,
];

describe('R-13 trial: bad input is one line and exit 1, before any run (the compiled CLI)', () => {
  it('an unknown model', async () => {
    expectOneLineError(
      await trial(model('no-such-model')),
      /unknown model "no-such-model" at http:\/\/127\.0\.0\.1:\d+\/v1 \(it lists: careful, naive/,
    );
  });
  it('trial-relay: a URL that is not http is one line; an endpoint that is gone ends the relay with exit 1 and one line', async () => {
    requireBuild();
    const bad = await execa(process.execPath, [BIN, 'trial-relay', 'ftp://x/mcp'], {
      reject: false,
      timeout: 20_000,
      stdin: 'ignore',
    });
    expect([bad.exitCode, String(bad.stderr).trim()]).toEqual([1, `${PREFIX} trial-relay needs an http URL, got "ftp://x/mcp"`]);
    const initialize = `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } })}\n`;
    // stdin stays open (the agent is still there): the relay ends because the endpoint is gone.
    const relay = execa(process.execPath, [BIN, 'trial-relay', `http://127.0.0.1:${closedPort}/mcp`], {
      reject: false,
      timeout: 20_000,
      stdin: 'pipe',
    });
    relay.stdin.write(initialize);
    const gone = await relay;
    expect(gone.exitCode).toBe(1);
    expect(String(gone.stderr).trim()).toMatch(
      new RegExp(`^trial-relay: the trial's MCP endpoint http://127\\.0\\.0\\.1:${closedPort}/mcp failed: .*fetch failed`),
    );
  });
});
