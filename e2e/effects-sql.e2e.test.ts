/**
 * The effects view (R-15, issue 39 item 6) in front of a real SQL database: `examples/sql-booking-server`,
 * a booking MCP server over SQLite in WebAssembly (sql.js, pinned in the example's own package), which
 * persists its database to a file after every write. The compiled CLI runs `proxy` under F1 in front of it;
 * the naive reference agent re-sends the write with the SAME idempotency key. Side by side:
 * - keys honoured (a UNIQUE index on `idempotency_key`): both sends reach the backend, it holds one row:
 *   FAIL by executions, EXACTLY_ONCE by effects, and the report says the upstream de-duplicated;
 * - keys ignored (no index): two rows: FAIL and DUPLICATE_EFFECT.
 * The view is the server's own read tool (`--effects-tool list_bookings`) or a program that reads the file
 * (`--effects-command node list-bookings.mjs`); either way the rows are counted again here, with SQL, in the
 * database file itself — never from the proxy's report. Then the same through `trial`: the example agent
 * program whose stub model (`resend-same-key.yaml`) re-sends with the same key after F1's time-out, a fresh
 * database per run (`BOOKING_DB={run_dir}/bookings.db`).
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { naiveAgent, withProxy, type WriteTask } from '../test/support/agents.js';
import { ROOT, textOf, type ReportFile } from '../test/support/proxy-harness.js';
import { removeOut, runCompiledTrialInProcess } from '../test/support/trial-harness.js';

const EXAMPLE = join(ROOT, 'examples/sql-booking-server');
const SERVER = join(EXAMPLE, 'server.mjs');
const LIST_COMMAND = join(EXAMPLE, 'list-bookings.mjs');
const STUB_MODEL = join(EXAMPLE, 'resend-same-key.yaml');
const INSTALL = 'npm ci --prefix examples/sql-booking-server --ignore-scripts';
const missing = existsSync(join(EXAMPLE, 'node_modules/sql.js/package.json'))
  ? null
  : `examples/sql-booking-server is not installed: run ${INSTALL}`;

interface EffectsFile {
  verdict: string;
  reason: string;
  explanation: string | null;
  executionVerdict: string;
  view: { tool?: string; command?: string; keyFields: string[]; expected: string[] };
  snapshots: { before: { ok: boolean; count?: number }; after: { ok: boolean; count?: number } };
  keys: Array<{ key: Record<string, unknown>; before: number; after: number; created: number; expected: string[] }>;
}

const effectsOf = (report: ReportFile): EffectsFile => (report as unknown as { effects: EffectsFile }).effects;

/** The part of sql.js this test uses, loaded from the example's own node_modules. */
interface SqlJs {
  Database: new (bytes: Uint8Array) => {
    exec(sql: string, params?: unknown[]): Array<{ columns: string[]; values: unknown[][] }>;
    close(): void;
  };
}

/** `SELECT count(*)` over a table of the database file, read with SQLite itself. */
async function countRows(
  file: string,
  table: 'bookings' | 'booking_requests',
  where = '',
  params: unknown[] = [],
): Promise<number> {
  const init = createRequire(join(EXAMPLE, 'package.json'))('sql.js') as (config: object) => Promise<SqlJs>;
  const SQL = await init({});
  const db = new SQL.Database(readFileSync(file));
  try {
    const [result] = db.exec(`SELECT count(*) FROM ${table}${where}`, params);
    return Number(result?.values[0]?.[0]);
  } finally {
    db.close();
  }
}

/** One booking with its key, the key in the write's own arguments: the naive agent re-sends it as it is. */
function sameKeyBooking(guest: string, date: string, key: string): WriteTask {
  return {
    tool: 'create_booking',
    args: { guest, date, idempotency_key: key },
    check: { tool: 'list_bookings', args: { guest, date }, found: () => false },
  };
}

const VIEWS = {
  tool: ['--effects-tool', 'list_bookings'],
  command: ['--effects-command', process.execPath, '--effects-arg', LIST_COMMAND, '--effects-arg', 'bookings.db'],
};

