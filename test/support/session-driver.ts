/**
 * Drives an EvaluationSession through its call handles (`CallAttempt`, the steps the proxy's call pipeline
 * takes), one event at a time and synchronously, with a hand-driven clock.
 * Domain tests read as tables: calls in, verdict out, no processes and no timers.
 */
import type { UnknownReason } from '../../src/domain/judging/attempt.js';
import type { CallOrigin, ModelSide } from '../../src/domain/judging/attribution.js';
import type { ToolClass } from '../../src/domain/judging/classification.js';
import type { ScenarioConfig } from '../../src/domain/faults/fault-plan.js';
import type { InjectedResult } from '../../src/domain/faults/index.js';
import { buildReport, evaluate, type Evaluation, type Report } from '../../src/domain/report/report.js';
import type { CallAttempt } from '../../src/domain/judging/call-attempt.js';
import { EvaluationSession } from '../../src/domain/judging/session.js';

export class TestClock {
  constructor(public t = 1_000_000) {}
  now(): number {
    return this.t;
  }
  advance(ms: number): void {
    this.t += ms;
  }
}

/** A random source that returns the given values in turn (then repeats the last). */
export function fixedRandom(...values: number[]) {
  let i = 0;
  return { next: () => values[Math.min(i++, values.length - 1)] ?? 0 };
}

/** How the upstream answers a forwarded call in a test. */
export type Upstream = 'ok' | 'reject' | 'timeout' | 'crash' | 'throw' | 'unavailable' | { ok: string };

export interface Handle {
  /** The session's handle of the call (its decision, and the only way to report its later steps). */
  decision: CallAttempt;
  /** What the agent saw: the injected result, or the upstream's answer kind. */
  seen: InjectedResult | Upstream | null;
}

export const DEFAULT_TOOLS: Record<string, ToolClass> = {
  create_booking: 'write',
  pay_invoice: 'write',
  search_bookings: 'read',
  get_booking: 'read',
  sync_ledger: 'unclassified',
};

export class Driver {
  readonly clock = new TestClock();
  readonly session: EvaluationSession;

  constructor(
    scenario: ScenarioConfig = { mode: 'none' },
    tools: Record<string, ToolClass> = DEFAULT_TOOLS,
    options: {
      keyFields?: string[];
      keyTools?: string[];
      idempotentTools?: string[];
      random?: { next(): number };
      /** the model's side of the agent (attached: every repeat's source is decided). */
      modelSide?: ModelSide;
    } = {},
  ) {
    const classes = new Map(Object.entries(tools));
    const keyTools = new Set(options.keyTools ?? []);
    const idempotentTools = new Set(options.idempotentTools ?? []);
    this.session = new EvaluationSession(
      { scenario, keyFields: options.keyFields ?? ['idempotency_key'] },
      {
        classOf: (n) => classes.get(n) ?? 'unclassified',
        acceptsKey: (n) => keyTools.has(n),
        isIdempotent: (n) => idempotentTools.has(n),
      },
      this.clock,
      options.random ?? fixedRandom(0.99),
      options.modelSide ?? null,
    );
  }

  /** The agent sends a call; it stays open until `answer` (for parallel calls). */
  send(tool: string, args: unknown = {}, origin?: CallOrigin): Handle {
    const decision = this.session.receive(tool, args, origin);
    if (decision.forward) decision.forwarded();
    return { decision, seen: decision.forward ? null : decision.injected };
  }

  /** The upstream answers an open call, and the agent gets its answer. */
  answer(handle: Handle, upstream: Upstream = 'ok', options: { deliver?: boolean } = {}): Handle {
    if (handle.decision.forward) {
      const replaced = handle.decision.answered(executionOf(upstream));
      handle.seen = replaced ?? upstream;
    }
    if (options.deliver !== false) handle.decision.delivered();
    return handle;
  }

  /** Send and answer in one go (a sequential agent). */
  call(tool: string, args: unknown = {}, upstream: Upstream = 'ok'): Handle {
    return this.answer(this.send(tool, args), upstream);
  }

  wait(ms: number): void {
    this.clock.advance(ms);
  }

  evaluation(): Evaluation {
    return evaluate(this.session);
  }

  report(): Report {
    return buildReport(this.session, 'proxy', []);
  }

  get verdict(): string {
    return this.evaluation().verdict.verdict;
  }
}

const UNKNOWN: Record<string, UnknownReason> = { timeout: 'timeout', crash: 'connection-lost', throw: 'protocol-error' };

function executionOf(upstream: Upstream) {
  if (typeof upstream === 'object') return { kind: 'executed', answer: textAnswer(upstream.ok) } as const;
  switch (upstream) {
    case 'ok':
      return { kind: 'executed', answer: textAnswer('same') } as const;
    case 'reject':
      return { kind: 'rejected' } as const;
    case 'unavailable':
      return { kind: 'unavailable' } as const;
    default:
      return { kind: 'unknown', reason: UNKNOWN[upstream]! } as const;
  }
}

function textAnswer(text: string) {
  return { content: [{ type: 'text', text }] };
}
