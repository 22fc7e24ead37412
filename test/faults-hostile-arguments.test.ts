/**
 * Hostile arguments through the real proxy (issue 6, R-13), sent by a raw agent because an SDK client
 * cannot send an own `__proto__` key or 100,000-deep JSON: `__proto__` / `constructor` / `prototype` keys
 * at every depth, hostile tool names, arguments that are not an object, 100,000-deep nesting, integers
 * above 2^53, lone surrogates and invisible characters, invalid UTF-8 bytes and 1 MB strings. The
 * counting upstream echoes the raw params it received (FIXTURE_ECHO_RAW=1): "verbatim" is byte for byte.
 *
 * Moved from e2e (issue 12): the proxy runs in-process (`main(argv, io)`, see `support/h2-cli-proxy.ts`)
 * with the raw lines on its stdin stream, in front of the real counting upstream process, whose ledger
 * is the evidence; the compiled proxy's stdio framing stays proven in `e2e/proxy-lifecycle.e2e.test.ts`.
 */
import { readFileSync, statSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { executions } from '../e2e/fixtures/lib/ledger.mjs';
import { rawText, resultOf } from '../e2e/support/raw-proxy.js';
import { callTool, COUNTING, sendRawCall } from '../e2e/faults/fault-lab.js';
import { cliLab } from './support/h2-cli-proxy.js';
import { expectNothingLost, type ReportOperation } from '../e2e/faults/nothing-lost.js';

// Each test starts a real upstream process; a busy two-core machine needs more than the unit default.
vi.setConfig({ testTimeout: 60_000 });

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
