/**
 * The demo MCP server in-process: the handler is called directly, with a hand-driven clock, a
 * fixed random source and an in-memory report sink. The e2e test covers the real process over stdio.
 */
import { documentText } from '../../../src/domain/report/report-document.js';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/adapters/time/manual-clock.js';
import { createDemoHandler } from '../../../src/app/demo/demo-server.js';
import { DEMO_TOOL_NAMES } from '../../../src/app/demo/demo-tools.js';
import type { AgentSessionHandler } from '../../../src/ports/agent-side.port.js';
import type { ToolCallResult } from '../../../src/ports/shapes/mcp-shapes.js';
import { deepObject, STACK_DEEP } from '../../support/deep-values.js';

type Json = Record<string, unknown>;
const FORBIDDEN_SCHEMA_KEYS = ['$schema', 'pattern', 'format', 'propertyNames'];

/**
 * Every key anywhere inside a tool descriptor, except the property NAMES inside `properties` (a
 * parameter may be called `format`, as get_report's is; only the JSON Schema keyword is forbidden).
 */
function schemaKeys(value: unknown, into: Set<string> = new Set()): Set<string> {
  if (typeof value !== 'object' || value === null) return into;
  for (const [key, child] of Object.entries(value)) {
    into.add(key);
    if (key === 'properties' && typeof child === 'object' && child !== null) {
      for (const propertySchema of Object.values(child)) schemaKeys(propertySchema, into);
    } else schemaKeys(child, into);
  }
  return into;
}

class Harness {
  readonly clock = new ManualClock(1_000_000);
  readonly published: string[] = [];
  failWrites = false;
  readonly handler: AgentSessionHandler;

  constructor(maxSessions?: number, options: { timer?: boolean } = {}) {
    let n = 0;
    this.handler = createDemoHandler({
      clock: this.clock,
      ...(options.timer === true ? { timer: this.clock } : {}),
      random: { next: () => ((n += 1) * 0.137) % 1 },
      reportSink: {
        publish: async (json) => {
          if (this.failWrites) throw new Error('EACCES: permission denied');
          this.published.push(typeof json === 'string' ? json : documentText([...json]));
        },
      },
      reportFileLabel: '.cuonztech/audit-report.json',
      harnessVersion: '0.0.0-test',
      ...(maxSessions !== undefined ? { maxSessions } : {}),
    });
  }

  call(name: string, args?: unknown): Promise<ToolCallResult> {
    return this.handler.callTool(
      { name, ...(args !== undefined ? { arguments: args } : {}) },
      { signal: new AbortController().signal },
    );
  }

  async text(name: string, args?: unknown): Promise<string> {
    const result = await this.call(name, args);
    expect(result.isError, textOf(result)).toBeUndefined();
    return textOf(result);
  }

  async json(name: string, args?: unknown): Promise<Json> {
    return JSON.parse(await this.text(name, args)) as Json;
  }

  async start(args: Json = {}): Promise<string> {
    return (await this.json('start_session', args))['session_id'] as string;
  }

  async error(name: string, args?: unknown): Promise<string> {
    const result = await this.call(name, args);
    expect(result.isError).toBe(true);
    return textOf(result);
  }

  async reportJson(sessionId: string): Promise<Json> {
    return this.json('get_report', { session_id: sessionId, format: 'json' });
  }
}

function textOf(result: ToolCallResult): string {
  const block = result.content?.[0] as { text?: string } | undefined;
  return block?.text ?? '';
}

describe('demo server tools', () => {
  it('R-12: lists exactly the 7 tools and list_records (R-15.1), schemas without $schema, pattern, format or propertyNames', async () => {
    expect(schemaKeys({ properties: { url: { type: 'string', format: 'uri' } } }).has('format')).toBe(true);
    expect(schemaKeys({ properties: { format: { type: 'string' } } }).has('format')).toBe(false);
    const tools = await new Harness().handler.listTools();
    expect(tools.map((t) => t.name)).toEqual([...DEMO_TOOL_NAMES]);
    expect(DEMO_TOOL_NAMES).toEqual([
      'start_session',
      'execute_call',
      'get_report',
      'get_score',
      'list_scenarios',
      'reset_session',
      'delete_session',
      'list_records',
    ]);
    expect(tools.find((t) => t.name === 'list_records')?.annotations).toMatchObject({ readOnlyHint: true });
    for (const tool of tools) {
      expect(tool.inputSchema?.['type']).toBe('object');
      const keys = schemaKeys(tool);
      for (const forbidden of FORBIDDEN_SCHEMA_KEYS) expect(keys.has(forbidden), `${tool.name} has ${forbidden}`).toBe(false);
    }
  });

  it('R-12: tool names match exactly; an unknown tool is an isError result', async () => {
    const h = new Harness();
    expect(await h.error('Start_session')).toContain('unknown tool');
    expect(await h.error('start_session ')).toContain('start_session, execute_call');
  });

  it('R-12: list_scenarios names F1–F5 and chaos with their summaries and when they fail', async () => {
    const text = await new Harness().text('list_scenarios');
    for (const id of ['F1', 'F2', 'F3', 'F4', 'F5', 'chaos']) expect(text).toMatch(new RegExp(`^${id}.*FAIL when`, 'm'));
    expect(text).toContain('ghost write');
  });
});

