/**
 * Agent-side faults (issue 6, issue 11): malformed JSON-RPC, unknown methods, ids a number cannot hold,
 * a message over 10 MB, a disconnect while calls are in flight, 500 concurrent calls with identical and
 * with different arguments (counts exact). The agent is raw JSON-RPC, so it can send what an SDK client
 * never would. After each: nothing lost (`e2e/faults/nothing-lost.ts`).
 *
 * Moved from e2e (issue 12): the proxy runs in-process (`main(argv, io)`, see `support/h2-cli-proxy.ts`)
 * with the raw lines on its stdin stream, in front of the real counting upstream process, whose ledger
 * is the evidence. What needs the compiled proxy as a process (real signals, a real pipe's EPIPE) stays
 * in `e2e/proxy-lifecycle.e2e.test.ts`.
 */
import { describe, expect, it, vi } from 'vitest';
import { executions } from '../e2e/fixtures/lib/ledger.mjs';
import { waitFor } from '../e2e/fixtures/lib/raw-child.mjs';
import type { RawMessage } from '../e2e/fixtures/lib/raw-child.mjs';
import { rawText } from '../e2e/support/raw-proxy.js';
import { callTool, COUNTING, messagesMatching, sendCall } from '../e2e/faults/fault-lab.js';
import { expectNothingLost, type ReportOperation } from '../e2e/faults/nothing-lost.js';
import { cliLab } from './support/h2-cli-proxy.js';

// Each test starts a real upstream process; a busy two-core machine needs more than the unit default.
vi.setConfig({ testTimeout: 60_000 });

const errorCode = (m: RawMessage): unknown => (m['error'] as { code?: unknown } | undefined)?.code;
const operations = (report: { report: { operations: unknown[] } }) => report.report.operations as ReportOperation[];
const ids = (from: number, count: number) => (m: RawMessage) =>
  typeof m['id'] === 'number' && m['id'] >= from && m['id'] < from + count;

describe.concurrent('malformed and unknown agent messages are answered; the session goes on', () => {
  it('R-8.5: 13 malformed lines get exactly one JSON-RPC error each (-32700, -32600, -32602); the next write counts once', async ({
    onTestFinished,
  }) => {
    const p = await cliLab(onTestFinished).start(COUNTING);
    const unparsable = [
      'not json at all',
      '{"jsonrpc":"2.0","id":5,"method":"tools/call",',
      '\ufeff{"jsonrpc":"2.0","id":6,"method":"ping"}',
    ];
    const invalidWithoutId = [
      '[{"jsonrpc":"2.0","id":11,"method":"ping"}]',
      '[]',
      'null',
      '42',
      '"text"',
      '{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}',
    ];
    const invalidWithId: Array<[string, number, number]> = [
      ['{"jsonrpc":"1.0","id":12,"method":"ping"}', 12, -32600],
      ['{"jsonrpc":"2.0","id":13,"method":"tools/call"}', 13, -32602],
      ['{"jsonrpc":"2.0","id":14,"method":"tools/call","params":[1,2]}', 14, -32600],
      ['{"jsonrpc":"2.0","id":15,"method":"tools/call","params":{"name":42}}', 15, -32602],
    ];
    for (const line of [...unparsable, ...invalidWithoutId, ...invalidWithId.map(([line]) => line)]) p.raw.send(line);
    const nullIds = await messagesMatching(p, (m) => m['id'] === null, unparsable.length + invalidWithoutId.length);
    expect(nullIds.map(errorCode).sort((a, b) => Number(a) - Number(b))).toEqual([
      ...Array(3).fill(-32700),
      ...Array(6).fill(-32600),
    ]);
    for (const [, id, code] of invalidWithId) {
      const answers = await messagesMatching(p, (m) => m['id'] === id, 1, 5000, 0);
      expect(answers.map(errorCode), `answers to id ${id}`).toEqual([code]);
    }
    expect(rawText(await callTool(p, 'create_order', { item: 'after' }))).toBe('ok create_order #1');
    p.raw.child.stdin.end();
    await expectNothingLost(p, { end: 0, exact: true });
    expect(p.ledger()).toHaveLength(1);
  });

  it('R-8.5: unknown methods (also __proto__, constructor, toString) get -32601; unknown notifications and stray responses are ignored; nothing is forwarded', async ({
    onTestFinished,
  }) => {
    const p = await cliLab(onTestFinished).start(COUNTING);
    const methods = [
      'resources/list',
      'prompts/get',
      'sampling/createMessage',
      'completion/complete',
      '__proto__',
      'constructor',
      'toString',
      'hasOwnProperty',
    ];
    methods.forEach((method, i) => p.raw.send({ jsonrpc: '2.0', id: 200 + i, method, params: {} }));
    p.raw.send({ jsonrpc: '2.0', method: 'notifications/unknown', params: {} });
    p.raw.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 999 } });
    p.raw.send({ jsonrpc: '2.0', id: 300, result: {} });
    p.raw.send({ jsonrpc: '2.0', id: 301, error: { code: 1, message: 'stray' } });
    const answers = await messagesMatching(p, ids(200, methods.length), methods.length);
    expect(answers.map(errorCode)).toEqual(Array(methods.length).fill(-32601));
    expect(await messagesMatching(p, (m) => m['id'] === 300 || m['id'] === 301, 1, 500, 0)).toEqual([]);
    expect(p.ledger()).toEqual([]);
    expect(rawText(await callTool(p, 'create_order', { item: 'after' }))).toBe('ok create_order #1');
    p.raw.child.stdin.end();
    await expectNothingLost(p, { end: 0, exact: true });
  });
});

