/**
 * The upstream fixtures and the bundled booking example, exercised directly (no proxy): each must do its
 * one job, and its ledger must count exactly what it executed, because the proxy's e2e tests use that
 * ledger as the ground truth. The booking example's tools and ledger are checked in-process (its own
 * modules, an SDK client over the SDK's in-memory transport); the example as a process runs from `dist/`
 * (`npm run build` first) in its HTTP mode, with BOOKING_DELAY_MS from the environment.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ErrorCode, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BookingStore } from '../examples/booking-server/booking-store.js';
import { InFlight } from '../examples/booking-server/in-flight.js';
import { Ledger } from '../examples/booking-server/ledger.js';
import { createBookingServer } from '../examples/booking-server/mcp-server.js';
import { executions, readLedger } from './fixtures/lib/ledger.mjs';
import { INITIALIZE, isAlive, spawnRaw, waitFor, waitForExit } from './fixtures/lib/raw-child.mjs';

const fixture = (name: string): string => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
const BOOKING_SERVER = fileURLToPath(new URL('../dist/examples/booking-server/server.js', import.meta.url));

let tmp = '';
let ledgerCount = 0;
const newLedger = (): string => join(tmp, `ledger-${++ledgerCount}.jsonl`);

beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'fixtures-test-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** The full environment plus `extra` (the SDK would otherwise pass only 6 variables). */
function fullEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value;
  return { ...env, ...extra };
}

/** An SDK client and stdio transport for `node <file>` (not yet connected), with stderr collected. */
function stdioClient(file: string, env: Record<string, string> = {}) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [file],
    env: fullEnv(env),
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: 'fixtures-test', version: '1.0.0' });
  return { client, transport, stderr: () => stderr };
}

/** Connects to `node <file>`, runs `body`, and always closes (which ends the child). */
async function withClient<T>(file: string, env: Record<string, string>, body: (client: Client) => Promise<T>): Promise<T> {
  const { client, transport } = stdioClient(file, env);
  try {
    await client.connect(transport, { timeout: 5000 });
    return await body(client);
  } finally {
    await client.close();
  }
}

/** Calls a tool with a bounded wait. */
const call = (client: Client, name: string, args: Record<string, unknown> = {}, timeoutMs = 5000) =>
  client.callTool({ name, arguments: args }, undefined, { timeout: timeoutMs }) as Promise<CallToolResult>;
/** The text of a result's first content block ('' if it is not text). */
const textOf = (result: CallToolResult): string => (result.content[0]?.type === 'text' ? result.content[0].text : '');

