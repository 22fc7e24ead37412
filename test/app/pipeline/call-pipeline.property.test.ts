/**
 * The call pipeline against random agents (fast-check): batches of calls sent together (parallel) or one
 * by one, each answered by an in-memory upstream that keeps its own ledger of executed writes, under
 * every scenario. What must hold for every sequence:
 *
 * - when a read or write reaches the upstream, the last published report already counts it in
 *   flight (NOT_TESTED while it is there);
 * - an answer reaches the agent only after a report was published that was built after the
 *   upstream answered that call;
 * - the final report counts exactly the writes the upstream's ledger holds;
 * - the domain driver the tests use (`Driver`, the session's `CallAttempt` steps) and the pipeline judge a
 *   sequential agent identically: the same events give the same report, byte for byte.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CallPipeline } from '../../../src/app/pipeline/call-pipeline.js';
import type { ScenarioConfig } from '../../../src/domain/faults/fault-plan.js';
import { buildReport, evaluate } from '../../../src/domain/report/report.js';
import { serializeDocument } from '../../../src/domain/report/report-document.js';
import type { ToolCallRequest } from '../../../src/ports/shapes/mcp-shapes.js';
import type { UpstreamCallOutcome, UpstreamExit, UpstreamInfo, UpstreamSide } from '../../../src/ports/upstream-side.port.js';
import { Driver, type Upstream } from '../../support/session-driver.js';
import { propertyRuns } from '../../support/property-runs.js';

const RUNS = Number(process.env['FUZZ_RUNS'] ?? propertyRuns(100));
const TOOLS = ['create_booking', 'pay_invoice', 'search_bookings', 'sync_ledger'] as const;
const WRITES = new Set(['create_booking', 'pay_invoice']);

type Answer = 'ok' | 'reject' | 'timeout' | 'unavailable';
interface Call {
  tool: (typeof TOOLS)[number];
  args: Record<string, unknown>;
  answer: Answer;
}

const call: fc.Arbitrary<Call> = fc.record({
  tool: fc.constantFrom(...TOOLS),
  // Few distinct values, so retries and near-duplicates of one operation are common.
  args: fc.record({ amount: fc.constantFrom(10, 129, '129', 7.5), ref: fc.constantFrom('a', 'b') }),
  answer: fc.constantFrom<Answer>('ok', 'ok', 'reject', 'timeout', 'unavailable'),
});
/** The agent's turns: each a batch of calls sent at once (one call = a sequential step). */
const turns = fc.array(fc.array(call, { minLength: 1, maxLength: 4 }), { maxLength: 8 });
const scenario: fc.Arbitrary<ScenarioConfig> = fc.oneof(
  fc.constant({ mode: 'none' } as const),
  fc
    .constantFrom('F1', 'F2', 'F3', 'F4', 'F5')
    .map((id) => ({ mode: 'scenario', id, parameters: { retryAfterSeconds: 2 } }) as const),
);

const REJECTED: UpstreamCallOutcome = { kind: 'result', result: { content: [{ type: 'text', text: 'no' }], isError: true } };

/** An upstream that answers each call as planned (after a turn of the event loop) and keeps a ledger. */
class LedgerUpstream implements UpstreamSide {
  executedWrites = 0;
  atUpstream = 0;
  readonly log: string[] = [];
  constructor(
    private readonly plan: Map<string, Answer>,
    private readonly onArrival: (request: ToolCallRequest, inFlightHere: number) => void,
  ) {}
  async connect(): Promise<UpstreamInfo> {
    return {};
  }
  async listTools() {
    return TOOLS.map((name) => ({ name, inputSchema: { type: 'object' as const } }));
  }
  async callTool(request: ToolCallRequest): Promise<UpstreamCallOutcome> {
    // Unclassified calls are listed in the coverage, not judged, so not counted in flight.
    const judged = request.name !== 'sync_ledger';
    if (judged) this.atUpstream++;
    this.onArrival(request, judged ? this.atUpstream : 0);
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (judged) this.atUpstream--;
    const key = String((request.arguments as { seq: number }).seq);
    const answer = this.plan.get(key)!;
    this.log.push(`answered ${key}`);
    switch (answer) {
      case 'ok':
        if (WRITES.has(request.name)) this.executedWrites++;
        return { kind: 'result', result: { content: [{ type: 'text', text: 'same' }] } };
      case 'reject':
        return REJECTED;
      case 'timeout':
        return { kind: 'timeout', afterMs: 60_000 };
      case 'unavailable':
        return { kind: 'unavailable', detail: 'gone' };
    }
  }
  onExit(_listener: (exit: UpstreamExit) => void): void {}
  async close(): Promise<void> {}
}

