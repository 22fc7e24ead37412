/**
 * R-8.9 (issue 7): an HTTP upstream that refuses the proxy's token, through the whole CLI in-process
 * (`main(argv, io)`: flags, wiring, report file, exit code; no real stdin/stdout or signals). The same
 * family of start-up failures as a spawned process (exit 1, one line, no stack trace) is proven in
 * `e2e/transports.e2e.test.ts` (upstream down at start).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../src/cli/main.js';
import { startStreamableFixture, type FixtureServer } from './fixtures/http-upstream/fixture-servers.js';

let dir = '';
let fixture: FixtureServer | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
  if (dir !== '') rmSync(dir, { recursive: true, force: true });
  dir = '';
});

/** Runs the CLI in-process with `env`; answers the exit code and everything written to stderr. */
async function runCli(argv: string[], env: Record<string, string>): Promise<{ code: number; stderr: string }> {
  const stderr = new PassThrough();
  let text = '';
  stderr.on('data', (chunk: Buffer) => (text += chunk.toString()));
  const code = await main(argv, {
    stdin: new PassThrough(),
    stdout: new PassThrough(),
    stderr,
    env,
    cwd: dir,
    onSignal: () => () => undefined,
  });
  return { code, stderr: text };
}

describe('R-8.9: the upstream refuses the token (CLI in-process)', () => {
  it('R-8.9 (issue 7): a wrong token → exit 1 with one line naming HTTP 401 and no token value; startupError in the report file', async () => {
    dir = mkdtempSync(join(tmpdir(), 'transports-startup-'));
    fixture = await startStreamableFixture({ token: 'the-right-token-42' });
    const argv = ['proxy', '--upstream-url', fixture.url.href, '--upstream-header-env', 'Authorization=MY_TOKEN'];
    const { code, stderr } = await runCli([...argv, '--report-file', 'report.json'], { MY_TOKEN: 'Bearer wrong-token-4711' });
    expect(code).toBe(1);
    const lines = stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/HTTP 401/);
    expect(lines[0]).not.toMatch(/wrong-token-4711|the-right-token-42/);
    const report = readFileSync(join(dir, 'report.json'), 'utf8');
    expect((JSON.parse(report) as { startupError?: string }).startupError).toMatch(/HTTP 401/);
    expect(report).not.toMatch(/wrong-token-4711|the-right-token-42/);
    // Every request carried the token from the environment, as given.
    expect(fixture.requests.length).toBeGreaterThan(0);
    for (const request of fixture.requests) expect(request.headers.authorization).toBe('Bearer wrong-token-4711');
  });
});
