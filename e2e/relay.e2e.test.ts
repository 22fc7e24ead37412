/**
 * end to end: the compiled CLI as a real process between the MCP SDK's client (the agent, with
 * elicitation declared) and the relaying fixture (a real SDK server process that counts what it executes
 * in its ledger). Under F1 the write the user confirmed by elicitation executes once upstream, the agent is
 * told the time-out, and the journal records the elicitation on that attempt, between its forwarding and
 * its answer.
 */
import { join } from 'node:path';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, FIXTURES, readLines, startProxy, textOf, type ProxyRun } from '../test/support/proxy-harness.js';

let run: ProxyRun | undefined;
afterEach(async () => {
  await run?.stop().catch(() => undefined);
  cleanup(run);
  run = undefined;
});

describe('R-17.2: an elicitation answered during a faulted write (compiled CLI, real upstream process)', () => {
  it('F1: the user confirms, the upstream executes once (its ledger), the agent is told the time-out, the journal shows the elicitation on attempt 1', async () => {
    const asked: string[] = [];
    run = await startProxy({
      flags: [
        '--upstream-command',
        process.execPath,
        '--upstream-arg',
        join(FIXTURES, 'relaying-server.mjs'),
        '--scenario',
        'F1',
      ],
      extra: ['--journal', 'journal.jsonl'],
      capabilities: { elicitation: { form: {} } },
      setup(client) {
        client.setRequestHandler(ElicitRequestSchema, async (request) => {
          asked.push(request.params.message);
          return { action: 'accept', content: { confirm: true } };
        });
      },
    });
    const answer = await run.call('confirm_payment');
    expect(answer.isError).toBe(true);
    expect(textOf(answer)).toMatch(/timed out|did not answer/i);
    expect(asked).toEqual(['Confirm the payment of 42 EUR?']);
    // Counted in the upstream process: executed once, with the user's confirmation.
    expect(run.ledger().filter((e) => e['tool'] === 'confirm_payment')).toEqual([
      expect.objectContaining({ elicited: { action: 'accept', content: { confirm: true } } }),
    ]);
    await run.stop();
    const steps = readLines(join(run.dir, 'journal.jsonl'))
      .filter((line) => line['attempt'] === 1)
      .map((line) => [line['event'], line['asked'] ?? null]);
    expect(steps).toEqual([
      ['received', null],
      ['forwarded', null],
      ['asked', { method: 'elicitation/create', answer: 'accept' }],
      ['answered', null],
      ['delivered', null],
    ]);
    const report = run.report();
    expect(report.report.operations).toEqual([expect.objectContaining({ tool: 'confirm_payment', executions: 1 })]);
  }, 60_000);
});
