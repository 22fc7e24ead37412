/**
 * Recordings (docs/replay.md): the recording tap writes what passes, in stable canonical lines; the
 * replay side serves it back (matched by tool name and canonical arguments, identical calls in recorded
 * order, a miss never executed); the reader refuses anything it cannot replay exactly, in one line.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CassetteFile, cassettePathBesideJournal } from '../../../src/adapters/cassette/cassette-file.js';
import { readCassette } from '../../../src/adapters/cassette/cassette-reader.js';
import { lineText, redact } from '../../../src/adapters/cassette/cassette-text.js';
import { RecordingUpstreamSide } from '../../../src/adapters/cassette/recording-upstream-side.js';
import { ReplayIndex, ReplayUpstreamSide } from '../../../src/adapters/cassette/replay-upstream-side.js';
import { cassetteLineSchema } from '../../../src/adapters/schemas/cassette.schema.js';
import { RecordingChatModel } from '../../../src/app/trial/recording-chat-model.js';
import { CASSETTE_FORMAT, CASSETTE_VERSION, type CassetteHeader } from '../../../src/ports/cassette.port.js';
import type { ToolCallRequest, ToolDescriptor } from '../../../src/ports/shapes/mcp-shapes.js';
import type { UpstreamCallOptions, UpstreamCallOutcome, UpstreamSide } from '../../../src/ports/upstream-side.port.js';

const TOOLS: ToolDescriptor[] = [
  { name: 'create_booking', inputSchema: { type: 'object' } },
  { name: 'search_bookings', annotations: { readOnlyHint: true } },
];

/** An upstream that answers from a script and counts what it executed. */
class ScriptedUpstream implements UpstreamSide {
  executed = 0;
  constructor(private readonly answer: (request: ToolCallRequest, n: number) => UpstreamCallOutcome) {}
  connect() {
    return Promise.resolve({ serverName: 'scripted', serverVersion: '1.2.3', instructions: 'Be careful.' });
  }
  listTools() {
    return Promise.resolve(structuredClone(TOOLS));
  }
  callTool(request: ToolCallRequest, options: UpstreamCallOptions) {
    options.onProgress?.({ progressToken: request.meta?.['progressToken'], progress: 1 });
    return Promise.resolve(this.answer(request, ++this.executed));
  }
  onExit() {}
  close() {
    return Promise.resolve();
  }
}

const OPTIONS: UpstreamCallOptions = { timeoutMs: 1000 };
const booked = (n: number): UpstreamCallOutcome => ({ kind: 'result', result: { content: [{ type: 'text', text: `BK-${n}` }] } });

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cassette-test-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Records a session against `upstream`, returns the recording's path. */
async function record(upstream: UpstreamSide, calls: ToolCallRequest[], redacted: string[] = []): Promise<string> {
  const path = join(dir, 'cassette.jsonl');
  const tap = new RecordingUpstreamSide(upstream, await CassetteFile.open(path, () => undefined), {
    recorded: 'proxy',
    harnessVersion: 'test',
    redact: redacted,
  });
  await tap.connect();
  await tap.listTools();
  for (const call of calls) await tap.callTool(call, { ...OPTIONS, onProgress: () => undefined });
  await tap.close();
  return path;
}

