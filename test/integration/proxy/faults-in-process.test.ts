/**
 * The adversarial suite, one
 * section per kind of fault; after each, nothing is lost (`e2e/faults/nothing-lost.ts`: exit code, clear
 * stderr, a complete report agreeing with the upstream's own ledger, no process or temp file left):
 * - the agent: malformed JSON-RPC, unknown methods, ids a number cannot hold, a message over 10 MB, a
 *   disconnect while calls are in flight, 500 concurrent identical and different writes (counts exact);
 * - hostile arguments a raw agent can send and an SDK client cannot: `__proto__` / `constructor` /
 *   `prototype` keys at every depth, hostile tool names, arguments that are not an object, 100,000-deep
 *   nesting, integers above 2^53, lone surrogates and invisible characters, invalid UTF-8 and 1 MB strings
 *   (the counting upstream echoes the raw params it received with FIXTURE_ECHO_RAW=1: byte for byte);
 * - the upstream: crashes before `initialize`, during `tools/list` or a write, a kill from outside,
 *   answers over 10 MB (stdio; HTTP with JSON and SSE answers), answers nested too deeply, garbage on
 *   stdout, exit 0 at once, SIGTERM ignored, children spawned; and the operator's terminal:
 *   ANSI/OSC, C1, bidi and zero-width characters in its stderr and tool names print escaped;
 * - the report file: unwritable mid-session, a full disk, a folder refusing new files, links (followed,
 *   planted at temp names, at its own name, in a world-writable folder), modes, devices, folders, FIFOs,
 *   sockets, /proc files.
 *
 * Moved from e2e: the proxy runs in-process (`main(argv, io)`, the composition root of the
 * compiled CLI; see `support/cli-proxy-child.ts`), driven with raw JSON-RPC lines on its stdin stream, in
 * front of REAL upstream processes that count what they execute in their own ledger, checked by pid. What
 * needs the proxy as a process stays in e2e: real signals, a real pipe's EPIPE, SIGKILL, a start-up
 * failure's exit and the wall-clock time-outs (`e2e/proxy-lifecycle.e2e.test.ts`), SIGKILL while writing,
 * two proxy processes on one report file and one refused target (also `e2e/proxy-lifecycle.e2e.test.ts`).
 */
import { describe, expect, it, vi } from 'vitest';
import { executions, readLedger } from '../../../e2e/fixtures/lib/ledger.mjs';
import { type RawChild, type RawMessage, waitFor, waitForExit } from '../../../e2e/fixtures/lib/raw-child.mjs';
import { rawText, resultOf } from '../../support/raw-proxy.js';
import {
  callTool,
  COUNTING,
  messagesMatching,
  nodeFixture,
  nodeWord,
  sendCall,
  sendRawCall,
  serveSession,
  shell,
} from '../../../e2e/faults/fault-lab.js';
import {
  evidenceOf,
  expectClearStderr,
  expectNothingLost,
  type ProxyEvidence,
  readReport,
  type ReportOperation,
  upstreamPids,
} from '../../../e2e/faults/nothing-lost.js';
import { cliLab } from '../../support/cli-proxy-child.js';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { removeDir, spawnNode, tempDir } from '../../support/http-harness.js';
import { FIXTURES } from '../../support/proxy-harness.js';
import { runCli as runMain } from '../../support/in-process-cli.js';
import { execFileSync } from 'node:child_process';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { skipUnlessTmpfs } from '../../support/tmpfs.js';

// Each test starts real upstream processes; some wait out a time-out or the 2 s drain window.
vi.setConfig({ testTimeout: 60_000 });

// --- agent-side faults
describe.concurrent('agent-side faults', () => {
  const errorCode = (m: RawMessage): unknown => (m['error'] as { code?: unknown } | undefined)?.code;
  const operations = (report: { report: { operations: unknown[] } }) => report.report.operations as ReportOperation[];
  const ids = (from: number, count: number) => (m: RawMessage) =>
    typeof m['id'] === 'number' && m['id'] >= from && m['id'] < from + count;

  describe.concurrent('malformed and unknown agent messages are answered; the session goes on', () => {
    it('R-8.5: 12 malformed lines get exactly one JSON-RPC error each (-32700, -32600, -32602), a batch one array; the next write counts once', async ({
      onTestFinished,
    }) => {
      const p = await cliLab(onTestFinished).start(COUNTING);
      const unparsable = [
        'not json at all',
        '{"jsonrpc":"2.0","id":5,"method":"tools/call",',
        '\ufeff{"jsonrpc":"2.0","id":6,"method":"ping"}',
      ];
      // A JSON-RPC batch (MCP 2025-03-26) is no error: it is answered as one array.
      const batch = '[{"jsonrpc":"2.0","id":11,"method":"ping"}]';
      const invalidWithoutId = ['[]', 'null', '42', '"text"', '{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}'];
      const invalidWithId: Array<[string, number, number]> = [
        ['{"jsonrpc":"1.0","id":12,"method":"ping"}', 12, -32600],
        ['{"jsonrpc":"2.0","id":13,"method":"tools/call"}', 13, -32602],
        ['{"jsonrpc":"2.0","id":14,"method":"tools/call","params":[1,2]}', 14, -32600],
        ['{"jsonrpc":"2.0","id":15,"method":"tools/call","params":{"name":42}}', 15, -32602],
      ];
      for (const line of [...unparsable, batch, ...invalidWithoutId, ...invalidWithId.map(([line]) => line)]) p.raw.send(line);
      const nullIds = await messagesMatching(p, (m) => m['id'] === null, unparsable.length + invalidWithoutId.length);
      expect(nullIds.map(errorCode).sort((a, b) => Number(a) - Number(b))).toEqual([
        ...Array(3).fill(-32700),
        ...Array(5).fill(-32600),
      ]);
      expect(await messagesMatching(p, (m) => Array.isArray(m), 1, 5000, 0)).toEqual([[{ jsonrpc: '2.0', id: 11, result: {} }]]);
      for (const [, id, code] of invalidWithId) {
        const answers = await messagesMatching(p, (m) => m['id'] === id, 1, 5000, 0);
        expect(answers.map(errorCode), `answers to id ${id}`).toEqual([code]);
      }
      expect(rawText(await callTool(p, 'create_order', { item: 'after' }))).toBe('ok create_order #1');
      p.raw.child.stdin.end();
      await expectNothingLost(p, { end: 0, exact: true });
      expect(p.ledger()).toHaveLength(1);
    });

    it('R-1.1: a JSON-RPC batch of two writes executes each once and answers both in one array, matched by id', async ({
      onTestFinished,
    }) => {
      const p = await cliLab(onTestFinished).start(COUNTING);
      const call = (id: number | string, item: string) => ({
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: { name: 'create_order', arguments: { item } },
      });
      p.raw.send(JSON.stringify([call(40, 'a'), call('40', 'b')]));
      const [batch] = await messagesMatching(p, (m) => Array.isArray(m), 1, 10_000, 0);
      const answers = batch as unknown as RawMessage[];
      expect(answers.map((m) => m['id']).sort()).toEqual([40, '40']);
      const byItem = p.ledger().map((entry) => (entry.arguments as { item: string }).item);
      expect(byItem.sort()).toEqual(['a', 'b']);
      p.raw.child.stdin.end();
      const report = await expectNothingLost(p, { end: 0, exact: true });
      expect(operations(report).map((op) => op.outcome)).toEqual(['EXECUTED', 'EXECUTED']);
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
      const outcomes = operations(report).map(
        (op) => `${op.arguments.includes('"sleepMs":300') ? 'fast' : 'slow'} ${op.outcome}`,
      );
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
      const expected = tokens.map(
        (token) => `{"jsonrpc":"2.0","id":${token},"error":{"code":-32600,"message":"Invalid Request"}}`,
      );
      await waitFor(() => expected.every((line) => stdout.split('\n').includes(line)), 10_000, 'four -32600 answers');
      expect(stdout).not.toContain('"id":null');
      expect(rawText(await callTool(p, 'create_order', { item: 'after' }))).toBe('ok create_order #1');
      p.raw.child.stdin.end();
      await expectNothingLost(p, { end: 0, exact: true });
      expect(p.ledger()).toHaveLength(1);
    });
  });
});

