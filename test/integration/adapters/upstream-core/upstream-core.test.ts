/**
 * Every way a forwarded call can end, tested once for every upstream transport: the same counting
 * upstream (e2e/fixtures/lib/counting-calls.mjs: a ledger line per execution, written before the
 * answer) spawned over stdio, and served over Streamable HTTP with JSON answers and with SSE answers.
 * Each row says what the proxy gets, whether the upstream executed, and whether the upstream is still
 * usable afterwards. Then the shared client connection alone, with a scripted transport, for the races
 * no real upstream can be made to hit on cue.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpUpstreamSide } from '../../../../src/adapters/http-upstream/index.js';
import { StdioUpstreamSide } from '../../../../src/adapters/stdio-upstream/index.js';
import { connectionLost } from '../../../../src/adapters/upstream-core/call-outcome.js';
import { ClientConnection, type RecordingTransport } from '../../../../src/adapters/upstream-core/client-connection.js';
import { ReplyLedger } from '../../../../src/adapters/upstream-core/reply-ledger.js';
import { classifyLine } from '../../../../src/adapters/upstream-core/incoming-message.js';
import type { UpstreamCallOutcome, UpstreamSide } from '../../../../src/ports/upstream-side.port.js';
import { executions, readLedger } from '../../../../e2e/fixtures/lib/ledger.mjs';
import { withSide } from '../../../support/with-side.js';

const FIXTURES = fileURLToPath(new URL('../../../../e2e/fixtures/', import.meta.url));
const LIMIT = 64 * 1024;
const common = {
  clientName: 'upstream-core-test',
  clientVersion: '0.0.0',
  graceMs: 300,
  connectTimeoutMs: 10_000,
  maxMessageBytes: LIMIT,
};

/** One upstream behind one transport, with its ledger. */
interface Rig {
  side: UpstreamSide;
  /** How many calls the upstream really executed. */
  executed(): number;
  close(): Promise<void>;
}

let dir: string;
let rigs = 0;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'upstream-core-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function ledgerFile(): string {
  rigs += 1;
  return join(dir, `ledger-${rigs}.jsonl`);
}

function stdioRig(): Rig {
  const ledger = ledgerFile();
  const side = new StdioUpstreamSide({
    ...common,
    command: process.execPath,
    args: [join(FIXTURES, 'counting-server.mjs')],
    env: { FIXTURE_LEDGER: ledger },
  });
  return { side, executed: () => executions(readLedger(ledger)).length, close: () => side.close() };
}

