/**
 * `proxy --probe-results FILE` (docs/probe.md): the compiled `probe --json` runs against the fixture that
 * ignores keys (its `set_note` is annotated `idempotentHint: true` but appends: P8 `hint_broken`), then
 * the compiled `proxy`, in front of the same server with that file, names the broken hint in its start-up
 * list. A file that is not a probe result is one line, exit 1, before the upstream starts.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, FIXTURES } from '../test/support/proxy-harness.js';

let dir = '';
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'proxy-probe-results-e2e-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SERVER = ['--upstream-command', process.execPath, '--upstream-arg', join(FIXTURES, 'key-ignoring-server.mjs')];

/**
 * The CLI as a process. A proxy's agent (its stdin) leaves once the start-up list is complete (the line
 * after the tools: `Key fields detected`), or at once when `until` is null.
 */
function cli(args: string[], until: string | null = null): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: dir });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (until !== null && stderr.includes(until) && /proxy ready/.test(stderr)) child.stdin.end();
    });
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    if (until === null) child.stdin.end();
  });
}

describe('proxy --probe-results: a hint the probe found broken is named at start-up', () => {
  it("the key-ignoring server: probe finds set_note's idempotentHint broken; proxy names it with the way to judge it like any write", async () => {
    const probed = await cli([
      'probe',
      ...SERVER,
      '--tools',
      'set_note',
      '--example',
      'set_note={"name":"door","text":"blue"}',
      '--count-with',
      'list_items',
      '--json',
      'probe.json',
    ]);
    expect(probed.code, probed.stderr).toBe(2);
    const proxy = await cli(['proxy', ...SERVER, '--probe-results', 'probe.json'], 'Key fields detected');
    expect(proxy.code, proxy.stderr).toBe(0);
    expect(proxy.stderr).toContain('Idempotent write tools (idempotentHint');
    expect(proxy.stderr).toContain(
      'WARNING: probe found the idempotentHint of set_note broken (P8 hint_broken: an identical re-send made a second effect); it is honoured here',
    );
    expect(proxy.stderr).toContain('--idempotent-hint ignore');
    // Without the file, no such line.
    const plain = await cli(['proxy', ...SERVER], 'Key fields detected');
    expect(plain.stderr).toContain('Idempotent write tools (idempotentHint');
    expect(plain.stderr).not.toContain('probe found');
  });

  it('a file that is not a probe result: one line, exit 1, the upstream never started', async () => {
    writeFileSync(join(dir, 'not-probe.json'), JSON.stringify({ schemaVersion: 1, kind: 'probe-results' }));
    const bad = await cli(['proxy', ...SERVER, '--probe-results', 'not-probe.json']);
    expect(bad.code).toBe(1);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(bad.stderr).toMatch(/--probe-results .*not-probe\.json: not a probe --json file/);
    expect(bad.stderr).not.toContain('Upstream tools');
    const missing = await cli(['proxy', ...SERVER, '--probe-results', 'absent.json']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/--probe-results .*absent\.json: ENOENT/);
  });
});