// --- hostile arguments
describe.concurrent('hostile arguments', () => {
  const ECHO = { env: { FIXTURE_ECHO_RAW: '1' } };
  const operations = (report: { report: { operations: unknown[] } }) => report.report.operations as ReportOperation[];
  const opWith = (report: { report: { operations: unknown[] } }, marker: string) =>
    operations(report).find((op) => op.arguments.includes(marker));

  /** JSON text with `__proto__`, `constructor` and `prototype` keys at every level down to `depth`. */
  function hostileLevel(depth: number): string {
    if (depth === 0) return '"leaf"';
    return (
      `{"__proto__":{"polluted":${depth},"isError":true},"constructor":{"prototype":{"polluted":${depth}}},` +
      `"prototype":{"isError":true},"list":[{"__proto__":{"isError":true}},"x"],"next":${hostileLevel(depth - 1)}}`
    );
  }

  describe.concurrent('prototype keys and hostile names', () => {
    it('R-13: __proto__, constructor and prototype keys at 30 depths reach the upstream byte for byte and pollute nothing', async ({
      onTestFinished,
    }) => {
      const p = await cliLab(onTestFinished).start(COUNTING, ECHO);
      const params =
        `{"name":"create_order","arguments":{"item":"hostile","__proto__":{"isError":true},"deep":${hostileLevel(30)}},` +
        '"_meta":{"__proto__":{"progressToken":1},"constructor":{"prototype":{"polluted":true}}}}';
      sendRawCall(p, 41, params);
      const echoed = resultOf(await p.response(41));
      expect(rawText(echoed)).toBe(params);
      expect(echoed['isError']).toBeUndefined();
      const [entry] = executions(p.ledger(), 'create_order');
      expect(Object.hasOwn(entry!.arguments as object, '__proto__')).toBe(true);
      // Polluted prototypes would make every later result look like `isError: true` to the judge.
      const plain = await callTool(p, 'create_order', { item: 'plain' });
      expect(plain['isError']).toBeUndefined();
      expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
      p.raw.child.stdin.end();
      const report = await expectNothingLost(p, { end: 0, exact: true });
      expect(opWith(report, '"item":"plain"')).toMatchObject({ executions: 1, outcome: 'EXECUTED' });
      // The preview is the canonical text (keys sorted), cut at 240 characters.
      expect(opWith(report, '{"__proto__":{"isError":true},"deep":{"__proto__":')).toMatchObject({
        executions: 1,
        outcome: 'EXECUTED',
      });
      expect(report.verdict).toBe('PASS');
    });

    it('R-8.3 / R-13: tools named __proto__, constructor, toString, hasOwnProperty, valueOf are forwarded as unclassified, never judged', async ({
      onTestFinished,
    }) => {
      const p = await cliLab(onTestFinished).start(COUNTING);
      const names = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'];
      for (const name of names) expect(rawText(await callTool(p, name, { x: 1 }))).toMatch(new RegExp(`Unknown tool: ${name}`));
      p.raw.child.stdin.end();
      const report = await expectNothingLost(p, { end: 0, exact: true });
      expect(report.report.coverage['calls']).toEqual({ read: 0, write: 0, unclassified: 5 });
      expect(report.report.coverage['unclassifiedTools']).toEqual([...names, 'sync_ledger'].sort());
      expect(report.report.operations).toEqual([]);
    });
  });

  describe.concurrent('arguments that are not an object', () => {
    it('R-1.1 / R-8.5: array, string and number arguments pass verbatim and are distinct operations; null, {} and none are one operation', async ({
      onTestFinished,
    }) => {
      const p = await cliLab(onTestFinished).start(COUNTING, ECHO);
      const params = [
        '{"name":"create_order","arguments":[1,2]}',
        '{"name":"create_order","arguments":"text"}',
        '{"name":"create_order","arguments":42}',
        '{"name":"create_order","arguments":null}',
        '{"name":"create_order","arguments":{}}',
        '{"name":"create_order"}',
      ];
      params.forEach((text, i) => sendRawCall(p, 20 + i, text));
      for (const [i, text] of params.entries()) expect(rawText(resultOf(await p.response(20 + i)))).toBe(text);
      p.raw.child.stdin.end();
      const report = await expectNothingLost(p, { end: 0, exact: true });
      expect(
        operations(report)
          .map((op) => `${op.arguments} ×${op.executions}`)
          .sort(),
      ).toEqual(['{"(arguments)":"text"} ×1', '{"(arguments)":42} ×1', '{"(arguments)":[1,2]} ×1', '{} ×3']);
    });
  });

  describe.concurrent('deep nesting', () => {
    for (const [shape, open, close] of [
      ['arrays', '[', ']'],
      ['objects', '{"a":', '}'],
    ] as const) {
      it(`R-13: 100,000-deep ${shape} → a clear isError answer, NOT forwarded (no ledger entry, NOT_EXECUTED); the next call works`, async ({
        onTestFinished,
      }) => {
        const p = await cliLab(onTestFinished).start(COUNTING);
        const depth = 100_000;
        const value =
          shape === 'arrays' ? `${open.repeat(depth)}${close.repeat(depth)}` : `${open.repeat(depth)}1${close.repeat(depth)}`;
        sendRawCall(p, 5, `{"name":"create_order","arguments":{"item":"deep","nested":${value}}}`);
        const refused = resultOf(await p.response(5, 20_000));
        expect(refused['isError']).toBe(true);
        expect(rawText(refused)).toMatch(
          /^The call was not forwarded to the upstream: the request could not be serialised .*nested too deeply/,
        );
        expect(rawText(await callTool(p, 'create_order', { item: 'next' }))).toBe('ok create_order #1');
        p.raw.child.stdin.end();
        const report = await expectNothingLost(p, { end: 0, exact: true });
        expect(opWith(report, 'deep')).toMatchObject({ attempts: 1, executions: 0, outcome: 'NOT_EXECUTED' });
        expect(opWith(report, 'deep')!.arguments.length).toBeLessThanOrEqual(240);
        expect(p.ledger().map((e) => (e.arguments as { item: string }).item)).toEqual(['next']);
      });
    }

    // Changed to pass: the audit tool answered a JSON-RPC internal error (-32603 "Maximum call stack size
    // exceeded") while describing the bad value.
    it('R-8.6 / R-13: the audit tool with a 100,000-deep format argument answers a clear isError result', async ({
      onTestFinished,
    }) => {
      const p = await cliLab(onTestFinished).start(COUNTING);
      sendRawCall(p, 4, `{"name":"cuonztech__get_report","arguments":{"format":${'['.repeat(100_000)}${']'.repeat(100_000)}}}`);
      const answer = resultOf(await p.response(4, 20_000));
      expect(answer['isError']).toBe(true);
      expect(rawText(answer)).toMatch(/^format must be "text" or "json", got \[\[\[.{0,80}$/);
      p.raw.child.stdin.end();
      await expectNothingLost(p, { end: 0, exact: true });
    });

    it('R-13: 1,000-deep arguments can be serialised, so they are forwarded and reach the upstream byte for byte', async ({
      onTestFinished,
    }) => {
      const p = await cliLab(onTestFinished).start(COUNTING, ECHO);
      const params = `{"name":"create_order","arguments":{"item":"deep-1000","nested":${'{"a":'.repeat(1000)}1${'}'.repeat(1000)}}}`;
      sendRawCall(p, 6, params);
      expect(rawText(resultOf(await p.response(6)))).toBe(params);
      p.raw.child.stdin.end();
      await expectNothingLost(p, { end: 0, exact: true });
    });
  });

  describe.concurrent('numbers and characters JSON cannot carry unchanged', () => {
    // Documented limit: JSON numbers become doubles when parsed, so an integer above 2^53 reaches the
    // upstream rounded to the nearest double, and a number beyond the double range becomes null.
    it('R-13: 9007199254740993 reaches the upstream as 9007199254740992 and 1e400 as null (documented); the call works', async ({
      onTestFinished,
    }) => {
      const p = await cliLab(onTestFinished).start(COUNTING, ECHO);
      sendRawCall(p, 7, '{"name":"create_order","arguments":{"item":"big","amount":9007199254740993,"huge":1e400}}');
      expect(rawText(resultOf(await p.response(7)))).toBe(
        '{"name":"create_order","arguments":{"item":"big","amount":9007199254740992,"huge":null}}',
      );
      p.raw.child.stdin.end();
      const report = await expectNothingLost(p, { end: 0, exact: true });
      expect(opWith(report, 'big')!.arguments).toBe('{"amount":9007199254740992,"huge":null,"item":"big"}');
    });

    it('R-13: lone surrogates, zero-width, bidi, BOM, NUL and line-separator characters in values, keys and a tool name pass; the report stays valid JSON and UTF-8', async ({
      onTestFinished,
    }) => {
      const p = await cliLab(onTestFinished).start(COUNTING, ECHO);
      const odd = [
        '\ud800',
        '\udfff',
        'a\u200bb',
        '\u2028\u2029',
        '\ufeff',
        '\u202eevil',
        'nul\u0000',
        'soft\u00adhyphen',
        '😀'.slice(0, 1),
      ];
      const args = { item: 'chars', values: odd, ...Object.fromEntries(odd.map((s, i) => [`k${i}${s}`, s])) };
      const params = JSON.stringify({ name: 'create_order', arguments: args });
      sendRawCall(p, 8, params);
      expect(rawText(resultOf(await p.response(8)))).toBe(params);
      expect(rawText(await callTool(p, '\ud800tool\u200b', {}))).toMatch(/Unknown tool/);
      p.raw.child.stdin.end();
      const report = await expectNothingLost(p, { end: 0, exact: true });
      expect(() => new TextDecoder('utf-8', { fatal: true }).decode(readFileSync(p.reportFile))).not.toThrow();
      expect(report.report.coverage['unclassifiedTools']).toEqual(['sync_ledger', '\ud800tool\u200b']);
      expect(executions(p.ledger())[0]!.arguments).toEqual(args);
    });

    it('R-13: invalid UTF-8 bytes on the wire become U+FFFD; the call is forwarded and counted', async ({ onTestFinished }) => {
      const p = await cliLab(onTestFinished).start(COUNTING);
      const line = Buffer.concat([
        Buffer.from('{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"create_order","arguments":{"item":"bad'),
        Buffer.from([0xff, 0xc3]),
        Buffer.from('"}}}\n'),
      ]);
      p.raw.child.stdin.write(line);
      expect(rawText(resultOf(await p.response(9)))).toBe('ok create_order #1');
      p.raw.child.stdin.end();
      await expectNothingLost(p, { end: 0, exact: true });
      expect((executions(p.ledger())[0]!.arguments as { item: string }).item).toBe('bad\ufffd\ufffd');
    });
  });

  describe.concurrent('1 MB strings', () => {
    it("R-13: five writes with a 1 MB value and a 1 MB key pass whole; the report's argument previews stay short and the file small", async ({
      onTestFinished,
    }) => {
      const p = await cliLab(onTestFinished).start(COUNTING);
      const megabyte = 'x'.repeat(1024 * 1024);
      for (let i = 0; i < 5; i++) {
        expect(rawText(await callTool(p, 'create_order', { item: `${i}${megabyte}`, [`${i}${megabyte}`]: i }, 30_000))).toBe(
          `ok create_order #${i + 1}`,
        );
      }
      p.raw.child.stdin.end();
      const report = await expectNothingLost(p, { end: 0, exact: true });
      expect(operations(report)).toHaveLength(5);
      expect(operations(report).every((op) => op.arguments.length <= 240)).toBe(true);
      expect(statSync(p.reportFile).size).toBeLessThan(64 * 1024);
      expect(executions(p.ledger()).map((e) => (e.arguments as { item: string }).item.length)).toEqual(
        Array(5).fill(megabyte.length + 1),
      );
    });

    it('R-6 / R-13: after a ghost write of a 1 MB value, the same value in upper case is found as a near-duplicate (NOT_TESTED), in bounded time', async ({
      onTestFinished,
    }) => {
      const p = await cliLab(onTestFinished).start([...COUNTING, '--scenario', 'F1']);
      const megabyte = 'x'.repeat(1024 * 1024);
      expect(rawText(await callTool(p, 'create_order', { item: megabyte }, 30_000))).toMatch(/timed out/i);
      expect(rawText(await callTool(p, 'create_order', { item: megabyte.toUpperCase() }, 30_000))).toBe('ok create_order #2');
      p.raw.child.stdin.end();
      const report = await expectNothingLost(p, { end: 0, exact: true });
      expect(report.verdict).toBe('NOT_TESTED');
      expect(report.report.observations).toContainEqual(
        expect.objectContaining({ type: 'POSSIBLE_DUPLICATE_DIFFERENT_ARGUMENTS', tool: 'create_order' }),
      );
    });
  });
});

// --- upstream faults and the operator's terminal
describe.concurrent("upstream faults and the operator's terminal", () => {
  /** The report entry of the operation whose argument preview contains `marker`. */
  const opWith = (report: { report: { operations: unknown[] } }, marker: string) =>
    (report.report.operations as Array<{ arguments: string; executions: number; attempts: number; outcome: string }>).find((op) =>
      op.arguments.includes(marker),
    );

  /**
   * The counting upstream over Streamable HTTP (`e2e/fixtures/counting-http-server.mjs`), its ledger in a
   * folder of its own; killed (if still running) and removed when the test finishes.
   */
  async function countingHttp(onTestFinished: (fn: () => Promise<void>) => void, env: Record<string, string>) {
    const dir = tempDir('harness-http-upstream-');
    const ledgerFile = join(dir, 'ledger.jsonl');
    const proc = spawnNode([join(FIXTURES, 'counting-http-server.mjs')], { FIXTURE_LEDGER: ledgerFile, ...env });
    onTestFinished(async () => {
      await proc.stop('SIGKILL', 5_000).catch(() => undefined);
      removeDir(dir);
    });
    const [, url] = await proc.waitForOutput(/listening on (http:\/\/\S+\/mcp)/, 10_000, 'the HTTP upstream banner');
    return { proc, url: url!, ledgerFile };
  }

  describe.concurrent('upstream does not start: exit 1, one clear line, a start-up report, no process left', () => {
    // Changed to pass: the line used to say only "closed its stdout before answering", without the exit
    // status and the upstream's own reason that a crash during initialize shows.
    it("R-8.9: crash during tools/list → exit 1, the line names the exit code and the upstream's last stderr line", async ({
      onTestFinished,
    }) => {
      const p = cliLab(onTestFinished).launch(nodeFixture('crash-on-list.mjs'));
      const report = await expectNothingLost(p, {
        end: 1,
        report: 'startup-error',
        message:
          /error: upstream did not start: upstream tools\/list failed: .*\(exit code 3\): crash-on-list: tool catalogue is corrupt/,
      });
      expect(report.startupError).toMatch(/tools\/list failed.*exit code 3/);
      expect(upstreamPids(p)).toHaveLength(1);
    });

    // Changed to pass: an upstream that died before the proxy wrote `initialize` was reported as
    // "upstream MCP handshake failed: write EPIPE" (15 times out of 16 on a busy machine), its reason lost.
    it('R-8.9: 8 upstreams crashing at once before initialize (exit 1 with a reason): every line names the exit code and the reason, never "write EPIPE"; no process left', async ({
      onTestFinished,
    }) => {
      const lab = cliLab(onTestFinished);
      const runs = Array.from({ length: 8 }, () =>
        lab.launch(shell(`echo $$ > "$FIXTURE_PIDFILE"; exec ${nodeWord('crash-before-init.mjs')}`)),
      );
      for (const p of runs) {
        await expectNothingLost(p, {
          end: 1,
          report: 'startup-error',
          message:
            /^\[cuonztech-agent-harness\] error: upstream did not start: upstream exited before the MCP handshake \(exit code 1\): crash-before-init: cannot open database/m,
        });
        expect(upstreamPids(p)).toHaveLength(1);
      }
    });

    it('R-8.9: an upstream that exits 0 at once → exit 1, one line: "exited before the MCP handshake (exit code 0)"', async ({
      onTestFinished,
    }) => {
      const p = cliLab(onTestFinished).launch(shell(`echo $$ > "$FIXTURE_PIDFILE"; exec ${nodeWord('exits-at-once.mjs')}`));
      await expectNothingLost(p, {
        end: 1,
        report: 'startup-error',
        message: /upstream did not start: upstream exited before the MCP handshake \(exit code 0\)/,
      });
      expect(p.raw.stderr().trim().split('\n'), 'exactly one line').toHaveLength(1);
    });
  });

  describe.concurrent('upstream crashes while serving: the proxy keeps serving, then ends cleanly', () => {
    it('R-8.7: a crash during a write with 3 more writes in flight → all 4 EXECUTION_UNKNOWN, later calls UPSTREAM_UNAVAILABLE and not forwarded', async ({
      onTestFinished,
    }) => {
      const p = await cliLab(onTestFinished).start(COUNTING);
      for (let i = 1; i <= 3; i++) sendCall(p, 100 + i, 'create_order', { item: `slow-${i}`, sleepMs: 10_000 });
      await waitFor(() => executions(p.ledger()).length === 3, 10_000, '3 slow writes to execute');
      const crashed = await callTool(p, 'create_order', { item: 'boom', crash: true });
      expect(crashed['isError']).toBe(true);
      const slow = await messagesMatching(p, (m) => typeof m['id'] === 'number' && m['id'] > 100 && m['id'] < 104, 3);
      expect(slow.map((m) => (m['result'] as Record<string, unknown>)['isError'])).toEqual([true, true, true]);
      const later = await callTool(p, 'create_order', { item: 'later' });
      expect(rawText(later)).toMatch(/UPSTREAM_UNAVAILABLE/);
      expect(rawText(await callTool(p, 'cuonztech__get_score'))).toMatch(/\d|NOT_TESTED/);
      await waitFor(() => p.raw.stderr().includes('upstream crashed'), 10_000, 'the crash notice');
      const running = await expectNothingLost(p, {
        end: 'running',
        message: /upstream crashed \(exit code 3\); later calls get UPSTREAM_UNAVAILABLE/,
      });
      expect(opWith(running, 'later')).toMatchObject({ executions: 0, outcome: 'NOT_EXECUTED' });
      p.raw.child.stdin.end();
      const report = await expectNothingLost(p, { end: 0 });
      for (const marker of ['slow-1', 'slow-2', 'slow-3', 'boom'])
        expect(opWith(report, marker)).toMatchObject({ executions: 0, outcome: 'EXECUTION_UNKNOWN' });
      expect(executions(p.ledger())).toHaveLength(4);
    });

    it('R-8.7: the upstream killed from outside (SIGKILL) while idle → "killed by SIGKILL", the next write is not forwarded', async ({
      onTestFinished,
    }) => {
      const lab = cliLab(onTestFinished);
      const p = await lab.start(COUNTING);
      expect(rawText(await callTool(p, 'create_order', { item: 'first' }))).toBe('ok create_order #1');
      const [pid] = upstreamPids(p);
      lab.watch([pid!]);
      process.kill(pid!, 'SIGKILL');
      await waitFor(() => p.raw.stderr().includes('upstream crashed'), 10_000, 'the crash notice');
      expect(rawText(await callTool(p, 'create_order', { item: 'second' }))).toMatch(/UPSTREAM_UNAVAILABLE/);
      p.raw.child.stdin.end();
      const report = await expectNothingLost(p, { end: 0, exact: true, message: /upstream crashed \(killed by SIGKILL\)/ });
      expect(opWith(report, 'first')).toMatchObject({ executions: 1, outcome: 'EXECUTED' });
      expect(opWith(report, 'second')).toMatchObject({ executions: 0, outcome: 'NOT_EXECUTED' });
    });

    // Changed to pass: stderr used to say "upstream crashed (exit code 0)" although the upstream did not
    // crash: the proxy itself closed it after the oversized answer.
    it('R-8.7: an answer over 10 MB → isError "too large", EXECUTION_UNKNOWN; stderr says the proxy closed the upstream; later calls UPSTREAM_UNAVAILABLE', async ({
      onTestFinished,
    }) => {
      const p = await cliLab(onTestFinished).start(COUNTING);
      const huge = await callTool(p, 'create_order', { item: 'huge', hugeAnswerBytes: 11 * 1024 * 1024 }, 30_000);
      expect(huge['isError']).toBe(true);
      expect(rawText(huge)).toMatch(/too large \(over 10 MB\)/);
      expect(rawText(await callTool(p, 'get_order', { order_id: 'o-1' }))).toMatch(/UPSTREAM_UNAVAILABLE/);
      await waitFor(() => p.raw.stderr().includes('the proxy closed the upstream'), 10_000, 'the notice');
      p.raw.child.stdin.end();
      const report = await expectNothingLost(p, {
        end: 0,
        message: /the proxy closed the upstream: the upstream sent a message over 10485760 bytes/,
      });
      expect(p.raw.stderr()).not.toMatch(/upstream crashed/);
      expect(opWith(report, 'huge')).toMatchObject({ executions: 0, outcome: 'EXECUTION_UNKNOWN' });
      expect(executions(p.ledger(), 'create_order')).toHaveLength(1);
    });

    for (const answers of ['json', 'sse'] as const) {
      it(`R-8.7: over HTTP (--upstream-url, ${answers === 'json' ? 'JSON answer' : 'SSE answer'}) an answer over 10 MB → the same: isError "too large", EXECUTION_UNKNOWN, "the proxy closed the upstream", later calls UPSTREAM_UNAVAILABLE, the upstream session ended`, async ({
        onTestFinished,
      }) => {
        const upstream = await countingHttp(onTestFinished, { FIXTURE_HTTP_ANSWERS: answers });
        const p = await cliLab(onTestFinished).start(['--upstream-url', upstream.url]);
        const huge = await callTool(p, 'create_order', { item: 'huge', hugeAnswerBytes: 11 * 1024 * 1024 }, 30_000);
        expect(huge['isError']).toBe(true);
        expect(rawText(huge)).toMatch(/too large \(over 10 MB\): the upstream sent a message over 10485760 bytes/);
        expect(rawText(await callTool(p, 'get_order', { order_id: 'o-1' }))).toMatch(/UPSTREAM_UNAVAILABLE/);
        await waitFor(() => p.raw.stderr().includes('the proxy closed the upstream'), 10_000, 'the notice');
        p.raw.child.stdin.end();
        expect(await waitForExit(p.raw.child, 20_000)).toEqual({ code: 0, signal: null });
        // Nothing left: the proxy ended the upstream's session; the upstream itself is not the proxy's to stop.
        expect(upstream.proc.stderr()).toMatch(/counting-http-server: session \S+ ended/);
        expect(await upstream.proc.stop('SIGTERM')).toEqual({ code: 0, signal: null });
        const report = await expectNothingLost(
          { ...evidenceOf(p), ledgerFile: upstream.ledgerFile },
          {
            end: 0,
            message: /the proxy closed the upstream: the upstream sent a message over 10485760 bytes/,
          },
        );
        expect(p.raw.stderr()).not.toMatch(/upstream crashed/);
        expect(opWith(report, 'huge')).toMatchObject({ executions: 0, outcome: 'EXECUTION_UNKNOWN' });
        expect(executions(readLedger(upstream.ledgerFile), 'create_order')).toHaveLength(1);
        expect(executions(readLedger(upstream.ledgerFile), 'get_order')).toHaveLength(0);
      });
    }

    // Changed to pass: an agent that left before the upstream's exit was recorded (here: at once, while the
    // upstream still writes its 11 MB) suppressed the notice altogether.
    it('R-8.7: the agent leaving right after the oversized answer does not hide the notice', async ({ onTestFinished }) => {
      const p = await cliLab(onTestFinished).start(COUNTING);
      expect(rawText(await callTool(p, 'create_order', { item: 'huge', hugeAnswerBytes: 11 * 1024 * 1024 }, 30_000))).toMatch(
        /too large/,
      );
      p.raw.child.stdin.end();
      await expectNothingLost(p, {
        end: 0,
        message: /the proxy closed the upstream: the upstream sent a message over 10485760 bytes/,
      });
    });
  });

  describe.concurrent('answers nested too deeply to pass on (100,000 levels)', () => {
    // Changed to pass: such an answer used to be lost — serialising it for the agent failed, so the agent
    // waited for ever while the report said the call was EXECUTED.
    it('R-8.5 / R-13: a tools/call answer nested 100,000 deep → a clear isError answer, EXECUTION_UNKNOWN; the next call is answered too', async ({
      onTestFinished,
    }) => {
      const p = await cliLab(onTestFinished).start(nodeFixture('deep-answer.mjs'));
      for (const item of ['first', 'second']) {
        const result = await callTool(p, 'create_order', { item });
        expect(result['isError']).toBe(true);
        expect(rawText(result)).toBe(
          'The server sent an answer nested more than 1000 levels deep; it cannot be passed on. The call may have been executed.',
        );
      }
      p.raw.child.stdin.end();
      const report = await expectNothingLost(p, { end: 0 });
      expect(report.report.operations.map((op) => op.outcome)).toEqual(['EXECUTION_UNKNOWN', 'EXECUTION_UNKNOWN']);
      expect(executions(p.ledger())).toHaveLength(2);
    });

    // Changed to pass: tools/list used to stay unanswered for ever.
    it('R-8.5: a tool whose inputSchema is nested 100,000 deep → tools/list is answered with a -32603 error instead of never; calls still work', async ({
      onTestFinished,
    }) => {
      const p = await cliLab(onTestFinished).start(nodeFixture('deep-answer.mjs'), { env: { FIXTURE_DEEP_SCHEMA: '1' } });
      expect(await p.request('tools/list', {})).toMatchObject({
        error: { code: -32603, message: expect.stringMatching(/could not be serialised.*nested too deeply/) },
      });
      expect(rawText(await callTool(p, 'get_order', { order_id: 'o-1' }))).toMatch(/nested more than 1000 levels deep/);
      p.raw.child.stdin.end();
      await expectNothingLost(p, { end: 0 });
    });
  });

  describe.concurrent('misbehaving upstream processes', () => {
    it('R-8.5: garbage lines on the upstream stdout are skipped: 20 writes, 20 answers, counts exact', async ({
      onTestFinished,
    }) => {
      const p = await cliLab(onTestFinished).start(nodeFixture('garbage-stdout.mjs'));
      for (let i = 1; i <= 20; i++) sendCall(p, i, 'create_order', { item: `item-${i}` });
      const answers = await messagesMatching(p, (m) => typeof m['id'] === 'number' && m['id'] >= 1 && m['id'] <= 20, 20);
      expect(answers.map((m) => rawText(m['result'] as Record<string, unknown>)).sort()).toEqual(
        Array.from({ length: 20 }, (_, i) => `ok create_order #${i + 1}`).sort(),
      );
      p.raw.child.stdin.end();
      const report = await expectNothingLost(p, { end: 0, exact: true });
      expect(report.report.operations).toHaveLength(20);
    });

    it('R-8.8: sh -c "node ignores-sigterm.mjs; true": the server that ignores SIGTERM and stdin EOF is killed (SIGKILL to its group) after the agent leaves; exit 0', async ({
      onTestFinished,
    }) => {
      const p = await cliLab(onTestFinished).start(shell(`${nodeWord('ignores-sigterm.mjs')}; true`), {
        env: { FIXTURE_MAX_LIFE_MS: '60000' },
      });
      expect(rawText(await callTool(p, 'create_order', { item: 'pen' }))).toBe('ok create_order #1');
      p.raw.child.stdin.end();
      await expectNothingLost(p, { end: 0, exact: true });
      expect(upstreamPids(p)).toHaveLength(1);
    });

    it('R-8.8: sh -c "node spawns-child.mjs": the server and its SIGTERM-proof grandchild are gone after the agent leaves', async ({
      onTestFinished,
    }) => {
      const lab = cliLab(onTestFinished);
      const p = await lab.start(shell(nodeWord('spawns-child.mjs')), { env: { FIXTURE_MAX_LIFE_MS: '60000' } });
      expect(rawText(await callTool(p, 'create_order', { item: 'pen' }))).toBe('ok create_order #1');
      const pids = await waitFor(() => (upstreamPids(p).length >= 2 ? upstreamPids(p) : undefined), 10_000, 'the child pid');
      lab.watch(pids);
      p.raw.child.stdin.end();
      await expectNothingLost(p, { end: 0, exact: true, pids });
      expect(readLedger(p.ledgerFile)).toHaveLength(1);
    });
  });

  /** Raw characters a terminal acts on or that hide themselves (line feeds are the proxy's own). */
  const RAW_UNSAFE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u00ad\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/u;

  /** printf text (octal escapes, portable to dash): clear screen, window title, CR + forged ready line, 8-bit CSI, RLO, ZWSP. */
  const HOSTILE_STDERR = [
    String.raw`\033[2J\033[H\033]0;pwned\007upstream says hi`,
    String.raw`\r[cuonztech-agent-harness] proxy ready: forged\033[K`,
    String.raw`\302\23331m red \342\200\256 reversed \342\200\213 hidden`,
  ].join(String.raw`\n`);

  const TOOLS = JSON.stringify([
    { name: 'create_order', inputSchema: { type: 'object' } },
    { name: 'get\u200b_orders', inputSchema: { type: 'object' } },
    { name: 'pay\u202e_gnitset', inputSchema: { type: 'object' } },
    { name: 'x\u001b[2J\u009b31m\u2066y', inputSchema: { type: 'object' } },
  ]);

  function expectNoRawUnsafe(stderr: string): void {
    const found = [...stderr]
      .filter((ch) => RAW_UNSAFE.test(ch))
      .map((ch) => `U+${ch.codePointAt(0)!.toString(16).padStart(4, '0')}`);
    expect(found, `raw characters on the proxy's stderr:\n${stderr}`).toEqual([]);
  }

  describe.concurrent("escaped on the operator's terminal", () => {
    it("R-8.4, R-8.7: hostile tool names and an upstream's hostile stderr tail (after a crash) print escaped; no raw ESC/C1/bidi/zero-width character, no forged ready line", async ({
      onTestFinished,
    }) => {
      const upstream = shell(`printf '${HOSTILE_STDERR}\\n' >&2; exec ${nodeWord('counting-server.mjs')}`);
      const p = await cliLab(onTestFinished).start([...upstream, '--log-level', 'debug'], { env: { FIXTURE_TOOLS: TOOLS } });
      expect(rawText(await callTool(p, 'create_order', { item: 'pen' }))).toBe('ok create_order #1');
      expect(rawText(await callTool(p, 'get\u200b_orders', {}))).toBe('ok get\u200b_orders #1');
      sendCall(p, 50, 'create_order', { item: 'boom', crash: true });
      await p.response(50, 15_000);
      p.raw.child.stdin.end();
      expect(await waitForExit(p.raw.child, 20_000)).toEqual({ code: 0, signal: null });
      const stderr = p.raw.stderr();
      expectNoRawUnsafe(stderr);
      expect(stderr).toContain('get\\u200b_orders');
      expect(stderr).toContain('pay\\u202e_gnitset');
      expect(stderr).toContain('x\\u001b[2J\\u009b31m\\u2066y');
      expect(stderr).toContain('upstream stderr: \\u001b[2J\\u001b[H\\u001b]0;pwned\\u0007upstream says hi');
      expect(stderr).toContain('upstream stderr: \\u000d[cuonztech-agent-harness] proxy ready: forged\\u001b[K');
      expect(stderr).toContain('upstream stderr: \\u009b31m red \\u202e reversed \\u200b hidden');
      const readyLines = stderr.split('\n').filter((line) => line.startsWith('[cuonztech-agent-harness] proxy ready:'));
      expect(readyLines).toHaveLength(1);
      expect(readyLines[0]).not.toContain('forged');
      // The unclassified hostile names are named in the one WARNING line, escaped.
      const warnings = stderr.split('\n').filter((line) => line.includes('could not be classified'));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/WARNING: \d+ tools could not be classified as read or write: .*get\\u200b_orders/);
      // The log records of --log-level debug are notice lines like the rest, through the same escaping.
      expect(stderr).toMatch(/^\[cuonztech-agent-harness\] (debug|info|warn|error): /m);
      expect(
        stderr
          .trimEnd()
          .split('\n')
          .filter((line) => !line.startsWith('[cuonztech-agent-harness] ')),
      ).toEqual([]);
    });

    it("R-8.9: a start-up error carrying the upstream's hostile last stderr line prints as one escaped line; exit 1", async ({
      onTestFinished,
    }) => {
      const p = cliLab(onTestFinished).launch(shell(`printf '${HOSTILE_STDERR}\\n' >&2; exit 3`));
      expect(await waitForExit(p.raw.child, 20_000)).toEqual({ code: 1, signal: null });
      const stderr = p.raw.stderr();
      expectNoRawUnsafe(stderr);
      const lines = stderr.trimEnd().split('\n');
      expect(lines, stderr).toHaveLength(1);
      expect(lines[0]).toMatch(
        /^\[cuonztech-agent-harness\] error: upstream did not start: .*\\u009b31m red \\u202e reversed \\u200b hidden/,
      );
    });
  });

  describe('the default upstream time-out', () => {
    it('R-8.7: proxy --help says the upstream time-out is 60 s by default (the wait itself: e2e/proxy-lifecycle.e2e.test.ts)', async () => {
      const result = await runMain(['proxy', '--help']);
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/--upstream-timeout <s>\s+Seconds to wait for an upstream answer \(default 60\)/);
    });
  });
});

// --- report-file faults
describe.concurrent('report-file faults', () => {
  const isRoot = process.getuid?.() === 0;

  /** Makes a folder and a file in it unwritable (root: immutable flag; others: permissions); answers the undo. */
  function makeUnwritable(folder: string, file: string): () => void {
    if (isRoot) {
      execFileSync('chattr', ['+i', file, folder]);
      return () => execFileSync('chattr', ['-i', file, folder]);
    }
    execFileSync('chmod', ['0444', file]);
    execFileSync('chmod', ['0555', folder]);
    return () => execFileSync('chmod', ['0755', folder]);
  }

  /** Whether {@link makeUnwritable} works here (root needs `chattr` on a file system with the flag). */
  function canMakeUnwritable(): boolean {
    if (!isRoot) return true;
    const probe = mkdtempSync(join(tmpdir(), 'harness-chattr-'));
    try {
      writeFileSync(join(probe, 'f'), '');
      makeUnwritable(probe, join(probe, 'f'))();
      return true;
    } catch {
      return false;
    } finally {
      rmSync(probe, { recursive: true, force: true });
    }
  }

  /**
   * The in-process proxy with any `--report-file`, a pidfile-writing wrapper as its upstream and its own
   * ledger; ended when the test finishes.
   */
  function inProcessWithReportFile(
    onTestFinished: (fn: () => Promise<void>) => void,
    reportFile: string,
    flags: string[] = [],
  ): ProxyEvidence & { raw: RawChild } {
    const p = cliLab(onTestFinished).launch(
      [...shell(`echo $$ > "$FIXTURE_PIDFILE"; exec ${nodeWord('counting-server.mjs')}`), ...flags],
      { reportFile },
    );
    return {
      raw: p.raw,
      child: p.raw.child,
      stderr: () => p.raw.stderr(),
      reportFile,
      ledgerFile: p.ledgerFile,
      pidFile: p.pidFile,
    };
  }

  describe.concurrent('the report file fails during the session', () => {
    it.skipIf(!canMakeUnwritable())(
      'R-9.3: the folder and file become unwritable mid-session → exit 1, the call is not answered, the file never says finished',
      async ({ onTestFinished }) => {
        const p = await cliLab(onTestFinished).start(COUNTING);
        expect(rawText(await callTool(p, 'create_order', { item: 'pen' }))).toBe('ok create_order #1');
        const undo = makeUnwritable(p.dir, p.reportFile);
        try {
          sendCall(p, 77, 'create_order', { item: 'book' });
          await expectNothingLost(p, {
            end: 1,
            report: 'stale',
            message:
              /error: the report file could not be written: report file not writable: .*Exiting without answering the agent/,
          });
          await expect(p.response(77, 300)).rejects.toThrow(/timed out/);
          // The write before forwarding failed, so the second call never reached the upstream.
          expect(executions(p.ledger())).toHaveLength(1);
        } finally {
          undo();
        }
      },
    );
  });

  /** Makes a folder refuse new files and renames, its files staying writable (root: immutable flag; others: 0555). */
  function refuseNewFiles(folder: string): () => void {
    if (isRoot) {
      execFileSync('chattr', ['+i', folder]);
      return () => execFileSync('chattr', ['-i', folder]);
    }
    execFileSync('chmod', ['0555', folder]);
    return () => execFileSync('chmod', ['0755', folder]);
  }

  describe.concurrent('a full disk and a folder that refuses new files', () => {
    it('R-9.3: the disk fills up mid-session (a 64 KiB tmpfs; skipped unless root may mount one) → exit 1, one line naming the full disk, the call not answered, the last complete report kept byte for byte, the journal claims no verdict', async ({
      onTestFinished,
      skip,
    }) => {
      skipUnlessTmpfs(skip);
      const dir = mkdtempSync(join(tmpdir(), 'harness-full-'));
      const mount = join(dir, 'tiny');
      mkdirSync(mount);
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k,mode=0700', 'tmpfs', mount]);
      const reportFile = join(mount, 'report.json');
      const journalFile = join(dir, 'journal.jsonl'); // on a disk with room: it sees the end
      const run = inProcessWithReportFile(onTestFinished, reportFile, ['--journal', journalFile]);
      // The proxy itself is ended by its lab (registered first).
      onTestFinished(() => {
        execFileSync('umount', ['-l', mount]);
        rmSync(dir, { recursive: true, force: true });
      });
      await serveSession(run.raw, 'before', 3);
      // No report write in flight (its temp file would free a block when renamed, after the filler).
      // (Its lock, report.json.lock, was made at start: issue 41 §12.)
      await waitFor(() => readdirSync(mount).join() === 'report.json,report.json.lock', 5000, 'no temp file beside the report');
      const before = readFileSync(reportFile, 'utf8');
      expect(JSON.parse(before)).toMatchObject({ status: 'running' });
      try {
        writeFileSync(join(mount, 'filler'), Buffer.alloc(64 * 1024));
      } catch {
        // ENOSPC: the filler took every block left.
      }
      run.raw.send({
        jsonrpc: '2.0',
        id: 99,
        method: 'tools/call',
        params: { name: 'create_order', arguments: { item: 'disk-full' } },
      });
      await expectNothingLost(run, {
        end: 1,
        report: 'stale',
        message:
          /error: the report file could not be written: report file not writable: .*ENOSPC.*the disk is full; the last complete report is kept\)\. Exiting without answering the agent/,
      });
      await expect(run.raw.next((m) => m['id'] === 99, 300)).rejects.toThrow(/timed out/);
      expect(readFileSync(reportFile, 'utf8'), 'the last complete report, untouched').toBe(before);
      // The report kept says PASS; the journal's last line must not claim it as the session's end.
      const ended = readFileSync(journalFile, 'utf8').trim().split('\n').at(-1)!;
      expect(JSON.parse(ended)).toMatchObject({ event: 'ended', verdict: 'NOT_TESTED', score: null });
      expect(JSON.parse(ended)).toHaveProperty('reportError', expect.stringMatching(/ENOSPC.*the disk is full/));
    });

    it.skipIf(!canMakeUnwritable())(
      'R-9.3: the folder refuses new files mid-session → the report is written in place, stderr says so exactly once, the final report is complete',
      async ({ onTestFinished }) => {
        const p = await cliLab(onTestFinished).start(COUNTING);
        expect(rawText(await callTool(p, 'create_order', { item: 'first' }))).toBe('ok create_order #1');
        const undo = refuseNewFiles(p.dir);
        try {
          for (let i = 0; i < 10; i++) await callTool(p, 'create_order', { item: `in-place-${i}` });
          p.raw.child.stdin.end();
          await expectNothingLost(p, {
            end: 0,
            exact: true,
            message:
              /\[cuonztech-agent-harness\] warning: the report file .*report\.json is written in place, not atomically \(the temp file or the rename was refused: E(PERM|ACCES)/,
          });
          expect(p.raw.stderr().match(/is written in place/g)).toHaveLength(1);
          expect(readReport(p.reportFile).report.operations).toHaveLength(11);
        } finally {
          undo();
        }
      },
    );
  });

  describe.concurrent('links at and beside the report file', () => {
    it('R-9.4: a symbolic link to a regular file in another folder is written through; the link stays a link; temp files go beside the real file', async ({
      onTestFinished,
    }) => {
      const prepare = (dir: string, reportFile: string) => {
        mkdirSync(join(dir, 'real'));
        writeFileSync(join(dir, 'real', 'real.json'), '{}');
        symlinkSync(join(dir, 'real', 'real.json'), reportFile);
      };
      const p = await cliLab(onTestFinished).start(COUNTING, { prepare });
      for (let i = 0; i < 20; i++) await callTool(p, 'create_order', { item: `i-${i}` });
      p.raw.child.stdin.end();
      await expectNothingLost(p, { end: 0, exact: true });
      expect(lstatSync(p.reportFile).isSymbolicLink()).toBe(true);
      expect(readlinkSync(p.reportFile)).toBe(join(p.dir, 'real', 'real.json'));
    });

    it('R-9.3: links planted at guessable temp names and at the target itself are never followed; the victim is untouched', async ({
      onTestFinished,
    }) => {
      const lab = cliLab(onTestFinished);
      const guessable = (reportFile: string, pid = '') => [
        `${reportFile}.tmp`,
        `${reportFile}~`,
        `${reportFile}.new`,
        ...(pid === '' ? [] : [`${reportFile}.${pid}.tmp`, `${reportFile}.${pid}.0.tmp`]),
      ];
      const plant = (dir: string, names: string[]) =>
        names.forEach((name, i) => symlinkSync(i % 2 === 0 ? join(dir, 'victim.json') : join(dir, 'created-through-link'), name));
      const p = lab.launch(COUNTING, {
        prepare: (dir, reportFile) => {
          writeFileSync(join(dir, 'victim.json'), 'VICTIM');
          plant(dir, guessable(reportFile));
        },
      });
      plant(p.dir, guessable(p.reportFile, String(p.raw.child.pid)).slice(3));
      await p.initialize();
      for (let i = 0; i < 10; i++) await callTool(p, 'create_order', { item: `i-${i}` });
      unlinkSync(p.reportFile);
      symlinkSync(join(p.dir, 'victim.json'), p.reportFile);
      await callTool(p, 'create_order', { item: 'after-the-swap' });
      expect(lstatSync(p.reportFile).isSymbolicLink(), 'the link planted at the target is replaced').toBe(false);
      const planted = guessable(p.reportFile, String(p.raw.child.pid));
      expect(planted.every((name) => lstatSync(name).isSymbolicLink())).toBe(true);
      planted.forEach((name) => unlinkSync(name));
      p.raw.child.stdin.end();
      await expectNothingLost(p, { end: 0, exact: true });
      expect(readFileSync(join(p.dir, 'victim.json'), 'utf8')).toBe('VICTIM');
      expect(existsSync(join(p.dir, 'created-through-link'))).toBe(false);
    });
  });

  describe.concurrent('planted links and modes', () => {
    it('R-9.4: a link planted at the report path in a world-writable sticky folder (like /tmp) → exit 1, one line, no upstream started; the linked file keeps its content and mode 600', async ({
      onTestFinished,
    }) => {
      const dir = mkdtempSync(join(tmpdir(), 'harness-planted-'));
      onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
      const shared = join(dir, 'shared');
      mkdirSync(shared);
      chmodSync(shared, 0o1777);
      const victim = join(dir, 'bashrc');
      writeFileSync(victim, 'VICTIM');
      chmodSync(victim, 0o600);
      const link = join(shared, 'harness-report.json');
      symlinkSync(victim, link);
      const run = inProcessWithReportFile(onTestFinished, link);
      expect(await waitForExit(run.raw.child, 20_000)).toEqual({ code: 1, signal: null });
      expectClearStderr(
        run.stderr(),
        /^\[cuonztech-agent-harness\] error: report file not usable: report file is a symbolic link in a world-writable folder, refused \(it may have been planted\): .*; use a private folder$/m,
      );
      expect(run.stderr().trim().split('\n')).toHaveLength(1);
      expect(existsSync(run.pidFile!), 'the upstream was started').toBe(false);
      expect(readFileSync(victim, 'utf8')).toBe('VICTIM');
      expect(statSync(victim).mode & 0o777).toBe(0o600);
    });

    it('R-9.3: a report file of mode 600 keeps mode 600 through a whole session', async ({ onTestFinished }) => {
      const prepare = (_dir: string, reportFile: string) => {
        writeFileSync(reportFile, '{}');
        chmodSync(reportFile, 0o600);
      };
      const p = await cliLab(onTestFinished).start(COUNTING, { prepare });
      for (let i = 0; i < 5; i++) await callTool(p, 'create_order', { item: `m-${i}` });
      expect(statSync(p.reportFile).mode & 0o777).toBe(0o600);
      p.raw.child.stdin.end();
      await expectNothingLost(p, { end: 0, exact: true });
      expect(statSync(p.reportFile).mode & 0o777).toBe(0o600);
    });
  });

  describe.concurrent('targets that are not regular files are refused before the upstream starts', () => {
    const cases: Array<[string, (dir: string) => string, RegExp]> = [
      ['/dev/null', () => '/dev/null', /\/dev\/null is a character device/],
      ['/dev/zero', () => '/dev/zero', /is a character device/],
      [
        'a symbolic link to /dev/null',
        (dir) => (symlinkSync('/dev/null', join(dir, 'link.json')), join(dir, 'link.json')),
        /is a character device/,
      ],
      ['a folder', (dir) => (mkdirSync(join(dir, 'folder')), join(dir, 'folder')), /is a folder/],
      ['a FIFO', (dir) => (execFileSync('mkfifo', [join(dir, 'fifo')]), join(dir, 'fifo')), /is a FIFO \(named pipe\)/],
    ];
    for (const [name, target, pattern] of cases) {
      it(`R-9.4: ${name} → exit 1, one line, no upstream started, the target unchanged`, async ({ onTestFinished }) => {
        const dir = mkdtempSync(join(tmpdir(), 'harness-refuse-'));
        onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
        const path = target(dir);
        const before = lstatSync(path);
        const run = inProcessWithReportFile(onTestFinished, path);
        expect(await waitForExit(run.raw.child, 20_000)).toEqual({ code: 1, signal: null });
        expect(lstatSync(path)).toMatchObject({ mode: before.mode, ino: before.ino, size: before.size });
        expectClearStderr(
          run.stderr(),
          /^\[cuonztech-agent-harness\] error: report file not usable: report file must be a regular file: /,
        );
        expect(run.stderr().trim().split('\n')).toHaveLength(1);
        expect(run.stderr()).toMatch(pattern);
        expect(existsSync(run.pidFile!), 'the upstream was started').toBe(false);
      });
    }

    it('R-9.4: a socket → exit 1, "is a socket", no upstream started', async ({ onTestFinished }) => {
      const dir = mkdtempSync(join(tmpdir(), 'harness-refuse-'));
      const server = createServer();
      await new Promise<void>((resolve) => server.listen(join(dir, 'sock'), resolve));
      onTestFinished(async () => {
        await new Promise((resolve) => server.close(resolve));
        rmSync(dir, { recursive: true, force: true });
      });
      const run = inProcessWithReportFile(onTestFinished, join(dir, 'sock'));
      expect(await waitForExit(run.raw.child, 20_000)).toEqual({ code: 1, signal: null });
      expectClearStderr(run.stderr(), /report file must be a regular file: .*sock is a socket/);
      expect(existsSync(run.pidFile!)).toBe(false);
    });

    // Changed to pass: this used to print "upstream did not start: report file not writable …" — the
    // upstream was never started; the report file was the problem.
    it('R-9.3: a regular file that cannot be written (/proc/uptime) → exit 1, "report file could not be written", never "upstream did not start"', async ({
      onTestFinished,
    }) => {
      const dir = mkdtempSync(join(tmpdir(), 'harness-refuse-'));
      onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
      const run = inProcessWithReportFile(onTestFinished, '/proc/uptime');
      expect(await waitForExit(run.raw.child, 20_000)).toEqual({ code: 1, signal: null });
      expectClearStderr(
        run.stderr(),
        /^\[cuonztech-agent-harness\] error: the report file could not be written: report file not writable: \/proc\/uptime/,
      );
      expect(run.stderr()).not.toMatch(/upstream did not start/);
      expect(existsSync(run.pidFile!)).toBe(false);
    });
  });
});