async function httpRig(answers: 'json' | 'sse'): Promise<Rig> {
  const ledger = ledgerFile();
  const child = spawn(process.execPath, [join(FIXTURES, 'counting-http-server.mjs'), '0'], {
    env: { ...process.env, FIXTURE_LEDGER: ledger, FIXTURE_HTTP_ANSWERS: answers },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const url = await new Promise<URL>((resolve, reject) => {
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      const found = /listening on (http:\/\/\S+\/mcp)/.exec(stderr)?.[1];
      if (found !== undefined) resolve(new URL(found));
    });
    child.on('exit', () => reject(new Error(`counting-http-server ended before listening: ${stderr}`)));
  });
  const side = new HttpUpstreamSide({ ...common, url, headers: {} });
  return {
    side,
    executed: () => executions(readLedger(ledger)).length,
    async close() {
      await side.close();
      await stop(child);
    },
  };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

const transports: Array<[string, () => Rig | Promise<Rig>]> = [
  ['stdio', stdioRig],
  ['Streamable HTTP, JSON answers', () => httpRig('json')],
  ['Streamable HTTP, SSE answers', () => httpRig('sse')],
];

/** One way a call can end. */
interface Row {
  what: string;
  args: unknown;
  timeoutMs?: number;
  /** Cancel the call (abort its signal) once the upstream has executed it. */
  cancel?: boolean;
  outcome: UpstreamCallOutcome | ((outcome: UpstreamCallOutcome) => void);
  executed: number;
  /** What the next call gets. */
  then: 'result' | 'unavailable';
}

const deep: unknown = JSON.parse('{"a":'.repeat(100_000) + '1' + '}'.repeat(100_000));

const rows: Row[] = [
  {
    what: 'R-1.3, R-8.5: a result comes back verbatim',
    args: {},
    outcome: { kind: 'result', result: { content: [{ type: 'text', text: 'ok create_order #1' }] } },
    executed: 1,
    then: 'result',
  },
  {
    what: 'R-1.3: an isError result is a result (the upstream refused; not executed)',
    args: { reject: true },
    outcome: { kind: 'result', result: { content: [{ type: 'text', text: 'rejected create_order' }], isError: true } },
    executed: 0,
    then: 'result',
  },
  {
    what: 'R-1.3: a JSON-RPC error reply is a protocol-error with the upstream code and message',
    args: { throw: -32042 },
    outcome: { kind: 'protocol-error', code: -32042, message: 'fixture threw -32042 after executing create_order' },
    executed: 1,
    then: 'result',
  },
  {
    what: 'R-1.3: a result that is not an object is an invalid-answer (the upstream did execute)',
    args: { rawResult: 42 },
    outcome: { kind: 'invalid-answer', detail: 'the result is a number, not an object' },
    executed: 1,
    then: 'result',
  },
  {
    what: 'R-1.3: no answer within the wait is a timeout; the upstream stays usable',
    args: { sleepMs: 1500 },
    timeoutMs: 200,
    outcome: { kind: 'timeout', afterMs: 200 },
    executed: 1,
    then: 'result',
  },
  {
    what: 'R-1.3: a call cancelled by the agent is connection-lost; the upstream stays usable',
    args: { sleepMs: 1500 },
    cancel: true,
    outcome: { kind: 'connection-lost', detail: 'the call was cancelled before the upstream answered' },
    executed: 1,
    then: 'result',
  },
  {
    what: 'R-13: arguments too deep to serialise are not-sent (never executed); the upstream stays usable',
    args: { deep },
    outcome: (outcome) =>
      expect(outcome).toMatchObject({ kind: 'not-sent', detail: expect.stringContaining('could not be serialised') }),
    executed: 0,
    then: 'result',
  },
  {
    what: 'R-8.7: an answer over the size limit is too-large and ends the upstream',
    args: { hugeAnswerBytes: LIMIT + 1 },
    outcome: { kind: 'too-large', detail: `the upstream sent a message over ${LIMIT} bytes` },
    executed: 1,
    then: 'unavailable',
  },
  {
    what: 'R-8.7: an upstream that dies mid-call is connection-lost, and gone',
    args: { crash: true },
    outcome: (outcome) => expect(outcome.kind).toBe('connection-lost'),
    executed: 1,
    then: 'unavailable',
  },
];

async function callRow(rig: Rig, row: Row): Promise<UpstreamCallOutcome> {
  const controller = new AbortController();
  const before = rig.executed();
  const pending = rig.side.callTool(
    { name: 'create_order', arguments: row.args },
    { timeoutMs: row.timeoutMs ?? 10_000, signal: controller.signal },
  );
  if (row.cancel === true) {
    while (rig.executed() === before) await new Promise((resolve) => setTimeout(resolve, 10));
    controller.abort();
  }
  return pending;
}

/** One row against `rig`: its outcome, what the upstream executed for it, and what the next call gets. */
async function checkRow(rig: Rig, row: Row): Promise<void> {
  const before = rig.executed();
  const outcome = await callRow(rig, row);
  if (typeof row.outcome === 'function') row.outcome(outcome);
  else expect(outcome).toEqual(row.outcome);
  expect(rig.executed() - before).toBe(row.executed);
  const next = await rig.side.callTool({ name: 'get_order', arguments: {} }, { timeoutMs: 10_000 });
  expect(next.kind).toBe(row.then);
}

// The rows after which the upstream stays usable share one upstream per transport, in order (so the
// upstream is shown usable after each of them); a row that ends the upstream gets its own.
describe.each(transports)('every outcome of a call, over %s', (_name, makeRig) => {
  let shared: Rig;
  beforeAll(async () => {
    shared = await makeRig();
    await shared.side.connect();
  });
  afterAll(() => shared.close());

  it.each(rows.filter((row) => row.then === 'result').map((row) => [row.what, row] as const))('%s', async (_what, row) => {
    await checkRow(shared, row);
  });

  it.each(rows.filter((row) => row.then === 'unavailable').map((row) => [row.what, row] as const))('%s', async (_what, row) => {
    const rig = await makeRig();
    await withSide(rig, async ({ side }) => {
      await side.connect();
      await checkRow(rig, row);
    });
  });
});

/**
 * A transport whose upstream is a script: `answer` sees every request the SDK sends and may hand replies
 * to the SDK (`deliver`) or only record them as read (`record`), as a transport does in the moment
 * between reading a reply and the SDK seeing it.
 */
class ScriptedTransport implements RecordingTransport {
  readonly ledger = new ReplyLedger();
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  constructor(private readonly answer: (request: { id: number; method: string }, transport: ScriptedTransport) => void) {}

  async start(): Promise<void> {}

  async send(message: JSONRPCMessage): Promise<void> {
    if (!('method' in message) || !('id' in message)) return;
    this.ledger.noteSent(message.params, message.id);
    const request = { id: Number(message.id), method: message.method };
    if (message.method === 'initialize') {
      const result = {
        protocolVersion: '2025-06-18',
        capabilities: { tools: {} },
        serverInfo: { name: 'scripted', version: '1' },
      };
      queueMicrotask(() => this.deliver(request.id, { result }));
    } else {
      this.answer(request, this);
    }
  }

  /** The reply is read and recorded, but the SDK does not see it yet. */
  record(id: number, reply: { result: Record<string, unknown> } | { error: { code: number; message: string } }): void {
    this.ledger.noteReply(
      id,
      'result' in reply ? { kind: 'result', result: reply.result } : { kind: 'error', error: reply.error },
    );
  }

  /** The reply is read, recorded and handed to the SDK. */
  deliver(id: number, reply: { result: Record<string, unknown> } | { error: { code: number; message: string } }): void {
    this.record(id, reply);
    this.onmessage?.({ jsonrpc: '2.0', id, ...reply });
  }

  lostOutcome(error: unknown): UpstreamCallOutcome {
    return connectionLost(error);
  }

  async close(): Promise<void> {
    this.onclose?.();
  }
}

async function scripted(
  answer: ConstructorParameters<typeof ScriptedTransport>[0],
): Promise<ClientConnection<ScriptedTransport>> {
  const connection = new ClientConnection(new ScriptedTransport(answer), { clientName: 't', clientVersion: '0' });
  await connection.connect(5000);
  return connection;
}

describe('the shared client connection (scripted transport)', () => {
  const result = { content: [{ type: 'text', text: 'booked BK-1' }] };

  it('R-1.3: a result the transport has read counts as the answer even when the SDK gave up on the call a moment before (cancel)', async () => {
    const controller = new AbortController();
    const connection = await scripted((request, transport) => {
      transport.record(request.id, { result });
      controller.abort();
    });
    try {
      const outcome = await connection.forward('tools/call', { name: 'book' }, { timeoutMs: 5000, signal: controller.signal });
      expect(outcome).toEqual({ kind: 'result', result });
    } finally {
      await connection.close();
    }
  });

  it('R-1.3: a result the transport has read counts as the answer even when the SDK timed out first', async () => {
    const connection = await scripted((request, transport) => transport.record(request.id, { result }));
    try {
      expect(await connection.forward('tools/call', { name: 'book' }, { timeoutMs: 20 })).toEqual({ kind: 'result', result });
    } finally {
      await connection.close();
    }
  });

  it('R-1.3: the first reply to a request decides, as in the SDK: an error then a result is a protocol-error', async () => {
    const connection = await scripted((request, transport) => {
      transport.deliver(request.id, { error: { code: -32042, message: 'locked' } });
      transport.deliver(request.id, { result });
    });
    try {
      expect(await connection.forward('tools/call', { name: 'book' }, { timeoutMs: 5000 })).toEqual({
        kind: 'protocol-error',
        code: -32042,
        message: 'locked',
      });
    } finally {
      await connection.close();
    }
  });
});

describe('a tools/call result that is no MCP tool result is an invalid answer, live as replayed (issue 41 §7)', () => {
  it('content not an array, isError not a boolean: invalid-answer for tools/call; the same result of another method passes verbatim', async () => {
    const odd = { content: 'notarray', isError: 'yes' };
    const connection = await scripted((request, transport) => transport.deliver(request.id, { result: odd }));
    try {
      expect(await connection.forward('tools/call', { name: 'book' }, { timeoutMs: 5000 })).toEqual({
        kind: 'invalid-answer',
        detail: "the tool result's content is a string, not an array",
      });
      expect(await connection.forward('resources/read', { uri: 'x:1' }, { timeoutMs: 5000 })).toEqual({
        kind: 'result',
        result: odd,
      });
    } finally {
      await connection.close();
    }
  });
});

describe('classifyLine: an upstream reply that carries both result and error (JSON-RPC 1.0 style)', () => {
  const result = { content: [{ type: 'text', text: 'booked BK-1' }] };

  it('R-1.3: a result with "error": null is the result the upstream gave, not an invalid answer', () => {
    const line = JSON.stringify({ jsonrpc: '2.0', id: 3, result, error: null });
    expect(classifyLine(line)).toMatchObject({ kind: 'reply', id: 3, reply: { kind: 'result', result } });
  });

  it('R-1.3: an error with "result": null is that error', () => {
    const line = JSON.stringify({ jsonrpc: '2.0', id: 4, result: null, error: { code: -32042, message: 'locked' } });
    expect(classifyLine(line)).toMatchObject({
      kind: 'reply',
      id: 4,
      reply: { kind: 'error', error: { code: -32042, message: 'locked' } },
    });
  });

  it('a reply with a real result and a real error stays the error (the first member JSON-RPC reads)', () => {
    const line = JSON.stringify({ jsonrpc: '2.0', id: 5, result, error: { code: -32042, message: 'locked' } });
    expect(classifyLine(line)).toMatchObject({ kind: 'reply', reply: { kind: 'error' } });
  });
});
