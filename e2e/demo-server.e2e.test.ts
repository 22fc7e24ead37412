/**
 * The demo MCP server (R-12) as users run it: `node dist/cli/bin.js` with no command, driven by the
 * SDK's Client over stdio in a temporary current folder (`npm run build` first): one real session (its
 * tools, an F1 flow, the report file it writes in its current folder) and its exits. The other demo
 * behaviours (an unwritable report, reset/delete, the 501st session, R-13's hostile input) run the same
 * `main()` in-process in `test/cli/commands-in-process.test.ts`.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INITIALIZE, spawnRaw, waitForExit } from './fixtures/lib/raw-child.mjs';

const BIN = fileURLToPath(new URL('../dist/cli/bin.js', import.meta.url));
const FORBIDDEN_SCHEMA_KEYWORDS = ['$schema', 'pattern', 'format', 'propertyNames'];
type Json = Record<string, unknown>;

let tmp = '';
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'demo-e2e-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Starts the demo server in `cwd`, runs `body` with a connected client, and always closes it. */
async function withDemo<T>(cwd: string, body: (demo: Demo) => Promise<T>): Promise<T> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN],
    cwd,
    env: { ...process.env } as Record<string, string>,
    stderr: 'pipe',
  });
  const client = new Client({ name: 'demo-e2e', version: '1.0.0' });
  await client.connect(transport, { timeout: 10_000 });
  try {
    return await body(new Demo(client));
  } finally {
    await client.close();
  }
}

class Demo {
  constructor(readonly client: Client) {}

  async call(name: string, args: Json = {}): Promise<CallToolResult> {
    return (await this.client.callTool({ name, arguments: args })) as CallToolResult;
  }

  async text(name: string, args: Json = {}): Promise<string> {
    const result = await this.call(name, args);
    const text = (result.content[0] as { text: string }).text;
    expect(result.isError, text).toBeFalsy();
    return text;
  }

  async json(name: string, args: Json = {}): Promise<Json> {
    return JSON.parse(await this.text(name, args)) as Json;
  }

  async start(args: Json = {}): Promise<string> {
    return (await this.json('start_session', args))['session_id'] as string;
  }
}

/** Schema keys, not counting property NAMES inside `properties` (get_report has a parameter `format`). */
function schemaKeys(value: unknown, into: Set<string> = new Set()): Set<string> {
  if (typeof value !== 'object' || value === null) return into;
  for (const [key, child] of Object.entries(value)) {
    into.add(key);
    if (key === 'properties' && typeof child === 'object' && child !== null)
      Object.values(child).forEach((v) => schemaKeys(v, into));
    else schemaKeys(child, into);
  }
  return into;
}

describe('demo MCP server over stdio', () => {
  it('R-12: lists exactly the 7 tools and list_records (R-15.1), none of whose schemas uses $schema, pattern, format or propertyNames; F1 with a repeated write is FAIL with the GHOST_WRITE patch; get_report writes .cuonztech/audit-report.json (kind demo) in its current folder', async () => {
    const cwd = mkdtempSync(join(tmp, 'cwd-'));
    await withDemo(cwd, async (demo) => {
      const { client } = demo;
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual([
        'delete_session',
        'execute_call',
        'get_report',
        'get_score',
        'list_records',
        'list_scenarios',
        'reset_session',
        'start_session',
      ]);
      for (const tool of tools) {
        const keys = schemaKeys(tool.inputSchema);
        for (const keyword of FORBIDDEN_SCHEMA_KEYWORDS) expect(keys.has(keyword), `${tool.name}: ${keyword}`).toBe(false);
      }
      expect(client.getInstructions()).toContain('a demo, not a measurement');
      const id = await demo.start({ scenario: 'F1' });
      const call = { session_id: id, tool: 'create_booking', arguments: { room: 12, date: '2026-11-03' } };
      const first = await demo.json('execute_call', call);
      expect(first).toMatchObject({ injectedFault: 'F1', executedUpstream: true });
      expect(first['whatTheAgentWouldSee']).toContain('Request timed out');
      expect(await demo.json('execute_call', call)).toMatchObject({ verdictSoFar: 'FAIL' });
      const score = await demo.text('get_score', { session_id: id });
      expect(score).toContain('[FAIL]');
      expect(score).toContain('GHOST_WRITE');
      expect(await demo.text('get_report', { session_id: id })).toContain('Verdict: FAIL');
      const file = JSON.parse(readFileSync(join(cwd, '.cuonztech', 'audit-report.json'), 'utf8')) as Json;
      expect(file).toMatchObject({ verdict: 'FAIL', certification: 'UNVERIFIED_FOR_PRODUCTION', report: { kind: 'demo' } });
      expect(file['patches']).toMatchObject([{ id: 'GHOST_WRITE' }]);
    });
  });

  it('R-12: the server exits with code 0 when the agent disconnects or on SIGTERM, and writes nothing but protocol to stdout', async () => {
    const raw = spawnRaw(BIN);
    raw.send(INITIALIZE);
    await raw.next((m) => m['id'] === INITIALIZE['id']);
    raw.child.stdin.end();
    expect(await waitForExit(raw.child, 5_000)).toEqual({ code: 0, signal: null });
    expect(raw.nonJsonLines).toEqual([]);
    const signalled = spawnRaw(BIN);
    signalled.send(INITIALIZE);
    await signalled.next((m) => m['id'] === INITIALIZE['id']);
    signalled.child.kill('SIGTERM');
    expect(await waitForExit(signalled.child, 5_000)).toEqual({ code: 0, signal: null });
  });
});