describe('counting-server.mjs', () => {
  it('R-1.3: two identical create_order calls both execute, answer #1 and #2 and leave 2 ledger lines', async () => {
    const ledger = newLedger();
    const env = { FIXTURE_LEDGER: ledger, FIXTURE_INSTRUCTIONS: 'Be careful.' };
    await withClient(fixture('counting-server.mjs'), env, async (client) => {
      expect(client.getInstructions()).toBe('Be careful.');
      const { tools } = await client.listTools();
      const names = tools.map((tool) => tool.name);
      expect(names).toEqual(['create_order', 'get_order', 'search_orders', 'sync_ledger']);
      expect(tools.every((tool) => tool.annotations === undefined)).toBe(true);
      const args = { item: 'book', idempotency_key: 'k-1' };
      expect(textOf(await call(client, 'create_order', args))).toBe('ok create_order #1');
      expect(textOf(await call(client, 'create_order', args))).toBe('ok create_order #2');
      expect(textOf(await call(client, 'get_order', { order_id: '1' }))).toBe('ok get_order #1');
    });
    const entries = readLedger(ledger);
    expect(executions(entries, 'create_order').map((entry) => entry.arguments)).toEqual([
      { item: 'book', idempotency_key: 'k-1' },
      { item: 'book', idempotency_key: 'k-1' },
    ]);
    expect(entries.map((entry) => entry.seq)).toEqual([1, 2, 3]);
  });

  it('R-1.3: "reject" answers isError and is recorded as rejected, not as an execution', async () => {
    const ledger = newLedger();
    await withClient(fixture('counting-server.mjs'), { FIXTURE_LEDGER: ledger }, async (client) => {
      const result = await call(client, 'create_order', { reject: true });
      expect(result.isError).toBe(true);
    });
    expect(readLedger(ledger)).toMatchObject([{ tool: 'create_order', rejected: true }]);
    expect(executions(readLedger(ledger))).toEqual([]);
  });

  it('R-1.3: "throw" executes first, then answers a JSON-RPC error with that code', async () => {
    const ledger = newLedger();
    await withClient(fixture('counting-server.mjs'), { FIXTURE_LEDGER: ledger }, async (client) => {
      await expect(call(client, 'create_order', { throw: -32603 })).rejects.toMatchObject({ code: -32603 });
    });
    expect(executions(readLedger(ledger))).toMatchObject([{ tool: 'create_order', executedThenThrew: true }]);
  });

  it('"sleepMs" delays the answer and "hugeAnswerBytes" sizes it', async () => {
    await withClient(fixture('counting-server.mjs'), {}, async (client) => {
      const started = Date.now();
      expect(textOf(await call(client, 'search_orders', { sleepMs: 200 }))).toBe('ok search_orders #1');
      expect(Date.now() - started).toBeGreaterThanOrEqual(190);
      expect(textOf(await call(client, 'get_order', { hugeAnswerBytes: 4096 }))).toBe('x'.repeat(4096));
    });
  });

  it('R-8.7: "crash" records the execution, then exits without answering', async () => {
    const ledger = newLedger();
    await withClient(fixture('counting-server.mjs'), { FIXTURE_LEDGER: ledger }, async (client) => {
      await expect(call(client, 'create_order', { crash: true })).rejects.toMatchObject({
        code: ErrorCode.ConnectionClosed,
      });
    });
    expect(executions(readLedger(ledger))).toMatchObject([{ tool: 'create_order', crashed: true }]);
  });

  it('R-1.3: "exitOnReceipt" records the call as received, then exits without executing or answering', async () => {
    const ledger = newLedger();
    await withClient(fixture('counting-server.mjs'), { FIXTURE_LEDGER: ledger }, async (client) => {
      await expect(call(client, 'create_order', { exitOnReceipt: true })).rejects.toMatchObject({
        code: ErrorCode.ConnectionClosed,
      });
    });
    expect(readLedger(ledger)).toMatchObject([{ tool: 'create_order', received: true }]);
    expect(executions(readLedger(ledger))).toEqual([]);
  });

  it('FIXTURE_TOOLS replaces the tool list', async () => {
    const tools = [{ name: 'book_table', inputSchema: { type: 'object', properties: {} } }];
    await withClient(fixture('counting-server.mjs'), { FIXTURE_TOOLS: JSON.stringify(tools) }, async (client) => {
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['book_table']);
      expect(textOf(await call(client, 'book_table'))).toBe('ok book_table #1');
    });
  });

  it('R-13: FIXTURE_ECHO_RAW echoes raw params with _meta and __proto__; ping, -32601, unknown tool', async () => {
    const ledger = newLedger();
    const env = { FIXTURE_ECHO_RAW: '1', FIXTURE_LEDGER: ledger };
    const raw = spawnRaw(fixture('counting-server.mjs'), { env });
    try {
      raw.send(INITIALIZE);
      await raw.next((message) => message['id'] === 0);
      const params = '{"name":"create_order","arguments":{"__proto__":{"polluted":true},"n":1},"_meta":{"progressToken":7}}';
      raw.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":${params}}`);
      raw.send({ jsonrpc: '2.0', id: 2, method: 'ping' });
      raw.send({ jsonrpc: '2.0', id: 3, method: 'resources/list' });
      raw.send({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'no_such_tool', arguments: {} } });
      const echoed = await raw.next((message) => message['id'] === 1);
      expect(echoed).toMatchObject({ result: { content: [{ type: 'text', text: params }] } });
      expect(await raw.next((message) => message['id'] === 2)).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
      expect(await raw.next((message) => message['id'] === 3)).toMatchObject({ error: { code: -32601 } });
      expect(await raw.next((message) => message['id'] === 4)).toMatchObject({ error: { code: -32602 } });
      expect(readLedger(ledger)).toHaveLength(1);
    } finally {
      raw.child.kill('SIGKILL');
    }
  });

  it('R-8.8: at stdin EOF a call in progress still answers before the server exits 0', async () => {
    const raw = spawnRaw(fixture('counting-server.mjs'));
    try {
      raw.send(INITIALIZE);
      const params = { name: 'create_order', arguments: { sleepMs: 300 } };
      raw.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params });
      raw.child.stdin.end();
      const answered = await raw.next((message) => message['id'] === 1);
      expect(answered).toMatchObject({ result: { content: [{ text: 'ok create_order #1' }] } });
      expect(await waitForExit(raw.child, 3000)).toEqual({ code: 0, signal: null });
    } finally {
      raw.child.kill('SIGKILL');
    }
  });
});

