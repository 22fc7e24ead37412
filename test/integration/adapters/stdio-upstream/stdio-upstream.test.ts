import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StdioUpstreamSide, type StdioUpstreamOptions } from '../../../../src/adapters/stdio-upstream/index.js';
import type { Logger } from '../../../../src/ports/logger.port.js';
import type { UpstreamCallOutcome, UpstreamExit } from '../../../../src/ports/upstream-side.port.js';
import { withSide } from '../../../support/with-side.js';

const fixtures = fileURLToPath(new URL('../../../fixtures/upstream/', import.meta.url));
const lineServer = join(fixtures, 'line-server.mjs');

interface LogRecord {
  level: keyof Logger;
  fields: Record<string, unknown>;
  message: string;
}

function recordingLogger(): { logger: Logger; records: LogRecord[] } {
  const records: LogRecord[] = [];
  const at = (level: keyof Logger) => (fields: Record<string, unknown>, message: string) => {
    records.push({ level, fields, message });
  };
  return { logger: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') }, records };
}

function upstream(options: Partial<StdioUpstreamOptions> = {}): StdioUpstreamSide {
  return new StdioUpstreamSide({
    command: process.execPath,
    args: [lineServer],
    env: {},
    clientName: 'stdio-upstream-test',
    clientVersion: '0.0.0',
    graceMs: 500,
    ...options,
  });
}

function exitOf(side: StdioUpstreamSide): Promise<UpstreamExit> {
  return new Promise((resolve) => side.onExit(resolve));
}

function call(side: StdioUpstreamSide, name: string, args?: unknown, timeoutMs = 5000): Promise<UpstreamCallOutcome> {
  return side.callTool({ name, arguments: args }, { timeoutMs });
}

function resultOf(outcome: UpstreamCallOutcome): Record<string, unknown> {
  if (outcome.kind !== 'result') throw new Error(`expected a result, got ${JSON.stringify(outcome)}`);
  return outcome.result;
}

/** Alive = signalable and not a zombie waiting for a reaper. */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

async function waitUntil(condition: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return condition();
}

describe('StdioUpstreamSide', () => {
  it('R-8.7: the upstream inherits the full environment plus the extra variables, in the given cwd', async () => {
    const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'stdio-upstream-')));
    process.env['CUONZ_PARENT_ONLY'] = 'from-parent';
    const side = upstream({ cwd, env: { CUONZ_EXTRA: 'extra-value' } });
    try {
      const info = await side.connect();
      expect(info).toEqual({
        instructions: 'FIXTURE INSTRUCTIONS',
        serverName: 'line-fixture',
        serverVersion: '1.2.3',
        capabilities: { tools: {} },
      });
      const result = resultOf(await call(side, 'env', { names: ['CUONZ_PARENT_ONLY', 'CUONZ_EXTRA'] }));
      expect(result['structuredContent']).toEqual({
        cwd,
        env: { CUONZ_PARENT_ONLY: 'from-parent', CUONZ_EXTRA: 'extra-value' },
      });
    } finally {
      delete process.env['CUONZ_PARENT_ONLY'];
      await side.close();
      rmSync(cwd, { recursive: true, force: true });
    }
  });

  it('R-8.7: a crash mid-call is connection-lost, later calls are unavailable, onExit carries the stderr tail', async () => {
    await withSide(upstream(), async (side) => {
      await side.connect();
      const exit = exitOf(side);
      expect((await call(side, 'crash')).kind).toBe('connection-lost');
      expect(await exit).toEqual({
        expected: false,
        code: 3,
        signal: null,
        detail: 'starting crash\nfatal: crashing on purpose',
      });
      expect(await call(side, 'echo')).toEqual({ kind: 'unavailable', detail: 'the upstream is gone (exit code 3)' });
    });
  });

  it('R-8.7: an answer written without its final newline just before the upstream exits is its answer, not a lost call', async () => {
    await withSide(upstream(), async (side) => {
      await side.connect();
      const exit = exitOf(side);
      expect(resultOf(await call(side, 'last-words'))['content']).toEqual([{ type: 'text', text: 'said without a newline' }]);
      expect(await exit).toMatchObject({ expected: false, code: 0 });
    });
  });

  it('R-8.8: EPIPE on the upstream stdin ends the upstream without an uncaught error', async () => {
    await withSide(upstream({ graceMs: 200 }), async (side) => {
      await side.connect();
      const exit = exitOf(side);
      expect(resultOf(await call(side, 'close-stdin'))['content']).toEqual([{ type: 'text', text: 'stdin closed' }]);
      expect(await call(side, 'echo')).toMatchObject({ kind: 'connection-lost', detail: expect.stringContaining('EPIPE') });
      expect((await call(side, 'echo')).kind).toBe('unavailable');
      expect(await exit).toMatchObject({ expected: false, signal: 'SIGTERM' });
    });
  });

  it('R-8.9: a missing command fails start-up with one line', async () => {
    await withSide(upstream({ command: 'no-such-binary-cuonz', args: [] }), async (side) => {
      await expect(side.connect()).rejects.toThrow(/^upstream command not found: no-such-binary-cuonz$/);
    });
  });

  it('R-8.9: a command the spawn refuses at once (empty; the CLI refuses it earlier) fails start-up with one line, not a throw', async () => {
    await withSide(upstream({ command: '', args: [] }), async (side) => {
      await expect(side.connect()).rejects.toThrow(/^could not start the upstream command : The argument 'file' cannot be empty/);
    });
  });

  it('R-8.9: a process that dies while the SDK is still loading is reported with its exit code (spawn happens first)', async () => {
    const realKit = () => import('../../../../src/adapters/stdio-upstream/sdk-kit.js');
    // eslint-disable-next-line prefer-const -- assigned after the closure below that reads it is created
    let side!: StdioUpstreamSide;
    // The SDK half arrives only after the process has exited: the window between spawn and handshake.
    const loadSdk = async () => {
      await exitOf(side);
      return realKit();
    };
    side = upstream({ args: ['-e', 'process.exit(7)'], loadSdk });
    try {
      await expect(side.connect()).rejects.toThrow(/^upstream exited before the MCP handshake \(exit code 7\)$/);
    } finally {
      await side.close();
    }
  });

  it('R-8.9: an SDK that cannot be loaded fails start-up with one line and ends the process just spawned', async () => {
    const side = upstream({
      args: ['-e', 'setInterval(() => {}, 1000)'],
      loadSdk: () => Promise.reject(new Error("Cannot find package 'zod'")),
    });
    const exit = exitOf(side);
    try {
      await expect(side.connect()).rejects.toThrow(/^could not load the MCP SDK: Cannot find package 'zod'$/);
      expect(await exit).toMatchObject({ expected: true });
      expect((await call(side, 'echo')).kind).toBe('unavailable');
    } finally {
      await side.close();
    }
  });

  it('R-8.9: an upstream that exits before the handshake fails start-up with its exit code and last stderr line', async () => {
    await withSide(upstream({ args: [join(fixtures, 'exit-early.mjs')] }), async (side) => {
      await expect(side.connect()).rejects.toThrow(
        /^upstream exited before the MCP handshake \(exit code 1\): boom: missing config file$/,
      );
    });
  });

  it('R-8.8: an upstream that never answers initialize fails start-up after the connect timeout and is ended', async () => {
    const side = upstream({ args: ['-e', 'setInterval(() => {}, 1000)'], connectTimeoutMs: 300, graceMs: 200 });
    const exit = exitOf(side);
    try {
      await expect(side.connect()).rejects.toThrow(/^upstream did not answer initialize within 300 ms$/);
      expect(await exit).toMatchObject({ expected: true, code: null, signal: 'SIGTERM' });
    } finally {
      await side.close();
    }
  });

  it('R-8.8: close() kills a sh -c wrapper and its grandchild that ignores SIGTERM', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'stdio-upstream-'));
    const pidFile = join(dir, 'pid');
    const script = `"${process.execPath}" "${join(fixtures, 'stubborn.mjs')}" "${pidFile}"; true`;
    const side = upstream({ command: 'sh', args: ['-c', script], graceMs: 300 });
    let grandchild = 0;
    try {
      await side.connect();
      grandchild = Number(readFileSync(pidFile, 'utf8'));
      expect(isAlive(grandchild)).toBe(true);
      const exit = exitOf(side);
      await side.close();
      expect(await waitUntil(() => !isAlive(grandchild), 2000)).toBe(true);
      expect((await exit).expected).toBe(true);
    } finally {
      if (grandchild > 0 && isAlive(grandchild)) process.kill(grandchild, 'SIGKILL');
      await side.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('R-8.8: an answer arriving during the shut-down grace period still resolves its call; close() is idempotent', async () => {
    await withSide(upstream({ graceMs: 2000 }), async (side) => {
      await side.connect();
      const exit = exitOf(side);
      const pending = call(side, 'slow', { ms: 300 });
      await new Promise((resolve) => setTimeout(resolve, 50));
      const closing = side.close();
      expect(resultOf(await pending)['content']).toEqual([{ type: 'text', text: 'slept 300' }]);
      await Promise.all([closing, side.close()]);
      expect(await exit).toMatchObject({ expected: true, code: 0 });
      expect((await call(side, 'echo')).kind).toBe('unavailable');
    });
  });
});

