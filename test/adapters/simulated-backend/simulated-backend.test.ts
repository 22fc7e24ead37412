import { describe, expect, it } from 'vitest';
import { SimulatedBackend } from '../../../src/adapters/simulated-backend/simulated-backend.js';
import { DEFAULT_KEY_FIELDS, KeyFieldMatcher } from '../../../src/domain/judging/key-fields.js';
import { ToolClassifier } from '../../../src/domain/judging/classification.js';
import type { ToolCallResult } from '../../../src/ports/shapes/mcp-shapes.js';
import type { UpstreamCallOutcome } from '../../../src/ports/upstream-side.port.js';

const OPTIONS = { timeoutMs: 60_000 };
const booking = { guest: 'Ada Lovelace', date: '2026-11-03' };

function resultOf(outcome: UpstreamCallOutcome): ToolCallResult {
  if (outcome.kind !== 'result') throw new Error(`expected a result, got ${outcome.kind}`);
  return outcome.result;
}

function jsonOf(outcome: UpstreamCallOutcome): unknown {
  const [block] = (resultOf(outcome).content ?? []) as Array<{ text: string }>;
  return JSON.parse(block!.text) as unknown;
}

describe('SimulatedBackend', () => {
  it('R-8.2: lists create_booking, search_bookings, get_booking; the default rules classify them write, read, read', async () => {
    const backend = new SimulatedBackend();
    expect(await backend.connect()).toMatchObject({ serverName: 'simulated-booking-backend' });
    const tools = await backend.listTools();
    const classified = new ToolClassifier({}, new KeyFieldMatcher(DEFAULT_KEY_FIELDS)).classifyListed(tools);
    expect(classified.map((t) => [t.name, t.class, t.keyFields])).toEqual([
      ['create_booking', 'write', ['idempotency_key']],
      ['search_bookings', 'read', []],
      ['get_booking', 'read', []],
    ]);
  });

  it('not idempotent: every create_booking executes, even with the same idempotency_key; the ledger counts each', async () => {
    const backend = new SimulatedBackend();
    const args = { ...booking, idempotency_key: 'k-1' };
    const first = jsonOf(await backend.callTool({ name: 'create_booking', arguments: args }, OPTIONS));
    const second = jsonOf(await backend.callTool({ name: 'create_booking', arguments: args }, OPTIONS));
    expect(first).toMatchObject({ id: 'BK-0001', ...booking, room: 'standard', nights: 1, idempotencyKey: 'k-1' });
    expect(second).toMatchObject({ id: 'BK-0002' });
    expect(backend.writesExecuted()).toBe(2);
    expect(backend.ledger).toEqual([
      { tool: 'create_booking', bookingId: 'BK-0001', idempotencyKey: 'k-1' },
      { tool: 'create_booking', bookingId: 'BK-0002', idempotencyKey: 'k-1' },
    ]);
  });

  it('R-7: search_bookings finds a booking by guest (case-insensitive) and date without its id; get_booking reads it by id', async () => {
    const backend = new SimulatedBackend();
    await backend.callTool({ name: 'create_booking', arguments: { ...booking, nights: 2 } }, OPTIONS);
    await backend.callTool({ name: 'create_booking', arguments: { guest: 'Alan Turing', date: '2026-11-03' } }, OPTIONS);
    expect(
      jsonOf(
        await backend.callTool({ name: 'search_bookings', arguments: { guest: 'ada lovelace', date: '2026-11-03' } }, OPTIONS),
      ),
    ).toMatchObject([{ id: 'BK-0001', nights: 2 }]);
    expect(jsonOf(await backend.callTool({ name: 'search_bookings', arguments: { date: '2026-11-04' } }, OPTIONS))).toEqual([]);
    expect(jsonOf(await backend.callTool({ name: 'get_booking', arguments: { booking_id: 'BK-0002' } }, OPTIONS))).toMatchObject({
      guest: 'Alan Turing',
    });
    expect(
      resultOf(await backend.callTool({ name: 'get_booking', arguments: { booking_id: 'BK-0099' } }, OPTIONS)),
    ).toMatchObject({ isError: true });
    expect(backend.writesExecuted()).toBe(2);
  });

  it('R-1.3: bad arguments are an isError result and execute nothing; an unknown tool is a protocol error', async () => {
    const backend = new SimulatedBackend();
    for (const args of [{ guest: 'Ada' }, { ...booking, nights: 0 }, { ...booking, nights: 1.5 }, 'not an object', null]) {
      expect(resultOf(await backend.callTool({ name: 'create_booking', arguments: args }, OPTIONS))).toMatchObject({
        isError: true,
      });
    }
    expect(await backend.callTool({ name: 'cancel_booking', arguments: {} }, OPTIONS)).toMatchObject({
      kind: 'protocol-error',
      code: -32602,
    });
    expect(backend.writesExecuted()).toBe(0);
  });

  it('R-13: an own "__proto__" argument is plain data and pollutes nothing', async () => {
    const backend = new SimulatedBackend();
    const args = JSON.parse('{"guest":"Ada","date":"2026-11-03","__proto__":{"polluted":true}}') as Record<string, unknown>;
    expect(jsonOf(await backend.callTool({ name: 'create_booking', arguments: args }, OPTIONS))).toMatchObject({ guest: 'Ada' });
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('after close() calls are unavailable (not executed)', async () => {
    const backend = new SimulatedBackend();
    await backend.close();
    expect(await backend.callTool({ name: 'create_booking', arguments: booking }, OPTIONS)).toMatchObject({
      kind: 'unavailable',
    });
    expect(backend.writesExecuted()).toBe(0);
  });
});