describe('counting-http-server.mjs (the counting upstream over Streamable HTTP)', () => {
  for (const answers of ['json', 'sse'] as const) {
    it(`R-1.3: over HTTP with ${answers} answers, two identical writes both execute and leave 2 ledger lines; DELETE and SIGTERM end it`, async () => {
      const ledger = newLedger();
      const env: Record<string, string> = {
        FIXTURE_LEDGER: ledger,
        ...(answers === 'sse' ? { FIXTURE_HTTP_ANSWERS: 'sse' } : {}),
      };
      const server = spawnRaw(fixture('counting-http-server.mjs'), { env });
      const client = new Client({ name: 'fixtures-test', version: '1.0.0' });
      try {
        const bannerUrl = (): string | undefined => /http:\/\/127\.0\.0\.1:\d+\/mcp/.exec(server.stderr())?.[0];
        const url = await waitFor(bannerUrl, 5000, 'the banner');
        const transport = new StreamableHTTPClientTransport(new URL(url));
        await client.connect(transport, { timeout: 5000 });
        expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual([
          'create_order',
          'get_order',
          'search_orders',
          'sync_ledger',
        ]);
        const args = { item: 'book' };
        expect(textOf(await call(client, 'create_order', args))).toBe('ok create_order #1');
        expect(textOf(await call(client, 'create_order', args))).toBe('ok create_order #2');
        expect(textOf(await call(client, 'get_order', { hugeAnswerBytes: 4096 }))).toBe('x'.repeat(4096));
        expect(executions(readLedger(ledger), 'create_order')).toHaveLength(2);
        await transport.terminateSession();
        await waitFor(() => /session \S+ ended/.test(server.stderr()) || undefined, 3000, 'the session end on stderr');
      } finally {
        await client.close();
        server.child.kill('SIGTERM');
        const exit = await waitForExit(server.child, 3000).catch(() => undefined);
        if (exit === undefined) server.child.kill('SIGKILL');
        expect(exit).toEqual({ code: 0, signal: null });
      }
    });
  }
});

