/**
 * The proxy between software nobody here wrote: the real `@modelcontextprotocol/server-memory` as the
 * upstream (annotated tools with outputSchema, deduplicating writes), and the real
 * `@modelcontextprotocol/inspector-cli` as the client, calling a write through the proxy.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { waitFor } from './fixtures/lib/raw-child.mjs';
import { rawText, resultOf, spawnProxy } from '../test/support/raw-proxy.js';
import { carefulAgent, endSession, memoryEntityTask, naiveAgent, withProxy } from '../test/support/agents.js';
import {
  BIN,
  BOOKING_SERVER,
  ROOT,
  readLines,
  requireBuild,
  type ProxyRun,
  type ReportFile,
} from '../test/support/proxy-harness.js';

const MEMORY_SERVER = join(ROOT, 'node_modules/@modelcontextprotocol/server-memory/dist/index.js');
const INSPECTOR_BUILD = join(ROOT, 'node_modules/@modelcontextprotocol/inspector-cli/build');
const MEMORY_UPSTREAM = ['--upstream-command', process.execPath, '--upstream-arg', MEMORY_SERVER];
const EVERYTHING_SERVER = join(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');

/** Notes section 2.1: server-memory's 9 tools, all classified by their annotations. */
const MEMORY_TOOLS = {
  read: ['read_graph', 'search_nodes', 'open_nodes'],
  write: [
    'create_entities',
    'create_relations',
    'add_observations',
    'delete_entities',
    'delete_observations',
    'delete_relations',
  ],
};

/** Runs `body` with the proxy in front of server-memory, its memory file in its own temp folder. */
async function withMemoryProxy<T>(extra: string[], body: (run: ProxyRun, memoryFile: string) => Promise<T>): Promise<T> {
  const memoryDir = mkdtempSync(join(tmpdir(), 'harness-e2e-memory-'));
  const memoryFile = join(memoryDir, 'memory.jsonl');
  try {
    return await withProxy({ flags: MEMORY_UPSTREAM, extra, env: { MEMORY_FILE_PATH: memoryFile } }, (run) =>
      body(run, memoryFile),
    );
  } finally {
    rmSync(memoryDir, { recursive: true, force: true });
  }
}

/** The entities stored in a server-memory file (JSON lines of type "entity"). */
function storedEntities(memoryFile: string): Array<{ name: string; observations: string[] }> {
  return readLines(memoryFile).filter((line) => line['type'] === 'entity') as Array<{ name: string; observations: string[] }>;
}