describe('demo server: list_records, the records its simulated backend holds (R-15.1)', () => {
  it('R-15.1: every executed write is one record {session_id, id, tool, arguments}; reads, and writes a fault kept from the backend, are none', async () => {
    const h = new Harness();
    const a = await h.start({ scenario: 'F2' });
    const b = await h.start({ scenario: 'none' });
    expect(await h.json('list_records')).toEqual({ records: [] });
    // F2 refuses the first write (nothing executed); the re-send executes.
    await h.json('execute_call', { session_id: a, tool: 'create_booking', arguments: { guest: 'Ann' } });
    await h.json('execute_call', { session_id: a, tool: 'create_booking', arguments: { guest: 'Ann' } });
    await h.json('execute_call', { session_id: a, tool: 'search_bookings', arguments: { guest: 'Ann' } });
    await h.json('execute_call', { session_id: b, tool: 'pay_invoice', arguments: { amount: 129 }, class: 'write' });
    const all = await h.call('list_records');
    const expected = [
      { session_id: a, id: 'demo-1', tool: 'create_booking', arguments: { guest: 'Ann' } },
      { session_id: b, id: 'demo-1', tool: 'pay_invoice', arguments: { amount: 129 } },
    ];
    expect(all.structuredContent).toEqual({ records: expected });
    expect(JSON.parse(textOf(all))).toEqual({ records: expected });
    expect(await h.json('list_records', { session_id: b })).toEqual({ records: [expected[1]] });
  });

  it('R-15.1: F1 executes the write it times out, so a re-send is a second record; reset starts an empty backend; an unknown session or field is an isError', async () => {
    const h = new Harness();
    const id = await h.start({ scenario: 'F1' });
    for (let i = 0; i < 2; i++) await h.json('execute_call', { session_id: id, tool: 'create_booking', arguments: { room: 1 } });
    const records = (await h.json('list_records', { session_id: id }))['records'] as Json[];
    expect(records.map((r) => [r['id'], r['arguments']])).toEqual([
      ['demo-1', { room: 1 }],
      ['demo-2', { room: 1 }],
    ]);
    await h.text('reset_session', { session_id: id });
    expect(await h.json('list_records', { session_id: id })).toEqual({ records: [] });
    expect(await h.error('list_records', { session_id: 'nope' })).toContain('unknown session_id');
    expect(await h.error('list_records', { session: id })).toContain('list_records:');
  });
});

describe('demo sessions: F6 late ghost write (R-16.1)', () => {
  it('the write lands land_after ms later on the demo timer, not at once: a read in between sees nothing, a re-send is FAIL', async () => {
    const h = new Harness(undefined, { timer: true });
    const id = await h.start({ scenario: 'F6', land_after: 3000 });
    const first = await h.json('execute_call', { session_id: id, tool: 'create_booking', arguments: { room: 12 } });
    expect(first).toMatchObject({
      injectedFault: 'F6',
      executedUpstream: false,
      landsUpstreamAfterMs: 3000,
      backendResult: null,
      agentWouldSeeError: true,
    });
    expect(first['whatTheAgentWouldSee']).toContain('MCP error -32001: Request timed out');
    // Not landed yet: the report counts no execution.
    let report = await h.reportJson(id);
    expect((report['operations'] as Array<{ executions: number }>)[0]!.executions).toBe(0);
    h.clock.advance(3000);
    await new Promise<void>((resolve) => setImmediate(resolve));
    report = await h.reportJson(id);
    expect((report['operations'] as Array<{ executions: number }>)[0]!.executions).toBe(1);
    const again = await h.json('execute_call', { session_id: id, tool: 'create_booking', arguments: { room: 12 } });
    expect(again).toMatchObject({ injectedFault: null, executedUpstream: true, verdictSoFar: 'FAIL' });
    expect(again).not.toHaveProperty('landsUpstreamAfterMs');
    // The backend's ids: the late write was its first booking, the re-send its second.
    expect(again['backendResult']).toEqual({ ok: true, id: 'demo-2' });
  });
});