describe('paginating-server.mjs', () => {
  it('R-8.5: lists tools over 3 pages, with x_vendor_ext and an unknown annotation key in the raw bytes', async () => {
    const raw = spawnRaw(fixture('paginating-server.mjs'));
    try {
      raw.send(INITIALIZE);
      raw.send({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
      raw.send({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: { cursor: 'nope' } });
      const first = await raw.next((message) => message['id'] === 1);
      expect(first).toMatchObject({
        result: {
          nextCursor: 'p2',
          tools: [
            { name: 'create_invoice', x_vendor_ext: { tier: 'gold' }, annotations: { x_vendor_hint: 'billing' } },
            { name: 'get_invoice' },
          ],
        },
      });
      expect(await raw.next((message) => message['id'] === 2)).toMatchObject({ error: { code: -32602 } });
    } finally {
      raw.child.kill('SIGKILL');
    }
    await withClient(fixture('paginating-server.mjs'), {}, async (client) => {
      const names: string[] = [];
      const cursors: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor === undefined ? {} : { cursor });
        names.push(...page.tools.map((tool) => tool.name));
        cursor = page.nextCursor;
        if (cursor !== undefined) cursors.push(cursor);
      } while (cursor !== undefined);
      expect(cursors).toEqual(['p2', 'p3']);
      const expected = ['create_invoice', 'get_invoice', 'search_invoices', 'cancel_invoice', 'sync_invoices'];
      expect(names).toEqual(expected);
      expect(textOf(await call(client, 'cancel_invoice', { invoice_id: 'I-1' }))).toBe('ok cancel_invoice #1');
    });
  });

  it('R-8.5: FIXTURE_MALFORMED=1 puts a tool the SDK rejects on page 2 only', async () => {
    await withClient(fixture('paginating-server.mjs'), { FIXTURE_MALFORMED: '1' }, async (client) => {
      expect((await client.listTools()).nextCursor).toBe('p2');
      await expect(client.listTools({ cursor: 'p2' })).rejects.toThrow();
    });
  });
});

describe('output-schema-server.mjs', () => {
  it('R-1.3: the SDK client throws on missing or invalid structuredContent after the upstream executed', async () => {
    const ledger = newLedger();
    await withClient(fixture('output-schema-server.mjs'), { FIXTURE_LEDGER: ledger }, async (client) => {
      await client.listTools();
      const missing = call(client, 'create_without_structured');
      await expect(missing).rejects.toMatchObject({ code: ErrorCode.InvalidRequest });
      const invalid = call(client, 'create_with_invalid_structured');
      await expect(invalid).rejects.toMatchObject({ code: ErrorCode.InvalidParams });
      const valid = await call(client, 'create_with_valid_structured');
      expect(valid.structuredContent).toEqual({ id: 'REC-1' });
    });
    expect(executions(readLedger(ledger)).map((entry) => entry.tool)).toEqual([
      'create_without_structured',
      'create_with_invalid_structured',
      'create_with_valid_structured',
    ]);
  });
});

describe('misbehaving upstreams', () => {
  it('R-1.3: never-answers.mjs records the call as received and the timeout cancel, answers nothing', async () => {
    const ledger = newLedger();
    await withClient(fixture('never-answers.mjs'), { FIXTURE_LEDGER: ledger }, async (client) => {
      const attempt = call(client, 'create_order', { item: 'x' }, 300);
      await expect(attempt).rejects.toMatchObject({ code: ErrorCode.RequestTimeout });
      await waitFor(() => readLedger(ledger).some((entry) => entry.cancelled === true), 2000, 'the cancel notice');
    });
    expect(readLedger(ledger)).toMatchObject([{ tool: 'create_order', received: true }, { cancelled: true }]);
    expect(executions(readLedger(ledger))).toEqual([]);
  });

  it('R-8.9: crash-before-init.mjs exits 1 with a stderr reason before initialize', async () => {
    const { client, transport, stderr } = stdioClient(fixture('crash-before-init.mjs'));
    try {
      const connecting = client.connect(transport, { timeout: 5000 });
      await expect(connecting).rejects.toMatchObject({ code: ErrorCode.ConnectionClosed });
      await waitFor(() => stderr().includes('cannot open database'), 2000, 'the stderr reason');
    } finally {
      await client.close();
    }
  });

  it('R-8.9: exits-at-once.mjs ends before initialize', async () => {
    const { client, transport } = stdioClient(fixture('exits-at-once.mjs'));
    try {
      const connecting = client.connect(transport, { timeout: 5000 });
      await expect(connecting).rejects.toMatchObject({ code: ErrorCode.ConnectionClosed });
    } finally {
      await client.close();
    }
  });

  it('garbage-stdout.mjs prints non-JSON lines between valid answers, which a client skips', async () => {
    const errors: Error[] = [];
    await withClient(fixture('garbage-stdout.mjs'), {}, async (client) => {
      client.onerror = (error) => errors.push(error);
      expect(textOf(await call(client, 'create_order'))).toBe('ok create_order #1');
      expect(textOf(await call(client, 'create_order'))).toBe('ok create_order #2');
    });
    expect(errors.length).toBeGreaterThanOrEqual(2);
  });

  it('slow-start.mjs answers initialize only after FIXTURE_START_DELAY_MS', async () => {
    const env = { FIXTURE_START_DELAY_MS: '500' };
    const early = stdioClient(fixture('slow-start.mjs'), env);
    try {
      const connecting = early.client.connect(early.transport, { timeout: 100 });
      await expect(connecting).rejects.toMatchObject({ code: ErrorCode.RequestTimeout });
    } finally {
      await early.client.close();
    }
    const started = Date.now();
    await withClient(fixture('slow-start.mjs'), env, async (client) => {
      expect(Date.now() - started).toBeGreaterThanOrEqual(450);
      expect(textOf(await call(client, 'get_order'))).toBe('ok get_order #1');
    });
  });
});