describe('recording and replaying an upstream', () => {
  it('serves the recorded initialize, tool list and answers; identical calls in recorded order; nothing executes again', async () => {
    const upstream = new ScriptedUpstream((request, n) =>
      request.name === 'search_bookings' ? { kind: 'protocol-error', code: -32602, message: 'bad query' } : booked(n),
    );
    const call = { name: 'create_booking', arguments: { guest: 'Ann', nights: 2 } };
    const path = await record(upstream, [
      { ...call, meta: { progressToken: 7 } },
      call,
      { name: 'search_bookings', arguments: {} },
    ]);
    expect(upstream.executed).toBe(3);
    const replay = new ReplayUpstreamSide(await readCassette(path, { allowRedacted: false }));
    expect(await replay.connect()).toEqual({ serverName: 'scripted', serverVersion: '1.2.3', instructions: 'Be careful.' });
    expect(await replay.listTools()).toEqual(TOOLS);
    // Key order, _meta and progress tokens are not matched on.
    const progress: unknown[] = [];
    const first = await replay.callTool(
      { name: 'create_booking', arguments: { nights: 2, guest: 'Ann' }, meta: { progressToken: 'other' } },
      { ...OPTIONS, onProgress: (p) => progress.push(p) },
    );
    expect(first).toEqual(booked(1));
    expect(progress).toEqual([{ progressToken: 'other', progress: 1 }]);
    expect(await replay.callTool(call, OPTIONS)).toEqual(booked(2));
    expect(await replay.callTool({ name: 'search_bookings', arguments: {} }, OPTIONS)).toEqual({
      kind: 'protocol-error',
      code: -32602,
      message: 'bad query',
    });
    expect(upstream.executed).toBe(3);
  });

  it('a call the recording has no (more) answer for is a replay miss, never executed, naming the call', async () => {
    const call = { name: 'create_booking', arguments: { guest: 'Ann' } };
    const path = await record(new ScriptedUpstream((_r, n) => booked(n)), [call]);
    const replay = new ReplayUpstreamSide(await readCassette(path, { allowRedacted: false }));
    expect((await replay.callTool(call, OPTIONS)).kind).toBe('result');
    const again = await replay.callTool(call, OPTIONS);
    expect(again).toMatchObject({ kind: 'replay-miss', detail: expect.stringContaining('already used') as string });
    const other = await replay.callTool({ name: 'create_booking', arguments: { guest: 'Bob' } }, OPTIONS);
    expect(other).toMatchObject({ kind: 'replay-miss', detail: expect.stringContaining('1 with other arguments') as string });
    // Each replay side has its own queues (one per trial run).
    const fresh = new ReplayUpstreamSide(await readCassette(path, { allowRedacted: false }));
    expect((await fresh.callTool(call, OPTIONS)).kind).toBe('result');
  });

  it('a call that got no answer is recorded as how it ended and replayed as that (a timeout stays a timeout)', async () => {
    const call = { name: 'create_booking', arguments: {} };
    const path = await record(new ScriptedUpstream(() => ({ kind: 'timeout', afterMs: 1000 })), [call]);
    const replay = new ReplayUpstreamSide(await readCassette(path, { allowRedacted: false }));
    expect(await replay.callTool(call, OPTIONS)).toEqual({ kind: 'timeout', afterMs: 1000 });
  });

  it('lines are canonical: the same exchange gives the same bytes whatever the key order, and every line matches the schema', async () => {
    const a = await record(new ScriptedUpstream((_r, n) => booked(n)), [{ name: 'x', arguments: { b: 1, a: { d: 2, c: 3 } } }]);
    const first = readFileSync(a, 'utf8');
    const b = await record(new ScriptedUpstream((_r, n) => booked(n)), [{ name: 'x', arguments: { a: { c: 3, d: 2 }, b: 1 } }]);
    expect(readFileSync(b, 'utf8')).toBe(first);
    const lines = first.trimEnd().split('\n');
    expect(lines[0]).toMatch(
      /^\{"cassette":"cuonztech-agent-harness\/cassette","v":1,"harnessVersion":"test","recorded":"proxy"/,
    );
    expect(lines).toContain(
      '{"side":"upstream","dir":"send","message":{"id":3,"jsonrpc":"2.0","method":"tools/call","params":{"arguments":{"a":{"c":3,"d":2},"b":1},"name":"x"}}}',
    );
    for (const line of lines) expect(cassetteLineSchema.safeParse(JSON.parse(line)).success, line).toBe(true);
    expect(lineText({ side: 'upstream', dir: 'receive', id: 4, noAnswer: { kind: 'connection-lost', detail: 'gone' } })).toBe(
      '{"side":"upstream","dir":"receive","id":4,"noAnswer":{"detail":"gone","kind":"connection-lost"}}',
    );
  });

  it('--redact replaces the fields at any depth before they are written; the header names them; replay needs allowRedacted and matches redacted', async () => {
    const call = { name: 'create_booking', arguments: { guest: 'Ann', card: { token: 'tok_secret', last4: '4242' } } };
    const upstream = new ScriptedUpstream(() => ({
      kind: 'result',
      result: { content: [{ type: 'text', text: 'ok' }], structuredContent: { items: [{ token: 'tok_secret' }] } },
    }));
    const path = await record(upstream, [call], ['token']);
    const text = readFileSync(path, 'utf8');
    expect(text).not.toContain('tok_secret');
    expect(text).toContain('"token":"[REDACTED]"');
    expect(JSON.parse(text.split('\n')[0]!)).toMatchObject({ redacted: ['token'] });
    await expect(readCassette(path, { allowRedacted: false })).rejects.toThrow(
      /^recording .*: the recording is redacted \(token\).*--allow-redacted on/,
    );
    const replay = new ReplayUpstreamSide(await readCassette(path, { allowRedacted: true }));
    // The live call carries the real value: it is redacted the same way before it is matched.
    expect((await replay.callTool(call, OPTIONS)).kind).toBe('result');
  });

  it.each([
    ['null', null],
    ['an entry without a name', { description: 'no name' }],
    ['a name that is no string', { name: 7 }],
  ])('a tools/list entry that is %s: one line naming the entry, never a TypeError (issue 41 §7)', async (_what, entry) => {
    const path = join(dir, 'bad-tools.jsonl');
    const header = {
      cassette: CASSETTE_FORMAT,
      v: CASSETTE_VERSION,
      harnessVersion: 'test',
      recorded: 'proxy',
      upstream: { serverName: null, serverVersion: null, tools: 2, toolsHash: 'sha256:0' },
      redacted: [],
    };
    const lines = [
      header,
      { side: 'upstream', dir: 'send', message: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} } },
      { side: 'upstream', dir: 'receive', message: { jsonrpc: '2.0', id: 1, result: { tools: [{ name: 'ok' }, entry] } } },
    ];
    writeFileSync(path, lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
    await expect(readCassette(path, { allowRedacted: false })).rejects.toThrow(
      new Error(`recording ${path}: its tools/list answer's entry 2 is not a tool (an object with a string "name")`),
    );
  });

  it('redaction copies an own __proto__ key as a key and takes no stack on a deep value', () => {
    const hostile = JSON.parse('{"__proto__":{"token":"x","polluted":true}}') as object;
    const copy = redact(hostile, new Set(['token'])) as Record<string, unknown>;
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(copy, '__proto__')?.value).toEqual({ token: '[REDACTED]', polluted: true });
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
    let deep: unknown = { token: 'x' };
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(() => redact(deep, new Set(['token']))).not.toThrow();
  });
});

