/**
 * The demo MCP server as `main([], io)` runs it — no command — in-process, driven by the
 * SDK's Client over the stdio framing (and by raw JSON-RPC lines) in a temporary current folder. The
 * real process (its exit codes, SIGTERM, stdout holding nothing but protocol) is
 * `e2e/demo-server.e2e.test.ts`.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCliRaw, startCliServer } from '../support/h4-in-process-cli.js';

type Json = Record<string, unknown>;
const INITIALIZE = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'h4-raw', version: '1.0.0' } },
};

let tmp = '';
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'h4-demo-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Starts the demo server in `cwd`, runs `body` with a connected client, and always closes it (exit 0). */
async function withDemo<T>(cwd: string, body: (demo: Demo) => Promise<T>): Promise<T> {
  const server = await startCliServer([], { cwd });
  try {
    return await body(new Demo(server.client));
  } finally {
    expect(await server.stop()).toBe(0);
  }
}

class Demo {
  constructor(readonly client: Awaited<ReturnType<typeof startCliServer>>['client']) {}

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

describe('demo MCP server through main() in-process', () => {
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
    const raw = startCliRaw([], { cwd: tmp });
    try {
      const call = (id: number, line: string) => raw.send(`{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":${line}}`);
      const answer = async (id: number) =>
        (await raw.next((m) => m['id'] === id))['result'] as { isError?: boolean; content: Array<{ text: string }> };
      raw.send(INITIALIZE);
      await raw.next((m) => m['id'] === INITIALIZE.id);
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
      expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
      const depth = 100_000;
      call(
        4,
        `{"name":"execute_call","arguments":{"session_id":"${id}","tool":"create_deep","arguments":${'{"d":'.repeat(depth)}1${'}'.repeat(depth)}}}`,
      );
      expect((await answer(4)).content[0]!.text).toContain('"executedUpstream": true');
      call(5, `{"name":"get_score","arguments":{"session_id":"${id}"}}`);
      expect((await answer(5)).content[0]!.text).toContain('[PASS]');
      expect(raw.returned()).toBe(false);
      expect(raw.nonJsonLines).toEqual([]);
    } finally {
      raw.end();
      expect(await raw.exit).toBe(0);
    }
  });
});