describe('fixtures that outlive a polite shutdown (R-8.8)', () => {
  it('R-8.8: ignores-sigterm.mjs survives SIGTERM and stdin EOF and ends only on SIGKILL', async () => {
    const pidFile = join(tmp, 'ignores-sigterm.pid');
    const raw = spawnRaw(fixture('ignores-sigterm.mjs'), { env: { FIXTURE_PIDFILE: pidFile } });
    try {
      raw.send(INITIALIZE);
      await raw.next((message) => message['id'] === 0);
      const pid = await waitFor(() => Number(readPids(pidFile)[0] ?? 0), 2000, 'the pid file');
      expect(pid).toBe(raw.child.pid);
      raw.child.kill('SIGTERM');
      raw.child.stdin.end();
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(raw.child.exitCode).toBeNull();
      expect(isAlive(pid)).toBe(true);
      raw.child.kill('SIGKILL');
      expect(await waitForExit(raw.child, 2000)).toEqual({ code: null, signal: 'SIGKILL' });
    } finally {
      raw.child.kill('SIGKILL');
    }
  });

  it('R-8.8: spawns-child.mjs leaves a SIGTERM-proof grandchild that only a process-group kill ends', async () => {
    const pidFile = join(tmp, 'spawns-child.pid');
    const raw = spawnRaw(fixture('spawns-child.mjs'), { env: { FIXTURE_PIDFILE: pidFile }, detached: true });
    const group = raw.child.pid;
    if (group === undefined) throw new Error('spawns-child.mjs did not start'); // never kill(-0): our own group
    try {
      raw.send(INITIALIZE);
      await raw.next((message) => message['id'] === 0);
      const bothPids = (): string[] | undefined => (readPids(pidFile).length === 2 ? readPids(pidFile) : undefined);
      const pids = await waitFor(bothPids, 2000, 'both pids');
      const grandchild = Number(pids[1]);
      expect(Number(pids[0])).toBe(group);
      raw.child.stdin.end();
      expect(await waitForExit(raw.child, 2000)).toEqual({ code: 0, signal: null });
      process.kill(grandchild, 'SIGTERM');
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(isAlive(grandchild)).toBe(true);
      process.kill(-group, 'SIGKILL');
      await waitFor(() => !isAlive(grandchild), 2000, 'the grandchild to die');
    } finally {
      try {
        process.kill(-group, 'SIGKILL');
      } catch {
        // the group is already gone
      }
    }
  });
});

/** The non-empty lines of a pid file (none while it does not exist yet). */
function readPids(file: string): string[] {
  return existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter((line) => line !== '')
    : [];
}