/** Plays the turns through a CallPipeline; checks the publishing order on the way. */
async function playThroughPipeline(config: ScenarioConfig, batches: Call[][], sequential: boolean) {
  const driver = new Driver(config, {
    create_booking: 'write',
    pay_invoice: 'write',
    search_bookings: 'read',
    sync_ledger: 'unclassified',
  });
  const session = driver.session;
  const plan = new Map<string, Answer>();
  const events: string[] = [];
  let lastPublishedInFlight = 0;
  const upstream = new LedgerUpstream(plan, (request, here) => {
    // the report the file holds now counts every call at the upstream, this one included.
    expect(lastPublishedInFlight).toBeGreaterThanOrEqual(here);
    if (here > 0) expect(evaluate(session).verdict.verdict).toBe('NOT_TESTED');
    events.push(`upstream ${String((request.arguments as { seq: number }).seq)}`);
  });
  const pipeline = new CallPipeline({
    session,
    upstream,
    callTimeoutMs: 60_000,
    outputSchemaTools: new Set(),
    publish: async () => {
      lastPublishedInFlight = buildReport(session, 'proxy', []).coverage.inFlight;
      events.push(`publish after ${upstream.log.length}`);
    },
  });
  let seq = 0;
  for (const batch of sequential ? batches.flat().map((c) => [c]) : batches) {
    await Promise.all(
      batch.map(async (c) => {
        const n = seq++;
        plan.set(String(n), c.answer);
        await pipeline.call({ name: c.tool, arguments: { ...c.args, seq: n } });
        // the last publish before this answer came after the upstream's answer to it (if it went there).
        const answeredAt = upstream.log.indexOf(`answered ${n}`);
        if (answeredAt >= 0) {
          const lastPublish = events.filter((e) => e.startsWith('publish')).at(-1)!;
          expect(Number(lastPublish.split(' ')[2])).toBeGreaterThan(answeredAt);
        }
        events.push(`agent ${n}`);
      }),
    );
  }
  session.finish();
  return { session, upstream };
}

const UPSTREAM_OF: Record<Answer, Upstream> = { ok: 'ok', reject: 'reject', timeout: 'timeout', unavailable: 'unavailable' };

/** The same sequential agent through the domain driver alone (no pipeline). */
function playThroughDriver(config: ScenarioConfig, calls: Call[]): string {
  const driver = new Driver(config, {
    create_booking: 'write',
    pay_invoice: 'write',
    search_bookings: 'read',
    sync_ledger: 'unclassified',
  });
  calls.forEach((c, n) => {
    const handle = driver.send(c.tool, { ...c.args, seq: n });
    // The pipeline sends isError answers as a result with isError; the driver's 'reject' is the same judgement.
    driver.answer(handle, UPSTREAM_OF[c.answer]);
  });
  driver.session.finish();
  return documentOf(driver.session);
}

function documentOf(session: Driver['session']): string {
  return serializeDocument(session, { kind: 'proxy', harnessVersion: 'property', status: 'finished', toolClassification: [] });
}

describe('CallPipeline against random agents (properties)', () => {
  it('R-9.2.1 / R-9.2: every call is in the published report before it reaches the upstream, every answer after; the report counts the ledger', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, turns, async (config, batches) => {
        const { session, upstream } = await playThroughPipeline(config, batches, false);
        const report = JSON.parse(documentOf(session)) as { report: { operations: Array<{ executions: number }> } };
        expect(report.report.operations.reduce((sum, op) => sum + op.executions, 0)).toBe(upstream.executedWrites);
      }),
      { numRuns: RUNS },
    );
  });

  it('R-2 / R-4: a sequential agent gets the same report through the pipeline as through the domain driver the unit tests use', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, turns, async (config, batches) => {
        const { session } = await playThroughPipeline(config, batches, true);
        expect(documentOf(session)).toBe(playThroughDriver(config, batches.flat()));
      }),
      { numRuns: RUNS },
    );
  });
});