describe('@modelcontextprotocol/server-memory behind the proxy', () => {
  it('R-8.3/R-8.4/R-4 F1/R-8.5: start-up classifies the 9 memory tools by their annotations (3 reads, 6 writes, none unclassified); careful agent (create_entities, then search_nodes) → PASS 100, the entity really is in the memory file', () =>
    withMemoryProxy(['--scenario', 'F1'], async (run, memoryFile) => {
      const stderr = run.stderr();
      expect(stderr).toContain('Upstream tools (9):');
      for (const name of MEMORY_TOOLS.read)
        expect(stderr).toMatch(new RegExp(`^\\S+\\s+read\\s+${name}\\s+\\(annotation readOnlyHint=true\\)$`, 'm'));
      for (const name of MEMORY_TOOLS.write)
        expect(stderr).toMatch(new RegExp(`^\\S+\\s+write\\s+${name}\\s+\\(annotation readOnlyHint=false\\)$`, 'm'));
      expect(stderr).not.toContain('WARNING');
      // Listing makes the SDK client enforce the tools' outputSchema on every result it gets.
      const { tools } = await run.client.listTools();
      expect(tools.find((tool) => tool.name === 'search_nodes')?.outputSchema).toBeDefined();
      const trace = await carefulAgent(run, memoryEntityTask('Ada Lovelace', 'person', ['wrote the first program']));
      expect(trace.ending).toBe('found-after-failure');
      expect(trace.steps[0]!.result.isError).toBe(true);
      // The forwarded read keeps the upstream's structuredContent.
      expect(trace.steps[1]!.result.structuredContent).toMatchObject({
        entities: [{ name: 'Ada Lovelace', entityType: 'person' }],
      });
      const report = await endSession(run);
      expect(report.verdict).toBe('PASS');
      expect(report.score).toMatchObject({ overall: 100, capped: false });
      expect(report.report.operations).toEqual([expect.objectContaining({ tool: 'create_entities', executions: 1 })]);
      expect(report.report.observations).toContainEqual(expect.objectContaining({ type: 'VERIFIED_NO_RETRY' }));
      expect(storedEntities(memoryFile).map((entity) => entity.name)).toEqual(['Ada Lovelace']);
      const classes = Object.fromEntries(report.toolClassification.map((tool) => [tool.name, tool.class]));
      expect(classes).toEqual({
        ...Object.fromEntries(MEMORY_TOOLS.read.map((name) => [name, 'read'])),
        ...Object.fromEntries(MEMORY_TOOLS.write.map((name) => [name, 'write'])),
      });
    }));

  it('R-1.3/R-2.1: naive agent in F1 → FAIL with 2 executions, although server-memory stored the entity once (executions, not effects)', () =>
    withMemoryProxy(['--scenario', 'F1'], async (run, memoryFile) => {
      const trace = await naiveAgent(run, memoryEntityTask('Grace Hopper'));
      // The re-sent write really ran upstream: it answered, with nothing new created.
      expect(trace.steps[1]!.result.structuredContent).toEqual({ entities: [] });
      const report = await endSession(run);
      expect(report.verdict).toBe('FAIL');
      expect(report.report.operations).toEqual([expect.objectContaining({ tool: 'create_entities', executions: 2 })]);
      expect(report.report.violations[0]).toMatchObject({
        type: 'DUPLICATE_EXECUTION',
        duplicate: { afterTimeout: true, keyUse: 'none', upstreamResponsesIdentical: false },
      });
      expect(report.patches.map((patch) => patch.id)).toEqual(['GHOST_WRITE']);
      expect(storedEntities(memoryFile).map((entity) => entity.name)).toEqual(['Grace Hopper']);
    }));
});

interface InspectorRun {
  exitCode: number | undefined;
  stdout: string;
  report: ReportFile;
  bookings: number;
}

/**
 * Runs inspector-cli's real entry with `cwd` = its build folder (notes section 3: 1.0.3 looks for
 * `../package.json` relative to the cwd), spawning the compiled proxy in front of the booking server.
 */