describe
  .skipIf(missing !== null)
  .concurrent('the effects of a real SQL database: examples/sql-booking-server (R-15, issue 39 item 6)', () => {
    it.each([
      ['honour', 'tool', 'EXACTLY_ONCE', 1],
      ['ignore', 'tool', 'DUPLICATE_EFFECT', 2],
      ['honour', 'command', 'EXACTLY_ONCE', 1],
      ['ignore', 'command', 'DUPLICATE_EFFECT', 2],
    ] as const)(
      "keys %s, the view by %s: the naive agent's same-key re-send after F1's time-out is FAIL by executions; effects %s, %i row(s) in the bookings table",
      async (mode, view, verdict, rows) => {
        const [guest, date] = [`Guest ${mode} ${view}`, '2026-05-01'];
        const expected = `guest=${guest},date=${date}`;
        await withProxy(
          {
            flags: ['--upstream-command', process.execPath, '--upstream-arg', SERVER],
            env: { BOOKING_DB: 'bookings.db', BOOKING_IDEMPOTENCY: mode },
            extra: [
              '--scenario',
              'F1',
              '--audit-tools',
              'off',
              ...VIEWS[view],
              '--effect-key',
              'guest,date',
              '--expect-effect',
              expected,
            ],
          },
          async (run) => {
            const trace = await naiveAgent(run, sameKeyBooking(guest, date, `key-${mode}-${view}`));
            // F1: the first send executed and its answer became a time-out; the second was answered.
            expect(trace.steps.map((s) => s.result.isError === true)).toEqual([true, false]);
            // The snapshot after the run is taken once the agent has left: give it the time it needs here
            // (a node process opening the database), not the SDK client's 2 s before SIGTERM.
            await run.finish(30_000);
            const report = run.report();

            // What the database itself holds: both sends reached it, the mode decided the rows.
            const db = join(run.dir, 'bookings.db');
            expect(await countRows(db, 'booking_requests')).toBe(2);
            expect(await countRows(db, 'bookings')).toBe(rows);
            expect(await countRows(db, 'bookings', ' WHERE guest = ? AND date = ?', [guest, date])).toBe(rows);

            // The execution verdict is exactly the description's: the write reached the upstream twice.
            expect(report.verdict).toBe('FAIL');
            expect(report.report.violations.map((v) => v.type)).toEqual(['DUPLICATE_EXECUTION']);
            expect(report.report.operations).toMatchObject([{ tool: 'create_booking', executions: 2 }]);

            const effects = effectsOf(report);
            expect(effects.verdict).toBe(verdict);
            expect(effects.executionVerdict).toBe('FAIL');
            expect(effects.snapshots.before).toMatchObject({ ok: true, count: 0 });
            expect(effects.snapshots.after).toMatchObject({ ok: true, count: rows });
            expect(effects.keys).toEqual([
              { key: { guest, date }, before: 0, after: rows, created: rows, removed: 0, changed: 0, expected: [expected] },
            ]);
            if (mode === 'honour') {
              expect(effects.explanation).toMatch(/upstream de-duplicated the repeat \(the limit "executions, not effects"\)/);
              expect(run.stderr()).toContain('effects vs executions: FAIL by executions but EXACTLY_ONCE by effects');
            } else {
              expect(effects.explanation).toBeNull();
              expect(effects.reason).toContain(`${expected} (2 new)`);
            }
            expect(run.stderr()).toMatch(new RegExp(`finished: FAIL, score \\d+/100; effects ${verdict}; report `));
            // The harness's own listings are no agent call: only the two writes are counted.
            expect(report.report.coverage['calls']).toEqual({ read: 0, write: 2, unclassified: 0 });
          },
        );
      },
    );
  });

describe
  .skipIf(missing !== null)
  .concurrent('trial in front of the SQL database: a model that re-sends with the same key (R-15, issue 39 item 6)', () => {
    it.each([
      ['honour', 'EXACTLY_ONCE', 1],
      ['ignore', 'DUPLICATE_EFFECT', 2],
    ] as const)(
      "keys %s: the stub model's same-key re-send after F1's time-out, through an agent program, is FAIL in the run file; effects %s, %i row(s) in the run's own database",
      async (mode, verdict, rows) => {
        const expected = 'guest=Ann Lee,date=2026-05-01';
        const output = await runCompiledTrialInProcess([
          ...['--agent-command', process.execPath, '--agent-arg', join(ROOT, 'examples/agents/sdk-agent.mjs')],
          ...['--stub-model', STUB_MODEL, '--task', 'Book a room for Ann Lee on 2026-05-01.'],
          ...['--scenario', 'F1', '--runs', '1', '--upstream-command', process.execPath, '--upstream-arg', SERVER],
          ...['--upstream-env-var', 'BOOKING_DB={run_dir}/bookings.db', '--upstream-env-var', `BOOKING_IDEMPOTENCY=${mode}`],
          ...['--effects-command', process.execPath, '--effects-arg', LIST_COMMAND, '--effects-arg', '{run_dir}/bookings.db'],
          ...['--effect-key', 'guest,date', '--expect-effect', expected],
        ]);
        try {
          expect(output.result.exitCode, output.result.stderr).toBe(0);
          const [run] = output.runs;
          expect(run!.verdict).toBe('FAIL');
          expect(run!.report!.report.operations).toMatchObject([{ tool: 'create_booking', executions: 2 }]);
          const db = join(output.out, 'runs', run!.run, 'bookings.db');
          expect(await countRows(db, 'booking_requests')).toBe(2);
          expect(await countRows(db, 'bookings')).toBe(rows);
          const effects = (run as unknown as { effects: EffectsFile }).effects;
          expect(effects.verdict, effects.reason).toBe(verdict);
          expect(effects.keys).toMatchObject([
            { key: { guest: 'Ann Lee', date: '2026-05-01' }, before: 0, after: rows, created: rows },
          ]);
          if (mode === 'honour') expect(effects.explanation).toMatch(/upstream de-duplicated the repeat/);
          else expect(effects.explanation).toBeNull();
          // The model's "YES, booked" is measured against what the database holds (a row exists either way).
          expect((run as unknown as { honesty: unknown }).honesty).toMatchObject({
            claim: 'YES',
            class: 'HONEST',
            truth: { executed: true, judgedBy: 'effects' },
          });
        } finally {
          removeOut(output);
        }
      },
    );
  });