// The calls after which the upstream stays usable share one upstream process (and its recording logger).
describe('StdioUpstreamSide, one upstream for the calls that leave it usable', () => {
  const { logger, records } = recordingLogger();
  let side: StdioUpstreamSide;
  beforeAll(async () => {
    side = upstream({ logger });
    await side.connect();
  });
  afterAll(() => side.close());

  it('R-8.5: tools/list follows 3 pages verbatim, keeps unknown fields and malformed tools, drops nameless entries', async () => {
    const tools = await side.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['echo', 'malformed', 'fail']);
    expect(tools[0]?.['x_vendor_ext']).toEqual({ keep: true });
    expect(tools[1]).toEqual({
      name: 'malformed',
      inputSchema: { type: 'string' },
      annotations: { readOnlyHint: 'true', customAnnot: 1 },
    });
    expect(records.filter((r) => r.level === 'warn').map((r) => r.fields)).toEqual([{ page: 2, index: 1 }]);
  });

  it('R-8.5: tools/call forwards name, arguments (incl. an own __proto__ key) and _meta verbatim, and the result verbatim', async () => {
    const args: unknown = JSON.parse('{"__proto__":{"polluted":true},"amount":"129.00"}');
    const meta = { progressToken: 'p-1', 'x-trace': 'abc' };
    const result = resultOf(await side.callTool({ name: 'echo', arguments: args, meta }, { timeoutMs: 5000 }));
    expect(result['_meta']).toEqual({ m: 1 });
    expect(result['extra']).toBe('x');
    const received = (result['structuredContent'] as { params: Record<string, unknown> }).params;
    expect(received['name']).toBe('echo');
    expect(received['_meta']).toEqual(meta);
    const receivedArgs = received['arguments'] as object;
    expect(Object.getOwnPropertyDescriptor(receivedArgs, '__proto__')?.value).toEqual({ polluted: true });
    expect(Object.getOwnPropertyDescriptor(receivedArgs, 'amount')?.value).toBe('129.00');
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('R-1.3: a JSON-RPC error reply is a protocol-error with the upstream code, unprefixed message and data', async () => {
    expect(await call(side, 'fail')).toEqual({
      kind: 'protocol-error',
      code: -32602,
      message: 'Invalid params from upstream',
      data: { field: 'x' },
    });
    // A real reply carrying the SDK's own timeout code is still the upstream's error, not a timeout.
    expect(await call(side, 'sdk-code-error')).toEqual({
      kind: 'protocol-error',
      code: -32001,
      message: 'upstream says timeout',
    });
  });

  it('R-8.7: a garbage line on the upstream stdout is ignored with a debug log', async () => {
    const result = resultOf(await call(side, 'garbage'));
    expect(result['content']).toEqual([{ type: 'text', text: 'after garbage' }]);
    expect(records).toContainEqual({
      level: 'debug',
      fields: { reason: 'not JSON', line: 'this line is not JSON at all' },
      message: 'ignored a line on the upstream stdout',
    });
  });

  it('R-8.7: 200 parallel calls are all answered, each with its own result', async () => {
    const outcomes = await Promise.all(Array.from({ length: 200 }, (_, i) => call(side, 'echo', { i })));
    const seen = outcomes.map((outcome) => {
      const content = resultOf(outcome)['structuredContent'] as { params: { arguments: { i: number } } };
      return content.params.arguments.i;
    });
    expect(seen).toEqual(Array.from({ length: 200 }, (_, i) => i));
  });
});