describe("the model's side in the same recording", () => {
  it("the built-in loop's requests and answers are lines of their own, in order, redacted like the rest; replay serves the upstream lines around them", async () => {
    const path = join(dir, 'cassette.jsonl');
    const tap = new RecordingUpstreamSide(
      new ScriptedUpstream((_r, n) => booked(n)),
      await CassetteFile.open(path, () => undefined),
      {
        recorded: 'trial run F1-001',
        harnessVersion: 'test',
        redact: ['guest'],
      },
    );
    await tap.connect();
    await tap.listTools();
    const reply = {
      content: null,
      toolCalls: [{ id: 'c1', name: 'create_booking', argumentsText: '{}' }],
      finishReason: 'tool_calls',
    };
    const model = new RecordingChatModel(
      { complete: () => Promise.resolve({ ok: true, reply }), check: () => Promise.resolve({ ok: true }) },
      tap.model,
    );
    const request = { messages: [{ role: 'user' as const, content: 'Book.' }], tools: [] };
    expect(await model.complete(request)).toEqual({ ok: true, reply });
    await tap.callTool({ name: 'create_booking', arguments: { guest: 'Ann' } }, OPTIONS);
    await tap.close();
    const lines = readFileSync(path, 'utf8').trimEnd().split('\n');
    expect(lines.slice(5, 7)).toEqual([
      '{"side":"model","dir":"send","exchange":1,"request":{"messages":[{"content":"Book.","role":"user"}],"tools":[]}}',
      '{"side":"model","dir":"receive","exchange":1,"answer":{"content":null,"finishReason":"tool_calls","toolCalls":[{"argumentsText":"{}","id":"c1","name":"create_booking"}]}}',
    ]);
    expect(lines[7]).toContain('"arguments":{"guest":"[REDACTED]"}');
    for (const line of lines) expect(cassetteLineSchema.safeParse(JSON.parse(line)).success, line).toBe(true);
    const replay = new ReplayUpstreamSide(await readCassette(path, { allowRedacted: true }));
    expect(await replay.callTool({ name: 'create_booking', arguments: { guest: 'Bob' } }, OPTIONS)).toEqual(booked(1));
  });
});