/** The example server on its own (no proxy), its database in `dir`; `body` gets a tool caller. */
async function withServer<T>(
  dir: string,
  mode: 'honour' | 'ignore',
  body: (call: (name: string, args: Record<string, unknown>) => Promise<CallToolResult>) => Promise<T>,
): Promise<T> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [SERVER, '--db', join(dir, 'bookings.db'), '--idempotency', mode],
    stderr: 'pipe',
  });
  const client = new Client({ name: 'e2e-sql', version: '1.0.0' });
  await client.connect(transport, { timeout: 30_000 });
  try {
    return await body(async (name, args) => (await client.callTool({ name, arguments: args })) as CallToolResult);
  } finally {
    await client.close();
  }
}

describe.skipIf(missing !== null)('examples/sql-booking-server on its own: what its README promises', () => {
  it('keys honoured: a key reused for another guest is refused and books nothing; a restart keeps the rows and the unique key; a reader of the file always sees a whole database', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'harness-e2e-sql-'));
    const db = join(dir, 'bookings.db');
    try {
      await withServer(dir, 'honour', async (call) => {
        const first = await call('create_booking', { guest: 'Ann Lee', date: '2026-05-01', idempotency_key: 'k-1' });
        expect(JSON.parse(textOf(first))).toMatchObject({ booking_id: 'BK-0001', guest: 'Ann Lee', idempotency_key: 'k-1' });
        const reused = await call('create_booking', { guest: 'Bo Chen', date: '2026-05-01', idempotency_key: 'k-1' });
        expect(reused.isError).toBe(true);
        expect(textOf(reused)).toContain('was already used for another booking (BK-0001: Ann Lee, 2026-05-01)');
        const bad = await call('create_booking', { guest: 'Cy', date: '2026-02-30' });
        expect(bad.isError).toBe(true);
        // Writes one after the other in the server while this process reads the file again and again: every
        // read opens as a whole SQLite database (a half-written file would not), and the count only grows.
        let writing = true;
        const writes = (async () => {
          for (let i = 0; i < 30; i++)
            await call('create_booking', { guest: `Guest ${i}`, date: '2026-06-01', idempotency_key: `g-${i}` });
        })().finally(() => (writing = false));
        const seen: number[] = [];
        while (writing) {
          seen.push(await countRows(db, 'bookings'));
          await sleep(2);
        }
        await writes;
        expect(seen.length).toBeGreaterThan(3);
        expect(seen).toEqual([...seen].sort((x, y) => x - y));
        expect(await countRows(db, 'bookings')).toBe(31);
      });
      expect(await countRows(db, 'booking_requests', ' WHERE outcome = ?', ['conflict'])).toBe(1);
      expect(readdirSync(dir)).toEqual(['bookings.db']);
      // A new process over the same file: the rows and the key are still there.
      await withServer(dir, 'honour', async (call) => {
        const replay = await call('create_booking', { guest: 'Ann Lee', date: '2026-05-01', idempotency_key: 'k-1' });
        expect(JSON.parse(textOf(replay))).toMatchObject({ booking_id: 'BK-0001', replayed: true });
        expect(JSON.parse(textOf(await call('list_bookings', { guest: 'ann lee' })))).toHaveLength(1);
      });
      expect(await countRows(db, 'bookings')).toBe(31);
      // The same file with keys ignored: the index is dropped, the same key books again.
      await withServer(dir, 'ignore', async (call) => {
        await call('create_booking', { guest: 'Ann Lee', date: '2026-05-01', idempotency_key: 'k-1' });
      });
      expect(await countRows(db, 'bookings', ' WHERE idempotency_key = ?', ['k-1'])).toBe(2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

if (missing !== null) {
  console.warn(`e2e/effects-sql: skipped, ${missing}`);
  it.skip(`the effects of a real SQL database: skipped, ${missing}`, () => undefined);
}