/** POSTs an initialize to `url` with a forged Host header; answers the HTTP status. */
function postWithHost(url: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const headers = { host, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const req = request(url, { method: 'POST', headers }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end(JSON.stringify(INITIALIZE));
  });
}

/** Runs `body` with an SDK client connected in-process to the booking example's MCP server (ledger at `ledger`). */
async function withBookingInProcess<T>(ledger: string, body: (client: Client) => Promise<T>): Promise<T> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const server = createBookingServer({ store: new BookingStore(), ledger: new Ledger(ledger), writeDelayMs: 0 }, new InFlight());
  await server.connect(serverSide);
  const client = new Client({ name: 'fixtures-test', version: '1.0.0' });
  try {
    await client.connect(clientSide, { timeout: 5000 });
    return await body(client);
  } finally {
    await client.close();
    await server.close();
  }
}

describe('examples/booking-server (its modules in-process; the process from dist/)', () => {
  beforeAll(() => {
    if (!existsSync(BOOKING_SERVER)) throw new Error(`${BOOKING_SERVER} is missing: run "npm run build" first`);
  });

  it('R-1.1: create_booking is not idempotent: same arguments and key book twice, search finds both', async () => {
    const ledger = newLedger();
    await withBookingInProcess(ledger, async (client) => {
      const { tools } = await client.listTools();
      const names = tools.map((tool) => tool.name);
      expect(names).toEqual(['create_booking', 'search_bookings', 'get_booking', 'cancel_booking']);
      expect(tools.every((tool) => tool.annotations === undefined)).toBe(true);
      expect(JSON.stringify(tools)).not.toMatch(/"\$schema"|"pattern"|"format"|"propertyNames"/);
      const args = { guest: 'Ann Smith', date: '2026-05-01', nights: 2, idempotency_key: 'same-key' };
      const first = JSON.parse(textOf(await call(client, 'create_booking', args))) as { id: string };
      const second = JSON.parse(textOf(await call(client, 'create_booking', args))) as { id: string };
      expect([first.id, second.id]).toEqual(['BK-0001', 'BK-0002']);
      const found = JSON.parse(textOf(await call(client, 'search_bookings', { guest: 'ann smith' }))) as unknown[];
      expect(found).toMatchObject([{ id: 'BK-0001' }, { id: 'BK-0002' }]);
      expect(readLedger(ledger)).toMatchObject([
        { seq: 1, tool: 'create_booking', bookingId: 'BK-0001', arguments: args },
        { seq: 2, tool: 'create_booking', bookingId: 'BK-0002', arguments: args },
      ]);
      const missing = await call(client, 'get_booking', { booking_id: 'BK-9999' });
      expect(missing.isError).toBe(true);
      expect(textOf(missing)).toContain('not found');
      expect((await call(client, 'cancel_booking', { booking_id: 'BK-9999' })).isError).toBe(true);
      expect((await call(client, 'create_booking', { guest: 'Ann', date: '2026-02-30' })).isError).toBe(true);
      expect((await call(client, 'cancel_booking', { booking_id: 'BK-0001' })).isError).toBeUndefined();
    });
    const tools = readLedger(ledger).map((entry) => entry['tool']);
    expect(tools).toEqual(['create_booking', 'create_booking', 'cancel_booking']);
  });

  it('R-1.3: serves Streamable HTTP with --http and stateful sessions that share the bookings; with BOOKING_DELAY_MS a client timeout still leaves an executed booking (ghost write)', async () => {
    const ledger = newLedger();
    const env = { BOOKING_LEDGER: ledger, BOOKING_DELAY_MS: '400' };
    const server = spawnRaw(BOOKING_SERVER, { args: ['--http', '0'], env });
    const clients: Client[] = [];
    try {
      const bannerUrl = (): string | undefined => /http:\/\/127\.0\.0\.1:\d+\/mcp/.exec(server.stderr())?.[0];
      const url = await waitFor(bannerUrl, 5000, 'the banner');
      const connect = async (): Promise<Client> => {
        const client = new Client({ name: 'fixtures-test', version: '1.0.0' });
        clients.push(client);
        await client.connect(new StreamableHTTPClientTransport(new URL(url)), { timeout: 5000 });
        return client;
      };
      const alice = await connect();
      expect((await alice.listTools()).tools).toHaveLength(4);
      expect(textOf(await call(alice, 'create_booking', { guest: 'Cy', date: '2026-07-01' }))).toContain('BK-0001');
      const bob = await connect();
      expect(textOf(await call(bob, 'search_bookings', { guest: 'CY' }))).toContain('BK-0001');
      expect(readLedger(ledger)).toHaveLength(1);
      expect(await postWithHost(url, 'evil.example')).toBe(403);
      const attempt = call(bob, 'create_booking', { guest: 'Bo', date: '2026-06-01' }, 100);
      await expect(attempt).rejects.toMatchObject({ code: ErrorCode.RequestTimeout });
      await waitFor(() => readLedger(ledger).length === 2, 3000, 'the delayed booking');
    } finally {
      await Promise.allSettled(clients.map((client) => client.close()));
      server.child.kill('SIGTERM');
      const exit = await waitForExit(server.child, 3000).catch(() => undefined);
      if (exit === undefined) server.child.kill('SIGKILL');
      expect(exit).toEqual({ code: 0, signal: null });
    }
  });

  it('R-15 (item 6): BOOKING_STORE keeps the bookings table in a JSON-lines file — written whole after each write, read at start (ids go on, honoured keys stay unique across a restart); a bad line stops the start with one clear line', async () => {
    const store = join(tmp, `store-${++ledgerCount}.jsonl`);
    const env = { BOOKING_STORE: store, BOOKING_IDEMPOTENCY: 'honour' };
    const rows = (): Array<Record<string, unknown>> =>
      readFileSync(store, 'utf8')
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as Record<string, unknown>);
    await withClient(BOOKING_SERVER, env, async (client) => {
      expect(rows()).toEqual([]);
      await call(client, 'create_booking', { guest: 'Ann', date: '2026-05-01', idempotency_key: 'k-ann' });
      await call(client, 'create_booking', { guest: 'Ann', date: '2026-05-01', idempotency_key: 'k-ann' });
      await call(client, 'create_booking', { guest: 'Bo', date: '2026-05-02' });
      await call(client, 'cancel_booking', { booking_id: 'BK-0002' });
    });
    expect(rows().map((r) => [r['id'], r['guest'], r['status']])).toEqual([
      ['BK-0001', 'Ann', 'confirmed'],
      ['BK-0002', 'Bo', 'cancelled'],
    ]);
    await withClient(BOOKING_SERVER, env, async (client) => {
      expect(JSON.parse(textOf(await call(client, 'search_bookings', { guest: 'ann' })))).toHaveLength(1);
      const again = JSON.parse(
        textOf(await call(client, 'create_booking', { guest: 'Ann', date: '2026-05-01', idempotency_key: 'k-ann' })),
      );
      expect(again).toMatchObject({ id: 'BK-0001' });
      const next = JSON.parse(textOf(await call(client, 'create_booking', { guest: 'Cy', date: '2026-05-03' })));
      expect(next).toMatchObject({ id: 'BK-0003' });
    });
    expect(rows()).toHaveLength(3);
    const bad = join(tmp, `store-${++ledgerCount}.jsonl`);
    writeFileSync(bad, '{"id":"BK-0001","guest":"Ann"}\nnot json\n');
    const broken = spawnRaw(BOOKING_SERVER, { env: { BOOKING_STORE: bad } });
    expect(await waitForExit(broken.child, 5000)).toEqual({ code: 1, signal: null });
    expect(broken.stderr().trim()).toBe(`booking-server: BOOKING_STORE ${bad}: line 2 is not JSON`);
  });
});