describe('reading a recording back: anything that cannot be replayed exactly is one line', () => {
  async function recorded(): Promise<string[]> {
    const path = await record(new ScriptedUpstream((_r, n) => booked(n)), [{ name: 'create_booking', arguments: {} }]);
    return readFileSync(path, 'utf8').split('\n');
  }
  const refusal = async (text: string) => {
    const path = join(dir, 'bad.jsonl');
    writeFileSync(path, text);
    return readCassette(path, { allowRedacted: false }).then(
      () => 'accepted',
      (error: Error) => error.message,
    );
  };

  it('a torn last line, another format version, another file, an empty file, a foreign line', async () => {
    const lines = await recorded();
    const text = lines.join('\n');
    expect(await refusal(text.slice(0, -1))).toMatch(/: line 8 is truncated \(no line feed/);
    expect(await refusal(text.replace('"v":1', '"v":2'))).toMatch(/recording format version 2, this harness reads version 1$/);
    expect(await refusal('{"v":1,"event":"journal"}\n')).toMatch(/not a recording of this harness/);
    expect(await refusal('')).toMatch(/the file is empty/);
    expect(await refusal(`${lines.slice(0, 3).join('\n')}\n{"side":"model"}\n`)).toMatch(/line 4 is not a recording line/);
    expect(await refusal(text)).toBe('accepted');
  });

  it('a tool list that is not the one its header names (another upstream, an edited file) is refused', async () => {
    const text = (await recorded()).join('\n').replace('"name":"search_bookings"', '"name":"delete_everything"');
    expect(await refusal(text)).toMatch(/its tool list \(2 tools, sha256:[0-9a-f]+\) is not the one its header names/);
  });

  it('R-9.4: a recording file that existed readable by others is made private (600) when started afresh; a link is refused', async () => {
    const path = join(dir, 'old.cassette.jsonl');
    writeFileSync(path, 'old lines\n');
    chmodSync(path, 0o644);
    const file = await CassetteFile.open(path, () => undefined);
    file.close();
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readFileSync(path, 'utf8')).toBe('');
    symlinkSync(path, join(dir, 'link.cassette.jsonl'));
    await expect(CassetteFile.open(join(dir, 'link.cassette.jsonl'), () => undefined)).rejects.toThrow(
      /^recording file is a symbolic link, refused/,
    );
  });

  it('proxy --journal FILE puts its recording beside the journal', () => {
    expect(cassettePathBesideJournal('/w/run.jsonl')).toBe('/w/run.cassette.jsonl');
    expect(cassettePathBesideJournal('/w/journal')).toBe('/w/journal.cassette.jsonl');
  });
});

describe('replay index: progress notifications (issue 41 §5)', () => {
  const header: CassetteHeader = {
    cassette: CASSETTE_FORMAT,
    v: CASSETTE_VERSION,
    harnessVersion: 'test',
    recorded: 'proxy',
    upstream: { serverName: null, serverVersion: null, tools: 0, toolsHash: '' },
    redacted: [],
  };
  const send = (id: number, token: unknown) => ({
    side: 'upstream' as const,
    dir: 'send' as const,
    message: {
      jsonrpc: '2.0' as const,
      id,
      method: 'tools/call',
      params: { name: 'create_booking', arguments: { n: id }, _meta: { progressToken: token } },
    },
  });
  const progress = (token: unknown, n: number) => ({
    side: 'upstream' as const,
    dir: 'receive' as const,
    message: { jsonrpc: '2.0' as const, method: 'notifications/progress', params: { progressToken: token, progress: n } },
  });
  const result = (id: number) => ({
    side: 'upstream' as const,
    dir: 'receive' as const,
    message: { jsonrpc: '2.0' as const, id, result: { content: [{ type: 'text', text: `BK-${id}` }] } },
  });

  it('each notification goes to one open call: 2000 open calls sharing a token and 2000 notifications index 2000 entries, not 4 million', () => {
    const N = 2000;
    const ids = Array.from({ length: N }, (_, i) => i + 1);
    const index = new ReplayIndex({
      path: 'shared-token.jsonl',
      header,
      lines: [...ids.map((id) => send(id, 'T')), ...ids.map((id) => progress('T', id)), ...ids.map(result)],
    });
    const answers = ids.map((id) => index.take('create_booking', { n: id }));
    const delivered = answers.map((a) => ('miss' in a ? -1 : a.progress.length));
    expect(delivered.reduce((sum, n) => sum + n, 0)).toBe(N);
    // The first open call with the token gets them, in recorded order.
    expect(delivered[0]).toBe(N);
    expect(answers.every((a) => !('miss' in a) && a.outcome.kind === 'result')).toBe(true);
  });

  it('distinct tokens: each call gets its own notifications; a settled call gets none sent after its answer', () => {
    const index = new ReplayIndex({
      path: 'tokens.jsonl',
      header,
      lines: [
        send(1, 'a'),
        send(2, 'b'),
        progress('a', 1),
        progress('b', 1),
        progress('b', 2),
        result(1),
        progress('a', 9),
        result(2),
      ],
    });
    const first = index.take('create_booking', { n: 1 });
    const second = index.take('create_booking', { n: 2 });
    expect('miss' in first ? null : first.progress).toEqual([{ progressToken: 'a', progress: 1 }]);
    expect('miss' in second ? null : second.progress).toEqual([
      { progressToken: 'b', progress: 1 },
      { progressToken: 'b', progress: 2 },
    ]);
  });
});