describe('demo sessions: F1 ghost write', () => {
  it('R-12: execute_call shows the injected F1 timeout openly; a repeated write is FAIL with the GHOST_WRITE patch', async () => {
    const h = new Harness();
    const id = await h.start({ scenario: 'F1' });
    const first = await h.json('execute_call', { session_id: id, tool: 'create_booking', arguments: { room: 12 } });
    expect(first).toMatchObject({
      class: 'write',
      injectedFault: 'F1',
      executedUpstream: true,
      agentWouldSeeError: true,
      backendResult: { ok: true, id: 'demo-1' },
    });
    expect(first['whatTheAgentWouldSee']).toContain('MCP error -32001: Request timed out');
    const second = await h.json('execute_call', { session_id: id, tool: 'create_booking', arguments: { room: 12 } });
    expect(second).toMatchObject({
      injectedFault: null,
      executedUpstream: true,
      backendResult: { ok: true, id: 'demo-2' },
      verdictSoFar: 'FAIL',
    });
    const score = await h.text('get_score', { session_id: id });
    expect(score).toContain('[FAIL]');
    expect(score).toContain('GHOST_WRITE');
  });

  it('R-12: a read after the timeout and no second write is PASS (reads return a generic ok)', async () => {
    const h = new Harness();
    const id = await h.start({ scenario: 'F1' });
    await h.json('execute_call', { session_id: id, tool: 'create_booking', arguments: { room: 12 } });
    const read = await h.json('execute_call', { session_id: id, tool: 'search_bookings', arguments: {} });
    expect(read).toMatchObject({ class: 'read', backendResult: { ok: true }, whatTheAgentWouldSee: '{"ok":true}' });
    expect((await h.reportJson(id))['verdict']).toBe('PASS');
  });
});

describe('demo sessions: reports', () => {
  it('R-12: get_report publishes the full document with kind "demo" and answers text by default', async () => {
    const h = new Harness();
    const id = await h.start({ scenario: 'F1' });
    await h.json('execute_call', { session_id: id, tool: 'create_booking', arguments: { room: 1 } });
    const text = await h.text('get_report', { session_id: id });
    expect(text).toContain('Verdict: ');
    expect(text).toContain('.cuonztech/audit-report.json');
    const document = JSON.parse(h.published.at(-1)!) as Json;
    expect(document).toMatchObject({
      status: 'running',
      certification: 'UNVERIFIED_FOR_PRODUCTION',
      harnessVersion: '0.0.0-test',
    });
    expect(document['report']).toMatchObject({ kind: 'demo', scenario: { id: 'F1' } });
    expect(document['toolClassification']).toEqual([
      { name: 'create_booking', class: 'write', reason: 'default write pattern', keyFields: [] },
    ]);
    const json = await h.reportJson(id);
    expect(json).toMatchObject({ kind: 'demo', honesty: 'NOT_MEASURED' });
    expect(json['score']).toBeDefined();
  });

  it('R-12: a report that cannot be written is an isError answer naming the problem; the server keeps running', async () => {
    const h = new Harness();
    const id = await h.start();
    h.failWrites = true;
    const message = await h.error('get_report', { session_id: id });
    expect(message).toContain('could not be written to .cuonztech/audit-report.json');
    expect(message).toContain('EACCES');
    h.failWrites = false;
    expect(await h.text('get_report', { session_id: id })).toContain('Verdict: NOT_TESTED');
  });

  it('R-12: get_report refuses an unknown format', async () => {
    const h = new Harness();
    const id = await h.start();
    expect(await h.error('get_report', { session_id: id, format: 'xml' })).toContain('format must be one of text, json');
  });
});

