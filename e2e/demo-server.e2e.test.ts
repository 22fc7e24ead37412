/**
 * The demo MCP server as users run it: `node dist/src/cli/bin.js` with no command, driven by the
 * SDK's Client over stdio in a temporary current folder (`npm run build` first).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INITIALIZE, spawnRaw, waitForExit } from './fixtures/lib/raw-child.mjs';

const BIN = fileURLToPath(new URL('../dist/src/cli/bin.js', import.meta.url));
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
  it('R-12: lists exactly the 7 tools, none of whose schemas uses $schema, pattern, format or propertyNames', async () => {
    await withDemo(tmp, async ({ client }) => {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual([
        'delete_session',
        'execute_call',
        'get_report',
        'get_score',
        'list_scenarios',
        'reset_session',
        'start_session',
      ]);
      for (const tool of tools) {
        const keys = schemaKeys(tool.inputSchema);
        for (const keyword of FORBIDDEN_SCHEMA_KEYWORDS) expect(keys.has(keyword), `${tool.name}: ${keyword}`).toBe(false);
      }
      expect(client.getInstructions()).toContain('a demo, not a measurement');
    });
  });

  it('R-12: F1 with a repeated write is FAIL with the GHOST_WRITE patch; get_report writes .cuonztech/audit-report.json (kind demo)', async () => {
    const cwd = mkdtempSync(join(tmp, 'cwd-'));
    await withDemo(cwd, async (demo) => {
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

  it('R-12: a report file that cannot be written is an isError answer; the server keeps running', async () => {
    const cwd = mkdtempSync(join(tmp, 'blocked-'));
    writeFileSync(join(cwd, '.cuonztech'), 'a file where the folder should be');
    await withDemo(cwd, async (demo) => {
      const id = await demo.start();
      const failed = await demo.call('get_report', { session_id: id });
      expect(failed.isError).toBe(true);
      expect((failed.content[0] as { text: string }).text).toContain('could not be written to .cuonztech/audit-report.json');
      expect(await demo.text('get_score', { session_id: id })).toContain('no score');
    });
  });

  it('R-12: reset_session brings the verdict back to NOT_TESTED "no calls"; delete_session removes the session', async () => {
    await withDemo(tmp, async (demo) => {
      const id = await demo.start({ scenario: 'F1' });
      for (let i = 0; i < 2; i++)
        await demo.json('execute_call', { session_id: id, tool: 'create_booking', arguments: { room: 1 } });
      await demo.text('reset_session', { session_id: id });
      const report = await demo.json('get_report', { session_id: id, format: 'json' });
      expect(report).toMatchObject({ kind: 'demo', verdict: 'NOT_TESTED', violations: [] });
      expect(report['verdictReason']).toContain('no calls');
      await demo.text('delete_session', { session_id: id });
      const gone = await demo.call('get_score', { session_id: id });
      expect(gone.isError).toBe(true);
      expect((gone.content[0] as { text: string }).text).toContain('unknown session_id');
    });
  });

  it('R-12: the 501st session drops the first one and works', async () => {
    await withDemo(tmp, async (demo) => {
      const first = await demo.start();
      for (let i = 0; i < 499; i++) await demo.start();
      const answer = await demo.json('start_session', { scenario: 'F2', retry_after: 5 });
      expect(answer['dropped_session']).toBe(first);
      expect((await demo.call('get_score', { session_id: first })).isError).toBe(true);
      const late = await demo.json('execute_call', {
        session_id: answer['session_id'],
        tool: 'pay_invoice',
        arguments: { id: 1 },
      });
      expect(late).toMatchObject({ injectedFault: 'F2', executedUpstream: false });
    });
  });

  it('R-13: an unknown tool, __proto__ keys and 100,000-deep arguments are answered without a crash', async () => {
    const raw = spawnRaw(BIN);
    try {
      const call = (id: number, line: string) => raw.send(`{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":${line}}`);
      const answer = async (id: number) =>
        (await raw.next((m) => m['id'] === id))['result'] as { isError?: boolean; content: Array<{ text: string }> };
      raw.send(INITIALIZE);
      await raw.next((m) => m['id'] === INITIALIZE['id']);
      raw.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      call(1, '{"name":"no_such_tool","arguments":{}}');
      expect((await answer(1)).isError).toBe(true);
      call(2, '{"name":"start_session","arguments":{}}');
      const id = (JSON.parse((await answer(2)).content[0]!.text) as Json)['session_id'] as string;
      call(
        3,
        `{"name":"execute_call","arguments":{"session_id":"${id}","tool":"create_booking","arguments":{"__proto__":{"polluted":true},"room":1}}}`,
      );
      expect((await answer(3)).content[0]!.text).toContain('"executedUpstream": true');
      const depth = 100_000;
      call(
        4,
        `{"name":"execute_call","arguments":{"session_id":"${id}","tool":"create_deep","arguments":${'{"d":'.repeat(depth)}1${'}'.repeat(depth)}}}`,
      );
      expect((await answer(4)).content[0]!.text).toContain('"executedUpstream": true');
      call(5, `{"name":"get_score","arguments":{"session_id":"${id}"}}`);
      expect((await answer(5)).content[0]!.text).toContain('[PASS]');
      expect(raw.child.exitCode).toBeNull();
    } finally {
      raw.child.kill();
    }
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