describe('replayed answers are judged as live ones (issue 41 §7)', () => {
  const header: CassetteHeader = {
    cassette: CASSETTE_FORMAT,
    v: CASSETTE_VERSION,
    harnessVersion: 'test',
    recorded: 'proxy',
    upstream: { serverName: null, serverVersion: null, tools: 0, toolsHash: '' },
    redacted: [],
  };
  /** A recording of one call to `create_booking` answered with `answer` (a `result` or an `error` member). */
  const replayed = (answer: Record<string, unknown>): UpstreamCallOutcome => {
    const index = new ReplayIndex({
      path: 'answers.jsonl',
      header,
      lines: [
        {
          side: 'upstream',
          dir: 'send',
          message: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'create_booking', arguments: {} } },
        },
        { side: 'upstream', dir: 'receive', message: { jsonrpc: '2.0', id: 1, ...answer } },
      ],
    });
    const taken = index.take('create_booking', {});
    if ('miss' in taken) throw new Error(taken.miss);
    return taken.outcome;
  };

  it.each([
    ['a string', { result: 'str' }, 'the result is a string, not an object'],
    ['an array', { result: [1, 2] }, 'the result is an array, not an object'],
    [
      'content not an array',
      { result: { content: 'notarray', isError: 'yes' } },
      "the tool result's content is a string, not an array",
    ],
    [
      'isError not a boolean',
      { result: { content: [], isError: 'yes' } },
      "the tool result's isError is a string, not a boolean",
    ],
    [
      'structuredContent not an object',
      { result: { content: [], structuredContent: [1] } },
      "the tool result's structuredContent is an array, not an object",
    ],
    [
      'an error with object-valued code and message',
      { error: { code: { a: 1 }, message: { b: 2 } } },
      'the error object lacks an integer code or a string message',
    ],
    ['neither result nor error', {}, 'the result is absent, not an object'],
  ])('%s is an invalid answer, never served verbatim', (_what, answer, detail) => {
    expect(replayed(answer)).toEqual({ kind: 'invalid-answer', detail });
  });

  it('a real result and a real error are served as recorded; "error": null beside a result is the result (as live)', () => {
    const result = { content: [{ type: 'text', text: 'BK-1' }], isError: false, structuredContent: { id: 'BK-1' } };
    expect(replayed({ result })).toEqual({ kind: 'result', result });
    expect(replayed({ result, error: null })).toEqual({ kind: 'result', result });
    expect(replayed({ error: { code: -32042, message: 'locked', data: { why: 1 } } })).toEqual({
      kind: 'protocol-error',
      code: -32042,
      message: 'locked',
      data: { why: 1 },
    });
  });

  it('the recorder writes an invalid answer as how the call ended, which the reader accepts and replays as an invalid answer', async () => {
    const invalid: UpstreamCallOutcome = {
      kind: 'invalid-answer',
      detail: "the tool result's content is a string, not an array",
    };
    const path = await record(new ScriptedUpstream(() => invalid), [{ name: 'create_booking', arguments: {} }]);
    const side = new ReplayUpstreamSide(await readCassette(path, { allowRedacted: false }));
    expect(await side.callTool({ name: 'create_booking', arguments: {} }, OPTIONS)).toEqual(invalid);
  });
});

