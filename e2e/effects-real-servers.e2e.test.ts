/**
 * The effects view in front of real servers nobody here wrote: the pinned
 * `@modelcontextprotocol/server-memory`, whose `read_graph` lists its entities (the harness calls it
 * itself), and `@modelcontextprotocol/server-filesystem`, whose files a listing command prints. Each shows
 * the two motivating cases: an upstream that de-duplicates by key is FAIL by executions and
 * EXACTLY_ONCE by what it holds (the report says why), and a duplicate written under another name — which
 * the execution judge cannot prove — is DUPLICATE_EFFECT. What each server holds is read again from its
 * own store (the memory file, the folder) to confirm the view.
 */
import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { endSession, memoryEntityTask, naiveAgent, withProxy } from '../test/support/agents.js';
import { ROOT, type ProxyRun, type ReportFile } from '../test/support/proxy-harness.js';

const MEMORY_SERVER = join(ROOT, 'node_modules/@modelcontextprotocol/server-memory/dist/index.js');
const FS_SERVER = join(ROOT, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');

interface EffectsFile {
  verdict: string;
  reason: string;
  explanation: string | null;
  executionVerdict: string;
  snapshots: { before: { ok: boolean; count?: number }; after: { ok: boolean; count?: number } };
  keys: Array<{ key: Record<string, unknown>; before: number; after: number; created: number; expected: string[] }>;
}

const effectsOf = (report: ReportFile): EffectsFile => (report as unknown as { effects: EffectsFile }).effects;

/** A fresh temp folder for `body`, removed afterwards. */
async function inTemp<T>(prefix: string, body: (dir: string) => Promise<T>): Promise<T> {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  try {
    return await body(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The entities server-memory stored in its file (JSON lines of type "entity"). */
function storedEntities(file: string): Array<{ name: string; entityType: string; observations: string[] }> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as { type: string; name: string; entityType: string; observations: string[] })
    .filter((item) => item.type === 'entity');
}

/** The proxy in front of server-memory with its memory file in its own folder; the effects view read_graph. */
function withMemory<T>(view: string[], body: (run: ProxyRun, memoryFile: string) => Promise<T>): Promise<T> {
  return inTemp('harness-e2e-memory-', (dir) => {
    const memoryFile = join(dir, 'memory.jsonl');
    return withProxy(
      {
        flags: ['--upstream-command', process.execPath, '--upstream-arg', MEMORY_SERVER],
        extra: [
          '--scenario',
          'F1',
          '--audit-tools',
          'off',
          '--effects-tool',
          'read_graph',
          '--effects-path',
          'entities',
          ...view,
        ],
        env: { MEMORY_FILE_PATH: memoryFile },
      },
      (run) => body(run, memoryFile),
    );
  });
}

/**
 * A listing command over the folder: every `*.json` file's content, one JSON line each (the folder's
 * records); no file prints nothing, which is zero records.
 */
function folderView(root: string): string[] {
  return [
    '--effects-command',
    'sh',
    '--effects-arg',
    '-c',
    '--effects-arg',
    'for f in "$0"/*.json; do [ -f "$f" ] && cat "$f" && echo; done; true',
    '--effects-arg',
    root,
  ];
}

/** The proxy in front of server-filesystem serving `root`, under F1, with the folder listed as the effects view. */
function withFilesystem<T>(extra: string[], body: (run: ProxyRun, root: string) => Promise<T>): Promise<T> {
  return inTemp('harness-e2e-fs-effects-', (root) =>
    withProxy(
      {
        flags: ['--upstream-command', process.execPath, '--upstream-arg', FS_SERVER, '--upstream-arg', root],
        extra: ['--scenario', 'F1', '--audit-tools', 'off', ...folderView(root), '--effect-key', 'guest,date', ...extra],
      },
      (run) => body(run, root),
    ),
  );
}

const ORDER = JSON.stringify({ guest: 'Ann Lee', date: '2026-05-01', room: 'double' });

describe.concurrent('effects of @modelcontextprotocol/server-memory, listed by its read_graph (R-15)', () => {
  it('R-15.2: it de-duplicates entities by name — the naive re-send under F1 is FAIL by executions, EXACTLY_ONCE by the graph, and the report says why', async () => {
    await withMemory(['--effect-key', 'name', '--expect-effect', 'name=Ann Lee'], async (run, memoryFile) => {
      await naiveAgent(run, memoryEntityTask('Ann Lee', 'guest', ['booked 2026-05-01']));
      const report = await endSession(run);
      expect(storedEntities(memoryFile).map((e) => e.name)).toEqual(['Ann Lee']);
      expect(report.verdict).toBe('FAIL');
      expect(report.report.violations.map((v) => v.type)).toEqual(['DUPLICATE_EXECUTION']);
      const effects = effectsOf(report);
      expect(effects.verdict).toBe('EXACTLY_ONCE');
      expect(effects.snapshots.before).toMatchObject({ ok: true, count: 0 });
      expect(effects.snapshots.after).toMatchObject({ ok: true, count: 1 });
      expect(effects.keys).toEqual([
        { key: { name: 'Ann Lee' }, before: 0, after: 1, created: 1, removed: 0, changed: 0, expected: ['name=Ann Lee'] },
      ]);
      expect(effects.explanation).toMatch(/the upstream de-duplicated the repeat \(the limit "executions, not effects"\)/);
      // read_graph is the harness's own call: not one of the agent's operations.
      expect(report.report.operations.map((op) => op.tool)).toEqual(['create_entities']);
      expect(run.stderr()).toContain('effects vs executions: FAIL by executions but EXACTLY_ONCE by effects');
    });
  });

  it('R-15.2: a retry under a new entity name is a second entity for the same booking — DUPLICATE_EFFECT by what it is, which the executions cannot prove', async () => {
    const booking = (name: string) => ({
      entities: [{ name, entityType: 'booking', observations: ['guest Ann Lee', 'date 2026-05-01'] }],
    });
    await withMemory(['--effect-key', 'entityType,observations'], async (run, memoryFile) => {
      // The agent names each attempt anew (its own id per try): F1 times the first out after it executed.
      expect((await run.call('create_entities', booking('booking-1'))).isError).toBe(true);
      expect((await run.call('create_entities', booking('booking-2'))).isError).not.toBe(true);
      const report = await endSession(run);
      expect(storedEntities(memoryFile).map((e) => e.name)).toEqual(['booking-1', 'booking-2']);
      expect(report.verdict).toBe('PASS');
      const effects = effectsOf(report);
      expect(effects.verdict).toBe('DUPLICATE_EFFECT');
      expect(effects.keys).toEqual([
        {
          key: { entityType: 'booking', observations: ['guest Ann Lee', 'date 2026-05-01'] },
          before: 0,
          after: 2,
          created: 2,
          removed: 0,
          changed: 0,
          expected: [],
        },
      ]);
      expect(effects.explanation).toMatch(
        /^PASS by executions with OTHER_WRITE_AFTER_UNCERTAIN_ATTEMPT, but DUPLICATE_EFFECT by effects: .* a duplicate the execution judge could not prove$/,
      );
    });
  });
});

describe.concurrent('effects of @modelcontextprotocol/server-filesystem, listed by a command over its folder (R-15)', () => {
  it('R-15.2: write_file replaces a file by its path — the re-send under F1 (its idempotent hint ignored) is FAIL by executions, EXACTLY_ONCE by the folder', async () => {
    await withFilesystem(['--idempotent-hint', 'ignore'], async (run, root) => {
      const path = join(root, 'order-1.json');
      expect((await run.call('write_file', { path, content: ORDER })).isError).toBe(true);
      expect((await run.call('write_file', { path, content: ORDER })).isError).not.toBe(true);
      const report = await endSession(run);
      expect(readdirSync(root)).toEqual(['order-1.json']);
      expect(report.verdict).toBe('FAIL');
      const effects = effectsOf(report);
      expect(effects.verdict).toBe('EXACTLY_ONCE');
      expect(effects.snapshots.before).toMatchObject({ ok: true, count: 0 });
      expect(effects.snapshots.after).toMatchObject({ ok: true, count: 1 });
      expect(effects.explanation).toMatch(/the upstream de-duplicated the repeat/);
    });
  });

  it('R-15.2: the order written again under another file name is two files for one booking — DUPLICATE_EFFECT, beside a verdict that could not prove it', async () => {
    await withFilesystem([], async (run, root) => {
      expect((await run.call('write_file', { path: join(root, 'order-1.json'), content: ORDER })).isError).toBe(true);
      expect((await run.call('write_file', { path: join(root, 'order-2.json'), content: ORDER })).isError).not.toBe(true);
      const report = await endSession(run);
      expect(readdirSync(root).sort()).toEqual(['order-1.json', 'order-2.json']);
      expect(report.verdict).toBe('PASS');
      const effects = effectsOf(report);
      expect(effects.verdict).toBe('DUPLICATE_EFFECT');
      expect(effects.reason).toContain('guest=Ann Lee,date=2026-05-01 (2 new)');
      expect(effects.snapshots.after).toMatchObject({ ok: true, count: 2 });
      expect(effects.explanation).toMatch(
        /^PASS by executions with OTHER_WRITE_AFTER_UNCERTAIN_ATTEMPT, but DUPLICATE_EFFECT by effects: .* a duplicate the execution judge could not prove$/,
      );
    });
  });
});