describe.concurrent('the agent goes away', () => {
  it('R-8.8: a message over 10 MB while a write is in flight → report finished, exit 0, "10 MB" on stderr', async ({
    onTestFinished,
  }) => {
    const p = await cliLab(onTestFinished).start(COUNTING);
    expect(rawText(await callTool(p, 'create_order', { item: 'done' }))).toBe('ok create_order #1');
    sendCall(p, 50, 'create_order', { item: 'slow', sleepMs: 6000 });
    await waitFor(() => executions(p.ledger()).length === 2, 10_000, 'the slow write to execute');
    p.raw.send(
      `{"jsonrpc":"2.0","id":51,"method":"tools/call","params":{"name":"create_order","arguments":{"item":"${'x'.repeat(11 * 1024 * 1024)}"}}}`,
    );
    const report = await expectNothingLost(p, { end: 0, message: /message over the 10 MB limit/ });
    expect(operations(report).map((op) => op.outcome)).toEqual(['EXECUTED', 'EXECUTION_UNKNOWN']);
    expect(executions(p.ledger())).toHaveLength(2);
  });

  it('R-8.8: stdin EOF with 10 writes in flight → answers within ~2 s count, later ones EXECUTION_UNKNOWN; exit 0', async ({
    onTestFinished,
  }) => {
    const p = await cliLab(onTestFinished).start(COUNTING);
    for (let i = 0; i < 10; i++) sendCall(p, 10 + i, 'create_order', { item: `w-${i}`, sleepMs: i < 5 ? 300 : 8000 });
    await waitFor(() => executions(p.ledger()).length === 10, 10_000, '10 writes to execute');
    p.raw.child.stdin.end();
    const report = await expectNothingLost(p, { end: 0 });
    const outcomes = operations(report).map((op) => `${op.arguments.includes('"sleepMs":300') ? 'fast' : 'slow'} ${op.outcome}`);
    expect(outcomes.sort()).toEqual([...Array(5).fill('fast EXECUTED'), ...Array(5).fill('slow EXECUTION_UNKNOWN')]);
  });
});

describe.concurrent('500 concurrent calls: counts exact', () => {
  it('R-2.4: 500 parallel identical writes → executions 500 = ledger 500, one DUPLICATE_EXECUTION with parallel: true', async ({
    onTestFinished,
  }) => {
    const p = await cliLab(onTestFinished).start(COUNTING);
    for (let i = 0; i < 500; i++) sendCall(p, 1000 + i, 'create_order', { item: 'same', quantity: 1 });
    const answers = await messagesMatching(p, ids(1000, 500), 500, 45_000, 0);
    expect(answers.filter((m) => 'result' in m)).toHaveLength(500);
    p.raw.child.stdin.end();
    const report = await expectNothingLost(p, { end: 0, exact: true });
    expect(operations(report)).toEqual([
      expect.objectContaining({ attempts: 500, executions: 500, outcome: 'DUPLICATE_EXECUTION' }),
    ]);
    expect(report.report.violations).toEqual([
      expect.objectContaining({
        type: 'DUPLICATE_EXECUTION',
        tool: 'create_order',
        duplicate: expect.objectContaining({ parallel: true }),
      }),
    ]);
    expect(executions(p.ledger())).toHaveLength(500);
  });

  it('R-1.1: 500 parallel writes with different arguments → 500 operations, each executions 1, PASS', async ({
    onTestFinished,
  }) => {
    const p = await cliLab(onTestFinished).start(COUNTING);
    for (let i = 0; i < 500; i++) sendCall(p, 1000 + i, 'create_order', { item: `item-${i}` });
    const answers = await messagesMatching(p, ids(1000, 500), 500, 45_000, 0);
    expect(answers.filter((m) => 'result' in m)).toHaveLength(500);
    p.raw.child.stdin.end();
    const report = await expectNothingLost(p, { end: 0, exact: true });
    expect(operations(report)).toHaveLength(500);
    expect(operations(report).every((op) => op.executions === 1 && op.outcome === 'EXECUTED')).toBe(true);
    expect(report.verdict).toBe('PASS');
  });
});

describe('ids beyond what a number holds', () => {
  it('R-13: ids 12345678901234567890, 1e300, 1.5 and -2.5E-3 get -32600 with the id token as sent (raw lines on the proxy stdin); nothing is executed', async ({
    onTestFinished,
  }) => {
    const p = await cliLab(onTestFinished).start(COUNTING);
    let stdout = '';
    p.raw.child.stdout.on('data', (chunk: string) => (stdout += chunk));
    const tokens = ['12345678901234567890', '1e300', '1.5', '-2.5E-3'];
    for (const token of tokens) {
      p.raw.send(
        `{"jsonrpc":"2.0","id":${token},"method":"tools/call","params":{"name":"create_order","arguments":{"item":"x"}}}`,
      );
    }
    const expected = tokens.map((token) => `{"jsonrpc":"2.0","id":${token},"error":{"code":-32600,"message":"Invalid Request"}}`);
    await waitFor(() => expected.every((line) => stdout.split('\n').includes(line)), 10_000, 'four -32600 answers');
    expect(stdout).not.toContain('"id":null');
    expect(rawText(await callTool(p, 'create_order', { item: 'after' }))).toBe('ok create_order #1');
    p.raw.child.stdin.end();
    await expectNothingLost(p, { end: 0, exact: true });
    expect(p.ledger()).toHaveLength(1);
  });
});
