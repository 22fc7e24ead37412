/**
 * 100,000-deep values, as a hostile JSON argument can nest them: no walk overflows the stack. The unit
 * tests prove the same at 20,000 levels (`STACK_DEEP`, already past a recursive walk's stack) in
 * `test/domain/judging/near-duplicate.test.ts`, `test/domain/judging/fuzz.property.test.ts`, `test/app/demo/demo-server.test.ts`
 * and `test/cli/commands-in-process.test.ts`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/domain/json.js';
import { isNotationVariant } from '../../src/domain/judging/near-duplicate.js';
import { deepArray, deepObject, deepOwnProto } from '../support/deep-values.js';
import { startCliRaw } from '../support/in-process-cli.js';

const LEVELS = 100_000;

describe('R-6: notation variants of 100,000-deep values', () => {
  it('R-6: 100,000-deep objects do not overflow the stack; deep levels match only when equal', () => {
    expect(isNotationVariant(deepObject(LEVELS, 1), deepObject(LEVELS, '1'))).toBe(false);
    const deep = deepObject(LEVELS, 1);
    expect(isNotationVariant({ x: 'A', deep }, { x: 'a', deep: deepObject(LEVELS, 1) })).toBe(true);
  });

  it('R-6: 100,000-deep arrays do not overflow the stack', () => {
    expect(isNotationVariant(deepArray(LEVELS, 1), deepArray(LEVELS, 2))).toBe(false);
    expect(isNotationVariant([deepArray(LEVELS, 1), 'A'], ['a', deepArray(LEVELS, 1)])).toBe(true);
  });
});

describe('R-13: the canonical text of 100,000-deep values', () => {
  it('R-13: 100,000-deep arrays and objects cost no stack', () => {
    expect(canonicalJson(deepArray(LEVELS, 1))).toHaveLength(2 * LEVELS + 1);
    expect(canonicalJson(deepOwnProto(LEVELS, 1))).toHaveLength(LEVELS * '{"__proto__":}'.length + 1);
  });
});

describe('R-13: the demo MCP server through main() in-process', () => {
  it('R-13: 100,000-deep arguments are executed without a crash', async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'harness-demo-'));
    const raw = startCliRaw([], { cwd: tmp });
    try {
      const call = (id: number, params: string) =>
        raw.send(`{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":${params}}`);
      const answer = async (id: number) =>
        (await raw.next((m) => m['id'] === id))['result'] as { isError?: boolean; content: Array<{ text: string }> };
      raw.send({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw-agent', version: '1.0.0' } },
      });
      await raw.next((m) => m['id'] === 0);
      raw.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      call(1, '{"name":"start_session","arguments":{}}');
      const id = (JSON.parse((await answer(1)).content[0]!.text) as Record<string, unknown>)['session_id'] as string;
      const deep = `${'{"d":'.repeat(LEVELS)}1${'}'.repeat(LEVELS)}`;
      call(2, `{"name":"execute_call","arguments":{"session_id":"${id}","tool":"create_deep","arguments":${deep}}}`);
      expect((await answer(2)).content[0]!.text).toContain('"executedUpstream": true');
      expect(raw.returned()).toBe(false);
      expect(raw.nonJsonLines).toEqual([]);
    } finally {
      raw.end();
      expect(await raw.exit).toBe(0);
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});