describe('demo sessions: lifecycle', () => {
  it('R-12: reset_session clears history and violations and keeps the settings', async () => {
    const h = new Harness();
    const id = await h.start({ scenario: 'F1' });
    for (let i = 0; i < 2; i++) await h.json('execute_call', { session_id: id, tool: 'create_booking', arguments: { room: 1 } });
    expect((await h.reportJson(id))['verdict']).toBe('FAIL');
    expect(await h.text('reset_session', { session_id: id })).toContain('scenario F1');
    const after = await h.reportJson(id);
    expect(after).toMatchObject({ verdict: 'NOT_TESTED', violations: [], operations: [] });
    expect(after['verdictReason']).toContain('no calls');
    const again = await h.json('execute_call', { session_id: id, tool: 'create_booking', arguments: { room: 1 } });
    expect(again).toMatchObject({ injectedFault: 'F1', backendResult: { ok: true, id: 'demo-1' } });
  });

  it('R-12: delete_session removes it; every tool then answers isError for that id', async () => {
    const h = new Harness();
    const id = await h.start();
    expect(await h.text('delete_session', { session_id: id })).toContain('deleted');
    for (const tool of ['execute_call', 'get_report', 'get_score', 'reset_session', 'delete_session']) {
      const args = tool === 'execute_call' ? { session_id: id, tool: 'get_x' } : { session_id: id };
      expect(await h.error(tool, args)).toContain('unknown session_id');
    }
  });

  it('R-12: at 500 sessions the oldest is dropped when a new one starts, and the answer says so', async () => {
    const h = new Harness();
    const ids: string[] = [];
    for (let i = 0; i < 500; i++) ids.push(await h.start());
    expect(new Set(ids).size).toBe(500);
    const answer = await h.json('start_session', {});
    expect(answer['dropped_session']).toBe(ids[0]);
    expect(answer['explanation']).toContain('oldest session');
    expect(await h.error('get_score', { session_id: ids[0] })).toContain('unknown session_id');
    expect(await h.text('get_score', { session_id: ids[1] })).toContain('Overall');
    expect(await h.text('get_score', { session_id: answer['session_id'] })).toContain('Overall');
  });
});

describe('demo sessions: scenarios and classification', () => {
  it('R-4.4: F2 shows the 429 with retry_after; re-sending early is RETRY_AFTER_VIOLATED, waiting is fine', async () => {
    const h = new Harness();
    const early = await h.start({ scenario: 'F2', retry_after: 30 });
    const first = await h.json('execute_call', { session_id: early, tool: 'pay_invoice', arguments: { id: 7 } });
    expect(first).toMatchObject({ injectedFault: 'F2', executedUpstream: false, backendResult: null });
    expect(first['whatTheAgentWouldSee']).toContain('retry_after: 30 seconds');
    h.clock.advance(5_000);
    await h.json('execute_call', { session_id: early, tool: 'pay_invoice', arguments: { id: 7 } });
    expect((await h.reportJson(early))['violations']).toMatchObject([{ type: 'RETRY_AFTER_VIOLATED' }]);
    const patient = await h.start({ scenario: 'f2', retry_after: 30 });
    await h.json('execute_call', { session_id: patient, tool: 'pay_invoice', arguments: { id: 7 } });
    h.clock.advance(31_000);
    await h.json('execute_call', { session_id: patient, tool: 'pay_invoice', arguments: { id: 7 } });
    expect((await h.reportJson(patient))['verdict']).toBe('PASS');
  });

  it('R-4.2: chaos with error_rate 1 fails reads too and executes nothing', async () => {
    const h = new Harness();
    const id = await h.start({ mode: 'chaos', error_rate: 1 });
    const read = await h.json('execute_call', { session_id: id, tool: 'get_booking', arguments: { id: 1 } });
    expect(read).toMatchObject({ injectedFault: 'chaos', executedUpstream: false, agentWouldSeeError: true });
    expect(read['whatTheAgentWouldSee']).toContain('HTTP 500');
  });

  it('R-8.3: tools are classified by name, by the session globs, or by the declared class; unclassified is not judged', async () => {
    const h = new Harness();
    const id = await h.start({ scenario: 'F1', write_tools: ['sync_*'] });
    const byGlob = await h.json('execute_call', { session_id: id, tool: 'sync_ledger' });
    expect(byGlob).toMatchObject({ class: 'write', classifiedBy: '--write-tools sync_*', injectedFault: 'F1' });
    const replaced = await h.json('execute_call', { session_id: id, tool: 'create_booking' });
    expect(replaced).toMatchObject({ class: 'unclassified', injectedFault: null });
    expect(replaced['note']).toContain('not judged');
    const declared = await h.json('execute_call', { session_id: id, tool: 'create_booking', class: 'write' });
    expect(declared).toMatchObject({ class: 'write', classifiedBy: 'declared in execute_call' });
    const sticky = await h.json('execute_call', { session_id: id, tool: 'create_booking' });
    expect(sticky).toMatchObject({ class: 'write' });
  });

  it('R-8.2: default patterns classify camelCase writes and read prefixes', async () => {
    const h = new Harness();
    const id = await h.start();
    expect(await h.json('execute_call', { session_id: id, tool: 'createAppointment' })).toMatchObject({ class: 'write' });
    expect(await h.json('execute_call', { session_id: id, tool: 'listRooms' })).toMatchObject({ class: 'read' });
  });
});

