/**
 * `probe` as the compiled CLI, a real process in front of real fixture server processes: the table on
 * stdout, the JSON file, the exit code, and the effects each probe counted equal to the fixture's own
 * ledger. The exact labels of the three fixtures are asserted in-process (test/integration/probe/probe-service.test.ts).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeResultsSchema } from '../src/adapters/schemas/probe-results.schema.js';
import { expectMatchesSchema } from '../test/support/file-schemas.js';
import { readLedger } from './fixtures/lib/ledger.mjs';
import { BIN, BOOKING_SERVER, FIXTURES } from '../test/support/proxy-harness.js';

let dir = '';
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'probe-e2e-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, 'probe', ...args], { env: { ...process.env, ...env }, cwd: dir });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('probe, the compiled CLI', { timeout: 60_000 }, () => {
  it('a server that ignores the key: BREAKS in the table and the JSON, exit 2, counts equal to its ledger', async () => {
    const ledger = join(dir, 'ignore.jsonl');
    const result = await run(
      [
        '--upstream-command',
        process.execPath,
        '--upstream-arg',
        join(FIXTURES, 'key-ignoring-server.mjs'),
        '--tools',
        'create_*',
        '--example',
        'create_payment={"amount":5,"currency":"EUR"}',
        '--count-with',
        'list_items',
        '--json',
        'probe.json',
      ],
      { FIXTURE_LEDGER: ledger, FIXTURE_WORK_MS: '300' },
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(2);
    expect(result.stdout).toMatch(/create_payment\s+P1\s+double_created/);
    expect(result.stdout).toMatch(/create_payment\s+verdict\s+BREAKS/);
    expect(result.stdout).toContain('0 KEEPS, 1 BREAKS');
    const json = JSON.parse(readFileSync(join(dir, 'probe.json'), 'utf8')) as {
      schemaVersion: number;
      exitCode: number;
      tools: Array<{
        tool: string;
        verdict: string;
        probes: Array<{ probe: string; label: string; evidence: { counts: number[] } }>;
      }>;
    };
    expect(json.exitCode).toBe(2);
    expect(json.schemaVersion).toBe(1);
    expectMatchesSchema(probeResultsSchema, json, 'probe results');
    expect(json.tools.map((t) => [t.tool, t.verdict])).toEqual([['create_payment', 'BREAKS']]);
    const counted = json.tools[0]!.probes.map((p) => p.evidence.counts.at(-1)! - p.evidence.counts[0]!);
    const created = new Map<number, number>();
    for (const entry of readLedger(ledger))
      created.set(entry.pid, (created.get(entry.pid) ?? 0) + (entry['effect'] === 'created' ? 1 : 0));
    expect(counted).toEqual([...created.values()]);
    expect(counted).toEqual([2, 2, 2, 2, 2, 1, 2, 2]);
  });

  it('bad input is one line on stderr and exit 1: no write tool matching --tools', async () => {
    const result = await run(
      ['--upstream-command', process.execPath, '--upstream-arg', join(FIXTURES, 'stripe-keys-server.mjs'), '--tools', 'refund_*'],
      {},
    );
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      '[cuonztech-agent-harness] error: no write tool matches --tools refund_* (write tools: create_payment, set_note)\n',
    );
  });

  it('the bundled booking server (not idempotent on purpose): exact labels, counts equal to its ledger', async () => {
    const ledger = join(dir, 'booking.jsonl');
    const result = await run(
      [
        '--upstream-command',
        process.execPath,
        '--upstream-arg',
        BOOKING_SERVER,
        '--tools',
        'create_booking',
        '--example',
        'create_booking={"guest":"Ann Lee","date":"2026-05-01","nights":2}',
        '--count-with',
        'search_bookings',
        '--json',
        'booking.json',
      ],
      { BOOKING_LEDGER: ledger },
    );
    expect(result.code).toBe(2);
    const json = JSON.parse(readFileSync(join(dir, 'booking.json'), 'utf8')) as {
      tools: Array<{ verdict: string; probes: Array<{ probe: string; label: string; evidence: { counts: number[] } }> }>;
    };
    const tool = json.tools[0]!;
    expect(tool.verdict).toBe('BREAKS');
    expect(Object.fromEntries(tool.probes.map((p) => [p.probe, p.label]))).toEqual({
      P1: 'double_created',
      P2: 'silent_new_result',
      P3: 'double_created',
      P4: 'new_effect_ok',
      P5: 'double_created',
      P6: 'new_effect_ok',
      P7: 'double_created',
      // the write that lands after its retry books again.
      P9: 'double_created',
    });
    const perProcess = new Map<number, number>();
    for (const entry of readLedger(ledger))
      if (entry.tool === 'create_booking') perProcess.set(entry.pid, (perProcess.get(entry.pid) ?? 0) + 1);
    expect(tool.probes.map((p) => p.evidence.counts.at(-1)! - p.evidence.counts[0]!)).toEqual([...perProcess.values()]);
  });

  it("server-filesystem's write_file (idempotentHint): the hint holds, KEEPS, exit 0", async () => {
    const root = join(dir, 'fs-root');
    mkdirSync(root);
    const file = join(root, 'a.txt');
    const result = await run(
      [
        '--upstream-command',
        process.execPath,
        '--upstream-arg',
        join(FIXTURES, '../../node_modules/@modelcontextprotocol/server-filesystem/dist/index.js'),
        '--upstream-arg',
        root,
        '--tools',
        'write_file',
        '--reset-command',
        `rm -f '${file}'`,
        '--example',
        `write_file=${JSON.stringify({ path: file, content: 'hello' })}`,
        '--count-with',
        `list_directory=${JSON.stringify({ path: root })}`,
      ],
      {},
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/write_file\s+P8\s+hint_holds/);
    expect(result.stdout).toMatch(/write_file\s+verdict\s+KEEPS/);
  });
});