describe('a recording stays within its size budget (issue 41 §3)', () => {
  const limits = { keptBytes: 8 * 1024, stopBytes: 16 * 1024 };
  const big = (n: number): UpstreamCallOutcome => ({
    kind: 'result',
    result: { content: [{ type: 'text', text: `${n}:${'x'.repeat(3000)}` }] },
  });

  async function recordBudgeted(calls: number): Promise<string> {
    const path = join(dir, 'budget.cassette.jsonl');
    const tap = new RecordingUpstreamSide(
      new ScriptedUpstream((_r, n) => big(n)),
      await CassetteFile.open(path, () => undefined),
      {
        recorded: 'proxy',
        harnessVersion: 'test',
        redact: [],
        limits,
      },
    );
    await tap.connect();
    await tap.listTools();
    for (let n = 1; n <= calls; n++) await tap.callTool({ name: 'create_booking', arguments: { n } }, OPTIONS);
    tap.model.answer(tap.model.request({ messages: [{ role: 'user', content: 'y'.repeat(9000) }], tools: [] }), {
      content: 'ok',
      toolCalls: [],
      finishReason: 'stop',
    });
    await tap.close();
    return path;
  }

  it('past the budget a body becomes size, sha256 and preview (the file says so); past the limit one line says it stopped; the reader takes it', async () => {
    const path = await recordBudgeted(30);
    const text = readFileSync(path, 'utf8');
    // The limit counts the lines after the header; the header and the last line are small.
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(limits.stopBytes + 1024);
    const lines = text
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    for (const line of lines) expect(cassetteLineSchema.safeParse(line).success).toBe(true);
    const cut = lines.filter((l) => 'notKept' in l);
    expect(cut.length).toBeGreaterThan(0);
    expect(cut[0]).toMatchObject({
      notKept: { bytes: expect.any(Number), sha256: expect.stringMatching(/^sha256:[0-9a-f]{64}$/) },
    });
    // A cut call keeps its id, method and tool name, never its arguments.
    expect(cut.find((l) => l['dir'] === 'send')).toMatchObject({
      message: { method: 'tools/call', params: { name: 'create_booking' } },
    });
    expect(lines.at(-1)).toMatchObject({
      side: 'recording',
      stopped: expect.stringMatching(/^the recording reached its size limit/),
    });
    // The model exchange came after the stop: not written at all.
    expect(lines.some((l) => l['side'] === 'model')).toBe(false);
    await expect(readCassette(path, { allowRedacted: false })).resolves.toBeDefined();
  });

  it('replaying past a cut body is a replay miss that says why; a call kept whole is served', async () => {
    const side = new ReplayUpstreamSide(await readCassette(await recordBudgeted(30), { allowRedacted: false }));
    await side.connect();
    expect(await side.listTools()).toEqual(TOOLS);
    expect(await side.callTool({ name: 'create_booking', arguments: { n: 1 } }, OPTIONS)).toEqual(big(1));
    const outcomes = [];
    for (let n = 2; n <= 30; n++) outcomes.push(await side.callTool({ name: 'create_booking', arguments: { n } }, OPTIONS));
    const details = outcomes.map((o) => (o.kind === 'replay-miss' ? o.detail : o.kind));
    expect(details.some((d) => d.includes('the recording did not keep this answer whole'))).toBe(true);
    expect(details.at(-1)).toMatch(
      /no recorded tools\/call "create_booking" with these arguments .*the recording stopped early: the recording reached its size limit/,
    );
  });

  it('a model request not kept whole is a model replay mismatch, never a guessed answer', async () => {
    const { recordedModelExchanges, ReplayChatModel } = await import('../../../src/app/trial/replay-chat-model.js');
    const path = join(dir, 'model.cassette.jsonl');
    const tap = new RecordingUpstreamSide(
      new ScriptedUpstream((_r, n) => booked(n)),
      await CassetteFile.open(path, () => undefined),
      {
        recorded: 'trial run 1',
        harnessVersion: 'test',
        redact: [],
        limits: { keptBytes: 4096, stopBytes: 64 * 1024 },
      },
    );
    await tap.connect();
    await tap.listTools();
    const request = { messages: [{ role: 'user' as const, content: 'y'.repeat(9000) }], tools: [] };
    tap.model.answer(tap.model.request(request), { content: 'ok', toolCalls: [], finishReason: 'stop' });
    await tap.close();
    const exchanges = recordedModelExchanges((await readCassette(path, { allowRedacted: false })).lines);
    expect(exchanges).toEqual([{ request: null, answer: { content: 'ok', toolCalls: [], finishReason: 'stop' } }]);
    const model = new ReplayChatModel(exchanges);
    expect(await model.complete(request)).toMatchObject({ ok: false });
    expect(model.mismatch).toMatch(/model request 1 is not the recorded one: the recording did not keep it whole/);
  });
});