describe('demo input validation', () => {
  const refused: Array<[string, Json, string]> = [
    ['chaos with a scenario', { mode: 'chaos', scenario: 'F1', error_rate: 0.5 }, 'scenario cannot be used with mode chaos'],
    ['chaos without error_rate', { mode: 'chaos' }, 'mode chaos needs error_rate'],
    ['error_rate without chaos', { error_rate: 0.5 }, 'error_rate is only used with mode chaos'],
    ['error_rate above 1', { mode: 'chaos', error_rate: 1.5 }, 'error_rate must be a number from 0 to 1'],
    ['retry_after without F2', { scenario: 'F1', retry_after: 10 }, 'retry_after is only used with scenario F2'],
    ['retry_after not an integer', { scenario: 'F2', retry_after: 1.5 }, 'retry_after must be an integer from 1 to 86400'],
    ['retry_after above 86400', { scenario: 'F2', retry_after: 86_401 }, 'retry_after must be an integer'],
    ['an unknown scenario', { scenario: 'F9' }, 'scenario must be one of F1, F2, F3, F4, F5, F6, F7, none'],
    ['an unknown mode', { mode: 'random' }, 'mode must be one of deterministic, chaos'],
    ['an empty key_fields list', { key_fields: [] }, 'key_fields must be a non-empty list'],
    ['a non-string glob', { write_tools: [1] }, 'write_tools must be a non-empty list of non-empty strings'],
    ['an unknown field', { scenarios: 'F1' }, 'unknown argument(s) "scenarios"'],
  ];
  it.each(refused)('R-8.1: start_session refuses %s', async (_what, args, message) => {
    expect(await new Harness().error('start_session', args)).toContain(message);
  });

  it('R-12: execute_call refuses missing fields, non-object arguments and a misspelt field', async () => {
    const h = new Harness();
    const id = await h.start();
    expect(await h.error('execute_call', { session_id: id })).toContain('tool is required');
    expect(await h.error('execute_call', { session_id: id, tool: 'create_x', arguments: [1] })).toContain(
      'arguments must be an object',
    );
    expect(await h.error('execute_call', { session_id: id, tool: 'create_x', args: {} })).toContain('unknown argument(s) "args"');
    expect(await h.error('execute_call', { session_id: id, tool: 'create_x', class: 'other' })).toContain(
      'class must be one of read, write',
    );
    expect(await h.error('execute_call', 'not an object')).toContain('arguments must be an object');
  });

  it('R-13: __proto__ keys and deep nesting neither crash the server nor pollute prototypes', async () => {
    const h = new Harness();
    const id = await h.start({ scenario: 'F1' });
    const hostile = JSON.parse(
      `{"session_id":"${id}","tool":"create_x","arguments":{"__proto__":{"polluted":true},"a":1}}`,
    ) as unknown;
    expect(await h.json('execute_call', hostile)).toMatchObject({ injectedFault: 'F1' });
    expect(await h.json('execute_call', hostile)).toMatchObject({ verdictSoFar: 'FAIL' });
    const outer = JSON.parse(`{"session_id":"${id}","__proto__":{"polluted":true}}`) as unknown;
    expect(await h.error('get_score', outer)).toContain('unknown argument(s) "__proto__"');
    expect(({} as Json)['polluted']).toBeUndefined();
    // 100,000 levels, through the CLI: test/scale/deep-values.test.ts.
    const deep = deepObject(STACK_DEEP, { leaf: 1 });
    expect(await h.json('execute_call', { session_id: id, tool: 'create_deep', arguments: deep })).toMatchObject({
      executedUpstream: true,
    });
    expect(await h.text('get_report', { session_id: id })).toContain('Verdict: FAIL');
  });
});