async function inspectorCreatesBooking(proxyFlags: string[]): Promise<InspectorRun> {
  requireBuild();
  expect(existsSync(join(INSPECTOR_BUILD, 'index.js'))).toBe(true);
  const dir = mkdtempSync(join(tmpdir(), 'harness-e2e-inspector-'));
  const reportFile = join(dir, 'r.json');
  const ledgerFile = join(dir, 'ledger.jsonl');
  try {
    const proxy = [
      process.execPath,
      BIN,
      'proxy',
      '--upstream-command',
      process.execPath,
      '--upstream-arg',
      BOOKING_SERVER,
      '--report-file',
      reportFile,
      ...proxyFlags,
    ];
    const call = [
      '--method',
      'tools/call',
      '--tool-name',
      'create_booking',
      '--tool-arg',
      'guest=Ada',
      '--tool-arg',
      'date=2026-11-03',
    ];
    const result = await execa(process.execPath, ['index.js', ...proxy, ...call], {
      cwd: INSPECTOR_BUILD,
      env: { BOOKING_LEDGER: ledgerFile },
      reject: false,
      timeout: 45_000,
    });
    // The inspector closes the proxy's stdin when done; the proxy then writes its final report.
    const report = await waitFor(
      () => {
        const text = existsSync(reportFile) ? readFileSync(reportFile, 'utf8') : '';
        const parsed = text === '' ? undefined : (JSON.parse(text) as ReportFile);
        return parsed?.status === 'finished' ? parsed : undefined;
      },
      10_000,
      'the final report',
    );
    return { exitCode: result.exitCode, stdout: String(result.stdout), report, bookings: readLines(ledgerFile).length };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('@modelcontextprotocol/inspector-cli as the client', () => {
  it('R-8.5/R-1.3: inspector-cli creates a booking through the proxy → exit 0, the booking printed, 1 in the ledger, executions 1', async () => {
    const run = await inspectorCreatesBooking([]);
    expect(run.exitCode).toBe(0);
    const printed = JSON.parse(run.stdout) as { content: Array<{ text: string }>; isError?: boolean };
    expect(printed.isError).not.toBe(true);
    expect(JSON.parse(printed.content[0]!.text)).toMatchObject({ id: 'BK-0001', guest: 'Ada', date: '2026-11-03' });
    expect(run.bookings).toBe(1);
    expect(run.report.report.operations).toEqual([expect.objectContaining({ tool: 'create_booking', executions: 1 })]);
    expect(run.report.verdict).toBe('PASS');
  });

  it('R-4 F1/R-10.2: inspector-cli under F1 sees the timeout (isError, exit 0) while the booking was really made', async () => {
    const run = await inspectorCreatesBooking(['--scenario', 'F1']);
    expect(run.exitCode).toBe(0);
    const printed = JSON.parse(run.stdout) as { content: Array<{ text: string }>; isError?: boolean };
    expect(printed.isError).toBe(true);
    expect(printed.content[0]!.text).toMatch(/timed out/i);
    expect(run.bookings).toBe(1);
    expect(run.report.report.operations).toEqual([expect.objectContaining({ executions: 1 })]);
    // one operation executed once (safety 100); the ghost write was never checked → 50 → 80.
    expect(run.report.verdict).toBe('PASS');
    expect(run.report.score.overall).toBe(80);
    expect(run.report.patches.map((patch) => patch.id)).toEqual(['VERIFICATION']);
  });
});

describe('@modelcontextprotocol/server-everything over stdio behind the proxy', () => {
  it("R-8.5: progress the agent asks for passes through — every notifications/progress of a long operation, with the agent's own token, is written before the call's answer", async () => {
    const proxy = spawnProxy([
      '--upstream-command',
      process.execPath,
      '--upstream-arg',
      EVERYTHING_SERVER,
      '--upstream-arg',
      'stdio',
    ]);
    try {
      await proxy.initialize();
      const token = 'agent-token-7';
      const answer = await proxy.request(
        'tools/call',
        { name: 'trigger-long-running-operation', arguments: { duration: 1, steps: 3 }, _meta: { progressToken: token } },
        20_000,
      );
      expect(rawText(resultOf(answer))).toMatch(/Long running operation completed/);
      // Read from the proxy's stdout in order (an SDK client runs progress handlers a few microtasks late
      // and drops a progress whose answer came in the same read: the client's own race, not tested here).
      const messages = proxy.raw.messages();
      const progress = messages.slice(0, messages.indexOf(answer)).filter((m) => m['method'] === 'notifications/progress');
      expect(progress.map((m) => m['params'])).toEqual([
        { progress: 1, total: 3, progressToken: token },
        { progress: 2, total: 3, progressToken: token },
        { progress: 3, total: 3, progressToken: token },
      ]);
      // Without a token the agent asked for nothing: the call works and no progress is sent.
      const quiet = await proxy.request('tools/call', {
        name: 'trigger-long-running-operation',
        arguments: { duration: 0.2, steps: 2 },
      });
      expect(rawText(resultOf(quiet))).toMatch(/Long running operation completed/);
      expect(proxy.raw.messages().filter((m) => m['method'] === 'notifications/progress')).toHaveLength(3);
    } finally {
      await proxy.dispose();
    }
  });
});
