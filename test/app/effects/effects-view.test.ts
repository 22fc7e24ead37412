import { describe, expect, it } from 'vitest';
import { snapshotEffects } from '../../../src/app/effects/effects-view.js';
import type { EffectsViewSettings } from '../../../src/domain/effects/effects-settings.js';
import type { ToolCallRequest } from '../../../src/ports/shapes/mcp-shapes.js';
import type { UpstreamCallOptions, UpstreamCallOutcome } from '../../../src/ports/upstream-side.port.js';

const view: EffectsViewSettings = {
  tool: 'search_bookings',
  arguments: { all: true },
  path: [],
  keyFields: ['guest'],
  expectations: [],
};

function upstream(outcome: UpstreamCallOutcome) {
  const calls: Array<{ request: ToolCallRequest; options: UpstreamCallOptions }> = [];
  return {
    calls,
    side: {
      callTool: (request: ToolCallRequest, options: UpstreamCallOptions) => {
        calls.push({ request, options });
        return Promise.resolve(outcome);
      },
    },
  };
}

describe('effects view: a snapshot through the upstream, never through the agent pipeline', () => {
  it('calls the read tool with its arguments and groups the records it lists', async () => {
    const fake = upstream({ kind: 'result', result: { content: [{ type: 'text', text: '[{"guest":"Ann","id":1}]' }] } });
    const result = await snapshotEffects(fake.side, view, 1234);
    expect(fake.calls).toEqual([
      { request: { name: 'search_bookings', arguments: { all: true } }, options: { timeoutMs: 1234 } },
    ]);
    expect(result.ok && result.snapshot.count).toBe(1);
  });

  it('every failure is a reason, with upstream text made terminal-safe', async () => {
    const cases: Array<[UpstreamCallOutcome, string]> = [
      [{ kind: 'timeout', afterMs: 30000 }, 'the effects tool search_bookings did not answer within 30000 ms'],
      [
        { kind: 'protocol-error', code: -32602, message: 'Unknown tool\u001b[2J' },
        'the effects tool search_bookings answered a JSON-RPC error -32602: Unknown tool\\u001b[2J',
      ],
      [
        { kind: 'connection-lost', detail: 'upstream exited' },
        'the effects tool search_bookings gave no answer (connection-lost): upstream exited',
      ],
      [
        { kind: 'result', result: { content: [{ type: 'text', text: 'x' }], isError: true } },
        'the effects tool search_bookings: the tool answered with isError',
      ],
      [
        { kind: 'result', result: { content: [{ type: 'text', text: '[{"name":"Ann"}]' }] } },
        "record 1 of the effects view has no field 'guest' (--effect-key guest)",
      ],
    ];
    for (const [outcome, reason] of cases)
      expect(await snapshotEffects(upstream(outcome).side, view)).toEqual({ ok: false, reason });
  });
});
